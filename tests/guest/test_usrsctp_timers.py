"""Failover on the second stack (usrsctp, docs/stacks.md) against the timer model, as
tests/guest/test_timeouts.py checks the Linux stack: after the primary path fails, each
retransmission timeout read from the client's own captures (SCTP over UDP) comes one RTO
(doubling, capped at RTO.max) after the timer started, within usrsctp's coarser timing, the path
is reported unreachable just after the last of them, within the timer model's bound, and the
client's `path` records (usrsctp's SCTP_GET_PEER_ADDR_INFO, SRTT in ms) show the failed path's
RTO backing off and the path going INACTIVE. On virtual time."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from sctpbench.analysis import expiries
from sctpbench.collectors import records
from tests.support.guest_run import run_experiment

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"
PRIMARY = "198.18.0.2"

EXPERIMENT = """\
name: usrsctp-failover
topology: dual-homed
sctp: {rto_initial: 200ms, rto_min: 200ms, rto_max: 800ms, path_max_retrans: 2, hb_interval: 1s, sack_delay: 10ms,
       nodelay: true}
workload: {client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 5s, stack: usrsctp}
events:
  - {at: 2s, fail: primary}
measure: {capture: true}
"""


@pytest.fixture
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all", "usrsctp"], check=True, capture_output=True, text=True)


def test_usrsctp_failover_follows_the_rto_and_detection_is_the_last_timeout(built: None, tmp_path: Path) -> None:
    run_dir = run_experiment(tmp_path, EXPERIMENT, "usrsctp-failover", os.environ | {"SCTPBENCH_AGENT": str(AGENT)})
    found = expiries.analyse(run_dir)
    assert found.path == "primary"
    assert [e.rto_ms for e in found.expiries] == [200, 400, 800], [e.gap_ms for e in found.expiries]
    # usrsctp's timers run on its own thread, which wakes every 10 ms, and it starts the T3
    # timer at other moments than Linux (the model's start is Linux's): measured 215.8, 400.0 and
    # 798.1 ms for 200, 400 and 800 (docs/stacks.md). A doubling that is not there, or RTO.max
    # not honoured, is still far outside.
    for e in found.expiries:
        assert e.rto_ms - 5.0 <= e.gap_ms <= e.rto_ms + 25.0, (e.index, e.gap_ms, e.rto_ms)
    lag = found.detection_after_last_expiry_ms
    assert lag is not None and 0 <= lag <= 30.0, lag  # ADDR_UNREACHABLE follows the last timeout
    summary = json.loads((run_dir / "summary.json").read_text())
    detection = summary["metrics"]["detection_time_ms"]
    model = summary["detection_model"]
    assert model["model_ms"] == 1400 and model["model_ms"] <= detection <= model["bound_ms"], (model, detection)
    client = records.read(run_dir / "records" / "main.client.rec")
    samples = [s for s in client.path if s.addr == PRIMARY]
    assert samples and samples[0].state == "ACTIVE" and samples[-1].state == "INACTIVE"
    assert max(s.rto_ms for s in samples) == 800
