"""InfluxDB credentials: kept out of URLs, files of results, messages and command lines.

Where they come from, first match wins:
1. a server folder named for this target: `--influx-dir DIR` or SCTPBENCH_INFLUX_DIR,
   holding DIR/credentials.json as `sctpbench influx start` wrote it (mode 0600);
2. the environment: SCTPBENCH_INFLUX_TOKEN, or SCTPBENCH_INFLUX_USERNAME and _PASSWORD;
3. the default server folder, only when the URL is the loopback port its server listens
   on (so a local admin password never travels to another server).

A run records only the folder's path (in telemetry.json), never a secret; child processes
get the folder's path on their command line and read the file themselves.

Standard library only: the experiment model imports the URL check.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from sctpbench.model.influxurl import NO_USERINFO as NO_USERINFO
from sctpbench.model.influxurl import PASSWORD_ENV, TOKEN_ENV, USERNAME_ENV
from sctpbench.model.influxurl import url_problem as url_problem

DIR_ENV = "SCTPBENCH_INFLUX_DIR"
FILE = "credentials.json"
ADMIN = "sctpbench"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class CredentialsError(Exception):
    """Credentials named but unusable; the message names the file, never a secret."""


@dataclass(frozen=True)
class Credentials:
    # repr=False: a traceback or a debug print of a Target's credentials shows no secret.
    username: str | None = None
    password: str = field(default="", repr=False)
    token: str | None = field(default=None, repr=False)

    def headers(self) -> dict[str, str]:
        import base64

        if self.token:
            return {"Authorization": f"Token {self.token}"}
        if self.username:
            basic = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
            return {"Authorization": f"Basic {basic}"}
        return {}


# ---------------------------------------------------------------------------- URLs


def scrub(text: str) -> str:
    """Text with any URL userinfo (and anything like `user:secret@`) replaced by `***@`."""
    return re.sub(r"(?<=://)[^\s'\"]*@|(?<==)[^\s'\"]*@|(?<![^\s'\"(=])[^\s'\"=]*:[^\s'\"]*@", "***@", text)


def strip_userinfo(url: str) -> str:
    """The URL without `user:password@`: the last guard before a URL is stored or shown."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


# ---------------------------------------------------------------------------- the server's file


def generate(directory: Path) -> Credentials:
    """A new admin password for the server in `directory`, written 0600 (never overwritten)."""
    creds = Credentials(username=ADMIN, password=secrets.token_urlsafe(24))
    path = directory / FILE
    # O_EXCL with the mode at creation: the secret is never readable by others, even for a moment.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"username": creds.username, "password": creds.password}, f)
        f.write("\n")
    return creds


def load(directory: Path) -> Credentials:
    path = Path(directory) / FILE
    try:
        mode = path.stat().st_mode
        document = json.loads(path.read_text())
        username, password = document["username"], document["password"]
    except FileNotFoundError:
        raise CredentialsError(f"{path}: no such file (start the server with `sctpbench influx start --dir "
                               f"{directory}`)") from None
    except OSError as e:
        raise CredentialsError(f"{path}: cannot read: {e.strerror}") from None
    except (ValueError, KeyError, TypeError):
        raise CredentialsError(f"{path}: not a credentials file (JSON with username and password)") from None
    if mode & 0o077:
        # As ssh does with keys: a secret others could read is no longer one.
        raise CredentialsError(f"{path}: readable by others (mode {stat.S_IMODE(mode):04o}); allowed: 0600 "
                               f"(chmod 600 {path})")
    if not isinstance(username, str) or not isinstance(password, str):
        raise CredentialsError(f"{path}: username and password must be strings")
    return Credentials(username=username, password=password)


def ensure(directory: Path) -> tuple[Credentials, bool]:
    """The folder's credentials, generated if it has none; True when generated now."""
    if (directory / FILE).exists():
        return load(directory), False
    return generate(directory), True


# ---------------------------------------------------------------------------- choosing


def default_dir() -> Path:
    return Path(os.environ.get(DIR_ENV) or Path.home() / ".local/share/sctpbench/influxdb")


def named_dir() -> str | None:
    """The server folder the environment names for every target (SCTPBENCH_INFLUX_DIR)."""
    value = os.environ.get(DIR_ENV)
    return str(Path(value).resolve()) if value else None


def from_env() -> Credentials | None:
    token = os.environ.get(TOKEN_ENV)
    if token:
        return Credentials(token=token)
    user = os.environ.get(USERNAME_ENV)
    if user:
        return Credentials(username=user, password=os.environ.get(PASSWORD_ENV, ""))
    return None


def for_target(url: str, credentials_dir: str | None) -> Credentials | None:
    if credentials_dir:
        return load(Path(credentials_dir))
    env = from_env()
    if env is not None:
        return env
    home = default_dir()
    if (home / FILE).exists() and serves(home, url):
        return load(home)
    return None


def serves(directory: Path, url: str) -> bool:
    """Whether `url` is the loopback port of the server started from `directory`."""
    try:
        port = int((directory / "influxd.pid").read_text().split()[1])
        parts = urllib.parse.urlsplit(url)
        return parts.hostname in LOOPBACK and (parts.port or 80) == port
    except (OSError, ValueError, IndexError):
        return False
