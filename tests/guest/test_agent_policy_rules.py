"""The predictive (MACD) and rtt-ratio policies in a real run, fed a scripted delay trace
(guest, virtual time): two paths of 10 ms each way; from 2 s the primary's delay climbs in
steps (a `trace` event). Each policy must switch in the sampling round where its rule first
holds on the SRTTs the agent sampled (its `path` records, 20 ms apart), not before, at most
one round after, and record why. The rule is recomputed here from those samples:
RECORDS.md's definitions, independent of the agent's C.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from sctpbench.collectors import records
from tests.support.guest_run import run_experiment

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"
ROUND_NS = 20_000_000  # the agent's default sample interval

EXPERIMENT = f"""\
name: policy-rules
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{nodelay: true, sack_delay: 10ms, hb_interval: 500ms, rto_initial: 300ms, rto_min: 300ms}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 6s, policy: 'POLICY'}}
events:
  - {{at: 0s, trace: primary, field: delay, steps: [[2s, 15ms], [2.5s, 25ms], [3s, 40ms], [3.5s, 60ms]]}}
"""

Round = dict[str, float]  # address -> SRTT (ms) in one sampling round


@pytest.fixture(scope="module")
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)


def _run(tmp_path: Path, policy: str) -> records.Records:
    run_dir = run_experiment(tmp_path, EXPERIMENT.replace("POLICY", policy), "policy", os.environ | {"SCTPBENCH_AGENT": str(AGENT)})
    return records.read(run_dir / "records/main.client.rec")


def _rounds(client: records.Records) -> list[tuple[int, Round, str]]:
    """The sampling rounds in order: time, SRTT per address (HZ 1000: jiffies are ms), primary."""
    out: list[tuple[int, Round, str]] = []
    for s in client.path:
        if not out or s.addr in out[-1][1]:
            out.append((s.t_ns, {}, ""))
        t, srtts, primary = out[-1]
        srtts[s.addr] = float(s.srtt_raw)
        out[-1] = (t, srtts, s.addr if s.primary else primary)
    return out


def _first_round_where(client: records.Records, holds: Callable[[Round, str], bool]) -> int:
    """The first round, after the policy's first decision could not yet be taken, where the rule holds."""
    return next(t for t, srtts, primary in _rounds(client) if primary and holds(srtts, primary))


def _check_switch(client: records.Records, rule_t: int, reason_prefix: str) -> records.PolicyDecision:
    switches = [d for d in client.policy if d.decision == "switch"]
    assert switches, client.policy
    first = switches[0]
    assert first.reason.startswith(reason_prefix), first
    assert 0 <= first.t_ns - rule_t <= ROUND_NS, ((first.t_ns - rule_t) / 1e6, first)
    return first


def test_rtt_ratio_switches_in_the_round_its_ratio_is_exceeded(built: None, tmp_path: Path) -> None:
    alpha = 2.0
    client = _run(tmp_path, f"rtt-ratio:alpha_c={alpha:g},alpha_a={alpha:g}")

    def holds(srtts: Round, primary: str) -> bool:
        alternates = [v for a, v in srtts.items() if a != primary and v > 0]
        return srtts[primary] > 0 and any(srtts[primary] > alpha * v for v in alternates)

    first = _check_switch(client, _first_round_where(client, holds), "rtt ")
    # its inputs say the same: the primary's SRTT above α times the new one's
    srtt = {p.split(",")[0]: float(p.split(",")[2]) for p in first.paths}
    assert srtt[first.before] > alpha * srtt[first.after], first


def test_predictive_switches_in_the_round_its_macd_rule_holds(built: None, tmp_path: Path) -> None:
    short, long_, threshold = 0.667, 0.154, 30.0
    client = _run(tmp_path, f"predictive:threshold={threshold:g}")
    ema: dict[str, tuple[float, float]] = {}

    def holds(srtts: Round, primary: str) -> bool:
        for a, x in srtts.items():  # every round updates each measured path's averages
            if x > 0:
                s, lg = ema.get(a, (x, x))
                ema[a] = (s + short * (x - s), lg + long_ * (x - lg)) if a in ema else (x, x)
        if primary not in ema or ema[primary][0] <= threshold:
            return False
        sp, lp = ema[primary]
        return any(sp > sa and sp - lp > sa - la for a, (sa, la) in ema.items() if a != primary and srtts.get(a, 0) > 0)

    first = _check_switch(client, _first_round_where(client, holds), "macd ")
    # the record carries the averages it decided on: SHORT and LONG per path
    inputs = {p.split(",")[0]: p.split(",") for p in first.paths}
    sp, lp = float(inputs[first.before][5]), float(inputs[first.before][6])
    sa, la = float(inputs[first.after][5]), float(inputs[first.after][6])
    assert sp > threshold and sp > sa and sp - lp > sa - la, first
