"""What watching a run needs (`sctpbench run FILE --watch`): the local InfluxDB and the live
view, each started when it is not already running, and left running after the run so the
finished run can still be looked at.

The view runs as its own process (`sctpbench dashboards serve`, in a new session so Ctrl-C
on the run does not take it down), its process id in the server folder's `view.pid` and its
messages in `view.log`. Nothing here holds a secret: the view reads the folder's credentials
file itself.
"""

from __future__ import annotations

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
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
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
    (directory / VIEW_PID).write_text(f"{proc.pid}\n")
    deadline = time.monotonic() + VIEW_START_TIMEOUT_S
    while not view_answers(url):
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
        pid = (watched.influx.directory / VIEW_PID).read_text().strip() if "the live view" in watched.started else ""
        said += (f" (started {' and '.join(watched.started)}; they keep running after the run: "
                 f"`sctpbench influx stop --dir {watched.influx.directory}`" + (f", `kill {pid}`" if pid else "") + ")")
    return said
