"""A local InfluxDB for people who have none: Debian's `influxd` (1.x) on loopback.

Everything lives in one folder of the user's choosing: the configuration, the data, the
log, the process id and the admin's credentials, so `stop` needs only that folder, and
removing it removes all.

Authentication is always on. On the first start a password is generated (DIR/credentials.json,
mode 0600) and the admin created through InfluxDB 1.x's bootstrap: while no user exists,
`CREATE USER … WITH ALL PRIVILEGES` is the one statement allowed without credentials.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from sctpbench.telemetry import credentials, influx

INFLUXD = "influxd"
START_TIMEOUT_S = 30.0

CONFIG = """\
# Written by `sctpbench influx start`: loopback only, data under this folder.
reporting-disabled = true
bind-address = "127.0.0.1:{rpc_port}"

[meta]
  dir = "{dir}/meta"

[data]
  dir = "{dir}/data"
  wal-dir = "{dir}/wal"
  query-log-enabled = false

[monitor]
  store-enabled = false

[http]
  enabled = true
  bind-address = "127.0.0.1:{port}"
  auth-enabled = true
  log-enabled = false
  pprof-enabled = false

[continuous_queries]
  enabled = false
"""


class ServerError(Exception):
    pass


@dataclass(frozen=True)
class LocalServer:
    directory: Path
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid_file(self) -> Path:
        return self.directory / "influxd.pid"

    def target(self, database: str = "sctpbench") -> influx.Target:
        return influx.Target(url=self.url, database=database, credentials_dir=str(self.directory))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(directory: Path, port: int = 8086, database: str = "sctpbench") -> LocalServer:
    """Start influxd in the background; return once it answers and the database exists."""
    if shutil.which(INFLUXD) is None:
        raise ServerError("influxd not found: install Debian's influxdb package (scripts/install does)")
    if not 1 <= port <= 65535:
        raise ServerError(f"--port {port}: allowed: 1 to 65535")
    directory = directory.resolve()
    if running(directory):
        raise ServerError(f"an InfluxDB started from {directory} is already running (pid {_pid(directory)})")
    if not port_free(port):
        raise ServerError(f"127.0.0.1:{port} is already in use; choose another with --port")
    # Private: it holds the password and the data (mode applies only to a folder made now).
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    server = LocalServer(directory, port)
    try:
        creds, generated = credentials.ensure(directory)
    except (credentials.CredentialsError, OSError) as e:
        raise ServerError(str(e)) from None
    config = directory / "influxdb.conf"
    config.write_text(CONFIG.format(dir=directory, port=port, rpc_port=free_port()))
    with open(directory / "influxd.log", "ab") as log:
        proc = subprocess.Popen([INFLUXD, "-config", str(config)], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    server.pid_file.write_text(f"{proc.pid} {port}\n")
    deadline = time.monotonic() + START_TIMEOUT_S
    while not influx.ping(server.target()):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(directory)
            raise ServerError(f"influxd did not come up on 127.0.0.1:{port} (see {directory / 'influxd.log'})")
        time.sleep(0.1)
    try:
        _admin(server, creds)
        influx.ensure_database(server.target(database))
    except (ServerError, influx.WriteError) as e:
        stop(directory)
        if generated:  # a password that opens nothing would only mislead the next start
            (directory / credentials.FILE).unlink(missing_ok=True)
        raise ServerError(str(e)) from None
    return server


def _admin(server: LocalServer, creds: credentials.Credentials) -> None:
    """Create the admin on a server without users; otherwise check the stored password opens it."""
    status, reply = influx.create_admin(server.target(), creds)
    if status == 200 and '"error"' not in reply:
        return
    try:
        influx.query(server.target(), "SHOW USERS")
    except influx.WriteError:
        raise ServerError(f"the InfluxDB in {server.directory} has users, and {server.directory / credentials.FILE} "
                          f"does not open it (HTTP {status}: {reply}); restore that file, or start from a new folder") from None


def auth_enforced(server: LocalServer) -> bool:
    try:
        return influx.auth_enforced(server.target())
    except influx.WriteError:
        return False


def stop(directory: Path) -> bool:
    """Stop the influxd started from this folder; False if none was running."""
    pid = _pid(directory)
    if pid is None:
        return False
    try:
        for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            os.killpg(pid, sig)
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and _alive(pid):
                time.sleep(0.05)
            if not _alive(pid):
                break
    except ProcessLookupError:
        pass
    (directory / "influxd.pid").unlink(missing_ok=True)
    return True


def running(directory: Path) -> LocalServer | None:
    pid = _pid(directory)
    if pid is None or not _alive(pid):
        return None
    port = int((directory / "influxd.pid").read_text().split()[1])
    return LocalServer(directory.resolve(), port)


def last(directory: Path) -> LocalServer | None:
    """The server as its configuration left it (its port), whether or not it runs."""
    try:
        config = (directory / "influxdb.conf").read_text()
    except OSError:
        return None
    match = re.search(r'\[http\][^\[]*?bind-address = "127\.0\.0\.1:(\d+)"', config)
    return LocalServer(directory.resolve(), int(match.group(1))) if match else None


def _pid(directory: Path) -> int | None:
    try:
        return int((directory / "influxd.pid").read_text().split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        return None


def _alive(pid: int) -> bool:
    try:
        # A child of ours that exited stays a zombie until reaped: reap it if it is ours.
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def port_free(port: int) -> bool:
    """Whether influxd could listen on this loopback port now."""
    with socket.socket() as s:
        # As influxd (Go) binds: connections of a stopped server in TIME_WAIT do not count.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
