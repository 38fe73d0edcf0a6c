"""Live telemetry from real runs (kernel SCTP in the guest) into a real InfluxDB."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sctpbench.telemetry import credentials, server
from tests.support.telemetry import EXAMPLES, assert_every_dashboard_query_has_data, counts, local_influxd

SHORT = ["--set", "workload.duration=4s", "--set", "events.0.at=2s"]


@pytest.fixture
def influxd(tmp_path: Path) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path / "influxd")


def _run(out: Path, influxd: server.LocalServer, during: Any = None, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "sctpbench.cli", "run", str(EXAMPLES / "failover.yaml"), *SHORT, *extra,
           "--influx", influxd.url, "--influx-dir", str(influxd.directory), "--out", str(out), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if during:
        threading.Thread(target=during, daemon=True).start()
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    return json.loads(stdout)["runs"][0]


def _store_counts(run_dir: Path) -> dict[str, int]:
    rows = {m: pq.read_table(run_dir / f"{t}.parquet").num_rows
            for m, t in (("sctp_message", "messages"), ("sctp_path", "path_samples"), ("sctp_event", "path_events"))}
    return rows | {"sctp_run": 2}  # the run across associations, and its one association


def test_a_live_run_lands_in_influx_point_for_point(tmp_path: Path, influxd: server.LocalServer) -> None:
    run = _run(tmp_path / "results", influxd)
    run_dir = Path(run["directory"])
    expected = _store_counts(run_dir)
    assert run["telemetry"]["not_sent"] == 0 and run["telemetry"]["sent"] == expected
    assert counts(influxd.target(), run["params"]["run_id"], run_dir.parent.name) == expected
    assert_every_dashboard_query_has_data(influxd.target(), run_dir)
    # Authentication was on, and the results (created with the user's umask) hold no secret.
    password = credentials.load(influxd.directory).password.encode()
    assert [p for p in (tmp_path / "results").rglob("*") if p.is_file() and password in p.read_bytes()] == []


def test_influx_stopped_mid_run_then_push_restores_every_point(tmp_path: Path, influxd: server.LocalServer) -> None:
    out = tmp_path / "results"

    def stop_after_t0() -> None:
        deadline = time.monotonic() + 60
        while not list(out.glob("*/run-001/backend.json")) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)  # some points went live; the rest of the run has no InfluxDB
        server.stop(influxd.directory)

    # Paced: on virtual time the run can end before the server is stopped.
    run = _run(out, influxd, during=stop_after_t0, extra=("--set", "clock=paced"))
    run_dir = Path(run["directory"])
    expected = _store_counts(run_dir)
    assert run["status"] == "ok" and run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"]
    telemetry = run["telemetry"]
    assert 0 < telemetry["not_sent"] < sum(expected.values()), telemetry
    assert telemetry["errors"]

    server.start(influxd.directory, influxd.port)  # same data folder: what went live is still there
    key = (influxd.target(), run["params"]["run_id"], run_dir.parent.name)
    before = counts(*key)
    assert before != expected
    subprocess.run([sys.executable, "-m", "sctpbench.cli", "push", str(run_dir.parent)], check=True, capture_output=True)
    assert counts(*key) == expected
    assert json.loads((run_dir / "summary.json").read_text())["telemetry"]["not_sent"] == 0
    subprocess.run([sys.executable, "-m", "sctpbench.cli", "push", str(run_dir)], check=True, capture_output=True)
    assert counts(*key) == expected
