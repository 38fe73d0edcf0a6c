"""What watching a run needs (`sctpbench run FILE --watch`): the local InfluxDB and the live
view, each started when it is not already running, and left running after the run so the
finished run can still be looked at.

The view runs as its own process (`sctpbench dashboards serve`, in a new session so Ctrl-C
on the run does not take it down), its process id in the server folder's `view.pid` and its
messages in `view.log`. Nothing here holds a secret: the view reads the folder's credentials
file itself. `sctpbench dashboards stop` (stop()) ends both.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from sctpbench.telemetry import credentials, server

DEFAULT_VIEW_PORT = 5106  # `sctpbench dashboards serve`'s default (cli/dashboards.py)
INFLUX_PORT = 8086
VIEW_PID = "view.pid"
VIEW_LOG = "view.log"
VIEW_START_TIMEOUT_S = 60.0
VIEW_ANSWER_TIMEOUT_S = 15.0
VIEW_STOP_WAIT_S = 10.0  # after SIGTERM, before SIGKILL


class WatchError(Exception):
    """The live view could not be started; the message says where its log is."""


@dataclass(frozen=True)
class Watched:
    influx: server.LocalServer
    view_url: str
    started: tuple[str, ...]  # what was started now ("InfluxDB", "the live view"), for the message


def influx(directory: Path) -> tuple[server.LocalServer, bool]:
    """The folder's server, started if it is not running (its last port, else 8086, else a free one)."""
    running = server.running(directory)
    if running is not None:
        return running, False
    last = server.last(directory)
    port = last.port if last else INFLUX_PORT
    if not server.port_free(port):
        port = server.free_port()
    return server.start(directory, port), True


def view_answers(url: str) -> bool:
    """A page comes back from the URL: a view runs there. Each request opens a session, whose
    first drawing runs every panel's queries: seconds on a loaded machine, hence the timeout."""
    try:
        with urllib.request.urlopen(url, timeout=VIEW_ANSWER_TIMEOUT_S) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _listens(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


def view(directory: Path, port: int) -> tuple[str, bool]:
    """The live view on 127.0.0.1:port, started (reading the folder's server) unless one answers there."""
    url = f"http://127.0.0.1:{port}/"
    if view_answers(url):
        return url, False
    log = (directory / VIEW_LOG).open("a")
    proc = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "dashboards", "serve", "--influx-dir", str(directory),
                             "--port", str(port)], stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    (directory / VIEW_PID).write_text(f"{proc.pid} {port}\n")
    deadline = time.monotonic() + VIEW_START_TIMEOUT_S
    # Started once the view listens (its server is up): asking for a page here would open a
    # session and wait for its first drawing, which a loaded machine can make slower than any
    # timeout while the process is well.
    while not _listens(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise WatchError(f"the live view did not start on {url}: see {directory / VIEW_LOG}")
        time.sleep(0.2)
    return url, True


def prepare(influx_dir: Path | None, view_port: int = DEFAULT_VIEW_PORT) -> Watched:
    directory = (influx_dir or credentials.default_dir()).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    s, influx_started = influx(directory)
    url, view_started = view(directory, view_port)
    started = (("InfluxDB",) if influx_started else ()) + (("the live view",) if view_started else ())
    return Watched(s, url, started)


def message(watched: Watched) -> str:
    said = f"watch it live: {watched.view_url}"
    if watched.started:
        said += (f" (started {' and '.join(watched.started)}; they keep running after the run: "
                 f"`sctpbench dashboards stop --influx-dir {watched.influx.directory}` stops them)")
    return said


def view_process(directory: Path) -> tuple[int, int] | None:
    """(pid, port) of the view --watch started from this folder, if it still runs: the pid of
    view.pid, and only while that process is still our view of this folder (a pid is reused)."""
    try:
        fields = (directory / VIEW_PID).read_text().split()
        pid, port = int(fields[0]), int(fields[1]) if len(fields) > 1 else DEFAULT_VIEW_PORT
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError, IndexError):
        return None
    ours = b"dashboards" in argv and b"serve" in argv and str(directory).encode() in argv
    return (pid, port) if ours else None


def _gone(pid: int, wait_s: float) -> bool:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            os.waitpid(pid, os.WNOHANG)  # our own child (the test's, or run's): reap it
        except ChildProcessError:
            pass
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def stop(influx_dir: Path | None) -> list[str]:
    """Stop the live view and the local InfluxDB that --watch started from this folder (default:
    --watch's): what was stopped, in words. The data stays; view.pid and influxd.pid go."""
    directory = (influx_dir or credentials.default_dir()).resolve()
    stopped = []
    view_running = view_process(directory)
    if view_running is not None:
        pid, port = view_running
        for sig, wait_s in ((signal.SIGTERM, VIEW_STOP_WAIT_S), (signal.SIGKILL, 5.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            if _gone(pid, wait_s):
                break
        stopped.append(f"the live view (pid {pid}, http://127.0.0.1:{port}/)")
    (directory / VIEW_PID).unlink(missing_ok=True)
    influxd = server.running(directory)
    if server.stop(directory) and influxd is not None:
        stopped.append(f"InfluxDB ({influxd.url}, data kept in {directory})")
    return stopped
