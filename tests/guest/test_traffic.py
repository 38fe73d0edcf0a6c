"""End to end in the guest: competing TCP and background UDP beside an SCTP association.

examples/competing-tcp.yaml: two cubic TCP flows (iperf3) and a 20 msg/s signaling
association share a 10 Mbit/s bottleneck (20 ms each way, a queue of one bandwidth-delay
product) for 10 s; 40 % UDP background (udpgen, Poisson) runs on the other path. On
virtual time the run is the same on an idle and a busy machine, so the tolerances are
about TCP, not about the host: fairness within 20 % of the fair share, the aggregate a
sensible share of the capacity, UDP's offered rate within 5 % and nothing lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "competing-tcp.yaml"
CAPACITY_BPS = 10e6
# What TCP can carry at most: 1448 payload bytes (timestamps on) of every 1514-byte frame
# the rate limiter counts (tbf on a veth counts the Ethernet header too).
GOODPUT_CEILING = 1448 / 1514


def _run(tmp: Path, overrides: list[str]) -> dict[str, Any]:
    sets = [a for o in overrides for a in ("--set", o)]
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(EXAMPLE), "--json", "--out", str(tmp), *sets],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)["runs"][0]
    run["dir"] = Path(run["directory"])
    run["summary"] = json.loads((run["dir"] / "summary.json").read_text())
    return run


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run(tmp_path_factory.mktemp("results"), [])


def test_the_run_is_ok_and_the_association_delivers_everything(run: dict[str, Any]) -> None:
    assert run["status"] == "ok", run["error"]
    m = run["summary"]["metrics"]
    assert m["messages_sent"] == m["messages_delivered"] == 200
    # the flows' queue adds to the 20 ms path: up to one BDP (40 ms) of waiting
    assert 20 < m["mtt_p50_ms"] < 20 + 40 + 5


def test_two_cubic_flows_share_the_bottleneck_fairly(run: dict[str, Any]) -> None:
    flows = run["summary"]["traffic"]
    tcp = {name: f for name, f in flows.items() if f["kind"] == "tcp"}
    assert set(tcp) == {"bulk1", "bulk2"}
    assert all(f["congestion"] == "cubic" and f["error"] is None and f["intervals"] == 10 for f in tcp.values())
    means = {name: f["mean_throughput_bps"] for name, f in tcp.items()}
    aggregate = sum(means.values())
    # what the receivers got: never above the path's goodput ceiling (the senders' intervals were)
    assert 0.8 * CAPACITY_BPS * GOODPUT_CEILING < aggregate <= CAPACITY_BPS * GOODPUT_CEILING, means
    for name, mean in means.items():
        assert abs(mean - aggregate / 2) <= 0.2 * aggregate / 2, (name, means)


def test_tcp_samples_are_on_the_runs_clock(run: dict[str, Any]) -> None:
    rows = pq.read_table(run["dir"] / "tcp_throughput.parquet").to_pylist()
    for flow in ("bulk1", "bulk2"):
        times = [r["t_s"] for r in rows if r["flow"] == flow]
        # one per second from t0 (both go at t0), late by iperf3's connection setup only
        assert len(times) == 10 and all(0 <= t - (i + 1) < 0.5 for i, t in enumerate(times)), times
        assert all(r["snd_cwnd"] and r["rtt_ms"] >= 40 for r in rows if r["flow"] == flow)


def test_background_udp_offers_its_share_and_loses_nothing(run: dict[str, Any]) -> None:
    noise = run["summary"]["traffic"]["noise"]
    assert noise["configured_bps"] == pytest.approx(0.4 * CAPACITY_BPS)
    assert noise["offered_bps"] == pytest.approx(noise["configured_bps"], rel=0.05)
    assert noise["complete"] and noise["refused"] == 0
    assert noise["received"] == noise["sent"] > 0 and noise["loss"] == 0


def test_reno_is_what_a_reno_flow_gets(tmp_path: Path) -> None:
    short = ["workload.duration=2s", "traffic.0.congestion=reno", "traffic.0.duration=2s", "traffic.1.duration=2s",
             "traffic.2.duration=2s"]
    run = _run(tmp_path, short)
    assert run["status"] == "ok", run["error"]
    flows = run["summary"]["traffic"]
    assert (flows["bulk1"]["congestion"], flows["bulk2"]["congestion"]) == ("reno", "cubic")
    assert flows["bulk1"]["mean_throughput_bps"] > 0
