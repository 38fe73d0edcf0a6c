"""Talking to InfluxDB: where to write (a Target), writing line protocol, InfluxQL queries.

Two write APIs:
- v1 `/write?db=&rp=` (InfluxDB 1.x, including Debian's 1.6.7, which has no v2 API).
  A plain HTTP POST from the standard library: the v1 Python client is archived, and the
  maintained client (influxdb-client) speaks only the v2 API.
- v2 `/api/v2/write?org=&bucket=` (InfluxDB 2.x, 3.x, and 1.8+), through influxdb-client.

Credentials never come from the URL, an experiment file or the command line: see
credentials.py (a server folder of `sctpbench influx start`, or the environment:
SCTPBENCH_INFLUX_TOKEN, SCTPBENCH_INFLUX_USERNAME and SCTPBENCH_INFLUX_PASSWORD).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from sctpbench.telemetry import credentials

TOKEN_ENV = credentials.TOKEN_ENV
USERNAME_ENV = credentials.USERNAME_ENV
PASSWORD_ENV = credentials.PASSWORD_ENV


class WriteError(Exception):
    """A write InfluxDB did not accept (down, slow, or rejected)."""


@dataclass(frozen=True)
class Target:
    url: str
    api: str = "v1"
    database: str = "sctpbench"
    retention_policy: str | None = None
    org: str | None = None
    bucket: str | None = None
    batch: int = 5000
    flush_interval_s: float = 0.2
    timeout_s: float = 5.0
    # The server folder whose credentials.json to use: a path, never a secret, so it may be
    # recorded in telemetry.json and passed on a command line.
    credentials_dir: str | None = None

    def __post_init__(self) -> None:
        # The entry points refuse userinfo; this keeps an old recorded URL from showing one.
        object.__setattr__(self, "url", credentials.strip_userinfo(self.url))

    @classmethod
    def from_spec(cls, influx: Any) -> Target | None:
        """From the experiment's validated `influx:` section; None when it names no URL."""
        if influx.url is None:
            return None
        return cls(
            url=influx.url.rstrip("/"), api=influx.api, database=influx.database,
            retention_policy=influx.retention_policy, org=influx.org, bucket=influx.bucket, batch=influx.batch,
            flush_interval_s=influx.flush_interval / 1e9, timeout_s=influx.timeout / 1e9,
            credentials_dir=credentials.named_dir(),
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Target:
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def bucket_name(self) -> str:
        return self.bucket or self.database

    def describe(self) -> str:
        where = f"database {self.database}" if self.api == "v1" else f"org {self.org}, bucket {self.bucket_name}"
        return f"{self.url} ({self.api}, {where})"


class Writer(Protocol):
    def write(self, lines: list[str]) -> None: ...
    def close(self) -> None: ...


def _credentials(target: Target) -> credentials.Credentials | None:
    try:
        return credentials.for_target(target.url, target.credentials_dir)
    except credentials.CredentialsError as e:
        raise WriteError(str(e)) from None


def _request(target: Target, path: str, params: dict[str, str], body: bytes | None,
             auth: bool = True, content_type: str = "text/plain; charset=utf-8") -> tuple[int, bytes]:
    url = f"{target.url}{path}?{urllib.parse.urlencode(params)}"
    creds = _credentials(target) if auth else None
    headers = (creds.headers() if creds else {}) | ({"Content-Type": content_type} if body is not None else {})
    req = urllib.request.Request(url, data=body, headers=headers, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=target.timeout_s) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise WriteError(f"{target.url}: {reason}") from None


class V1Writer:
    def __init__(self, target: Target) -> None:
        self.target = target
        self.params = {"db": target.database, "precision": "ns"}
        if target.retention_policy:
            self.params["rp"] = target.retention_policy

    def write(self, lines: list[str]) -> None:
        data = "\n".join(lines).encode()
        status, body = _request(self.target, "/write", self.params, data)
        if status == 404 and b"database not found" in body:
            # A server that was down when the run began, or was started afresh since.
            ensure_database(self.target)
            status, body = _request(self.target, "/write", self.params, data)
        if status != 204:
            raise WriteError(f"{self.target.url}/write: HTTP {status}: {body.decode(errors='replace').strip()[:300]}")

    def close(self) -> None:
        pass


class V2Writer:
    def __init__(self, target: Target) -> None:
        from influxdb_client import InfluxDBClient
        from influxdb_client.client.write_api import SYNCHRONOUS

        self.target = target
        # No retries inside the client: a failed batch is counted and left to `push`.
        try:
            creds = _credentials(target)
        except WriteError:
            creds = None  # every write then fails with the server's refusal, and is counted
        self.client = InfluxDBClient(url=target.url, token=(creds.token if creds else None) or "", org=target.org or "",
                                     timeout=int(target.timeout_s * 1000), retries=False)
        self.api = self.client.write_api(write_options=SYNCHRONOUS)

    def write(self, lines: list[str]) -> None:
        from influxdb_client import WritePrecision

        try:
            self.api.write(bucket=self.target.bucket_name, org=self.target.org or "", record=lines,
                           write_precision=WritePrecision.NS)  # type: ignore[arg-type]  # a str constant in the client
        except Exception as e:  # the client raises ApiException, urllib3 and socket errors alike
            raise WriteError(f"{self.target.url}/api/v2/write: {_short(e)}") from None

    def close(self) -> None:
        self.api.close()
        self.client.close()


def _short(e: Exception) -> str:
    status = getattr(e, "status", None)
    reason = getattr(e, "reason", None) or str(e)
    return f"HTTP {status}: {reason}" if status else str(reason).splitlines()[0][:300]


def writer(target: Target) -> Writer:
    return V2Writer(target) if target.api == "v2" else V1Writer(target)


def ensure_database(target: Target) -> None:
    """v1: create the database if missing (idempotent). v2 buckets are the server admin's."""
    if target.api == "v1":
        _request(target, "/query", {"q": f'CREATE DATABASE "{target.database}"'}, b"")


def query(target: Target, influxql: str) -> list[dict[str, Any]]:
    """Run InfluxQL through /query (v1, and v2's InfluxQL mapping); the series of the first result."""
    return query_many(target, [influxql])[0]


def query_many(target: Target, statements: list[str]) -> list[list[dict[str, Any]]]:
    """Several InfluxQL statements in one request (InfluxDB runs them in order): each one's
    series, or a WriteError naming the first that failed. One request, not one per statement,
    is what lets the live view ask for its new points several times a second."""
    if not statements:
        return []
    params = {"db": target.bucket_name if target.api == "v2" else target.database, "q": ";".join(statements), "epoch": "ns"}
    if target.retention_policy:
        params["rp"] = target.retention_policy
    status, body = _request(target, "/query", params, None)
    if status != 200:
        raise WriteError(f"{target.url}/query: HTTP {status}: {body.decode(errors='replace').strip()[:300]}")
    results = {r.get("statement_id", i): r for i, r in enumerate(json.loads(body).get("results", []))}
    out = []
    for i, statement in enumerate(statements):
        result = results.get(i, {})
        if "error" in result:
            raise WriteError(f"{statement}: {result['error']}")
        out.append(result.get("series", []))
    return out


def ping(target: Target) -> bool:
    try:
        status, _ = _request(target, "/ping", {}, None)
    except WriteError:
        return False
    return status == 204


def create_admin(target: Target, creds: credentials.Credentials) -> tuple[int, str]:
    """v1: create the first admin (allowed without credentials only while no user exists).

    The statement goes in a form body, not the URL, so no request log holds the password.
    """
    statement = f'CREATE USER "{creds.username}" WITH PASSWORD \'{creds.password}\' WITH ALL PRIVILEGES'
    body = urllib.parse.urlencode({"q": statement}).encode()
    status, reply = _request(target, "/query", {}, body, auth=False, content_type="application/x-www-form-urlencoded")
    return status, credentials.scrub(reply.decode(errors="replace").replace(creds.password, "***")).strip()[:300]


def auth_enforced(target: Target) -> bool:
    """Whether the server refuses a query without credentials."""
    status, _ = _request(target, "/query", {"q": "SHOW DATABASES"}, None, auth=False)
    return status == 401
