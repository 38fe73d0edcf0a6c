"""Talking to InfluxDB: where to write (a Target), writing line protocol, InfluxQL queries.

Two write APIs:
- v1 `/write?db=&rp=` (InfluxDB 1.x, including Debian's 1.6.7, which has no v2 API).
  A plain HTTP POST from the standard library: the v1 Python client is archived, and the
  maintained client (influxdb-client) speaks only the v2 API.
- v2 `/api/v2/write?org=&bucket=` (InfluxDB 2.x, 3.x, and 1.8+), through influxdb-client.

Credentials come only from the environment, never from files or the command line:
SCTPBENCH_INFLUX_TOKEN (v2, and v1 servers behind token auth), SCTPBENCH_INFLUX_USERNAME
and SCTPBENCH_INFLUX_PASSWORD (v1).
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any, Protocol

TOKEN_ENV = "SCTPBENCH_INFLUX_TOKEN"
USERNAME_ENV = "SCTPBENCH_INFLUX_USERNAME"
PASSWORD_ENV = "SCTPBENCH_INFLUX_PASSWORD"


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

    @classmethod
    def from_spec(cls, influx: Any) -> "Target | None":
        """From the experiment's validated `influx:` section; None when it names no URL."""
        if influx.url is None:
            return None
        return cls(
            url=influx.url.rstrip("/"), api=influx.api, database=influx.database,
            retention_policy=influx.retention_policy, org=influx.org, bucket=influx.bucket, batch=influx.batch,
            flush_interval_s=influx.flush_interval / 1e9, timeout_s=influx.timeout / 1e9,
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Target":
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


def _auth_headers(target: Target) -> dict[str, str]:
    token = os.environ.get(TOKEN_ENV)
    if token:
        return {"Authorization": f"Token {token}"}
    user, password = os.environ.get(USERNAME_ENV), os.environ.get(PASSWORD_ENV)
    if user:
        basic = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
        return {"Authorization": f"Basic {basic}"}
    return {}


def _request(target: Target, path: str, params: dict[str, str], body: bytes | None) -> tuple[int, bytes]:
    url = f"{target.url}{path}?{urllib.parse.urlencode(params)}"
    headers = _auth_headers(target) | ({"Content-Type": "text/plain; charset=utf-8"} if body is not None else {})
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
        self.client = InfluxDBClient(url=target.url, token=os.environ.get(TOKEN_ENV, ""), org=target.org,
                                     timeout=int(target.timeout_s * 1000), retries=False)
        self.api = self.client.write_api(write_options=SYNCHRONOUS)

    def write(self, lines: list[str]) -> None:
        from influxdb_client import WritePrecision

        try:
            self.api.write(bucket=self.target.bucket_name, org=self.target.org, record=lines,
                           write_precision=WritePrecision.NS)
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
    params = {"db": target.bucket_name if target.api == "v2" else target.database, "q": influxql, "epoch": "ns"}
    if target.retention_policy:
        params["rp"] = target.retention_policy
    status, body = _request(target, "/query", params, None)
    if status != 200:
        raise WriteError(f"{target.url}/query: HTTP {status}: {body.decode(errors='replace').strip()[:300]}")
    results = json.loads(body).get("results", [{}])
    if results and "error" in results[0]:
        raise WriteError(f"{influxql}: {results[0]['error']}")
    return results[0].get("series", []) if results else []


def ping(target: Target) -> bool:
    try:
        status, _ = _request(target, "/ping", {}, None)
    except WriteError:
        return False
    return status == 204
