"""`sctpbench run FILE --watch`: a short failover run in the guest, watched live.

The first run starts the local InfluxDB and the live view (in a temp folder, on free ports),
prints the view's URL and streams the run there; the view answers and InfluxDB holds every
message. A second --watch finds both running and starts nothing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

from sctpbench.dashboards import watch
from sctpbench.telemetry import server
from tests.support.telemetry import EXAMPLES, counts, require_influxd

SHORT = ["--set", "workload.duration=2s", "--set", "events.0.at=1s"]


def _watch(tmp_path: Path, influx_dir: Path, port: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(EXAMPLES / "failover.yaml"), *SHORT, "--watch",
                           "--influx-dir", str(influx_dir), "--view-port", str(port), "--out", str(tmp_path / "results")],
                          capture_output=True, text=True, timeout=240)


def test_watch_starts_influxdb_and_the_view_and_streams_the_run(tmp_path: Path) -> None:
    require_influxd()
    influx_dir, port = tmp_path / "influx", server.free_port()
    try:
        first = _watch(tmp_path, influx_dir, port)
        assert first.returncode == 0, first.stderr
        url = f"http://127.0.0.1:{port}/"
        assert re.search(rf"watch it live: {re.escape(url)} \(started InfluxDB and the live view", first.stderr), first.stderr
        assert watch.view_answers(url)
        with urllib.request.urlopen(url, timeout=5) as page:
            assert b"sctpbench: runs and campaigns" in page.read()
        running = server.running(influx_dir)
        assert running is not None
        run_dir = next((tmp_path / "results").glob("failover-*/run-001"))
        run_id = json.loads((run_dir / "plan.json").read_text())["run_id"]
        assert counts(running.target(), run_id, run_dir.parent.name)["sctp_message"] > 50

        second = _watch(tmp_path, influx_dir, port)
        assert second.returncode == 0, second.stderr
        said = re.search(r"watch it live: (.*)", second.stderr)
        assert said and said.group(1) == url, second.stderr  # nothing started this time
    finally:
        watch.stop(influx_dir)  # `sctpbench dashboards stop`: the view and influxd
