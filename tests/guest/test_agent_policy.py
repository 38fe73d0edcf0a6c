"""A workload's `policy:` in a real run (guest): two paths of 10 ms each way; at 3 s the primary's
delay goes to 60 ms each way (a `degrade` event). The delay-centric policy must move the primary
to the other path within a few samples and record the decision (the agent's `policy` record, and
a POLICY row in path_events.parquet); static must not switch.

RTO.Initial and RTO.Min are 300 ms: a policy needs the alternate's SRTT, which an idle path gets
from its first heartbeat, sent HB.interval + RTO ± RTO/2 after the association is up. At Linux's
3 s RTO.Initial that first heartbeat came anywhere from 2 to 5 s in (the jitter is the kernel's
own random draw), after the degrade in some runs, and the switch waited for it.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sctpbench.collectors import captures, records
from tests.support.guest_run import run_experiment

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"
DEGRADE_S = 3
CLIENT_SECONDARY = "198.18.1.1"  # dual-homed.yaml

EXPERIMENT = f"""\
name: policy
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{nodelay: true, sack_delay: 10ms, hb_interval: 500ms, rto_initial: 300ms, rto_min: 300ms}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 5s, policy: 'POLICY'}}
events:
  - {{at: {DEGRADE_S}s, degrade: primary, set: {{delay: 60ms}}}}
"""

@pytest.fixture
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)


def _run_dir(tmp_path: Path, policy: str, extra: str = "") -> Path:
    return run_experiment(tmp_path, EXPERIMENT.replace("POLICY", policy) + extra, "policy",
                          os.environ | {"SCTPBENCH_AGENT": str(AGENT)})


def _run(tmp_path: Path, policy: str) -> tuple[records.Records, list[dict]]:
    run_dir = _run_dir(tmp_path, policy)
    return records.read(run_dir / "records/main.client.rec"), pq.read_table(run_dir / "path_events.parquet").to_pylist()


def _start_ns(client: records.Records) -> int:
    return next(int(args) for _, name, args in client.events if name == "start")


def test_delay_centric_moves_the_primary_off_a_degraded_path_and_static_does_not(built: None, tmp_path: Path) -> None:
    client, events = _run(tmp_path / "dc", "delay-centric:hysteresis=10")
    assert client.meta["policy"] == "delay-centric:hysteresis=10"
    decisions = [["policy", str(d.t_ns), d.decision, d.before, d.after, d.candidate, d.reason, *d.paths] for d in client.policy]
    assert decisions, "no policy record"
    first = decisions[0]
    t, decision, before, after, candidate, reason = int(first[1]), *first[2:7]
    print("policy record:", "\t".join(first), "at", (t - _start_ns(client)) / 1e9, "s")
    assert decision == "switch" and before != after == candidate, first
    assert reason.startswith("srtt "), first
    # inputs: one field per path, ADDR,STATE,SRTT_MS,RTO_MS,CWND,SHORT,LONG
    inputs = [p.split(",") for p in first[7:]]
    assert len(inputs) == 2 and {p[0] for p in inputs} == {before, after}
    srtt = {p[0]: float(p[2]) for p in inputs}
    assert srtt[before] - srtt[after] > 10
    # when: after the degrade at 3 s, within a few samples of the new delay showing up in SRTT
    t0 = _start_ns(client)
    assert DEGRADE_S * 10**9 <= t - t0 < (DEGRADE_S + 1) * 10**9, (t - t0) / 1e9
    # within a few samples (20 ms apart) of the first round whose SRTTs (jiffies; HZ 1000 in the
    # project's kernel) are more than the hysteresis apart
    rounds: dict[int, dict[str, int]] = {}
    for s in client.path:
        rounds.setdefault(s.t_ns // 10_000_000, {})[s.addr] = s.srtt_raw
    gap_seen = min(k * 10_000_000 for k, r in rounds.items()
                   if r.get(before, 0) and r.get(after, 0) and r[before] - r[after] > 10)
    assert 0 <= t - gap_seen <= 3 * 20_000_000 + 10_000_000, (t - gap_seen) / 1e6
    # the samples after the switch name the new primary
    later = [s for s in client.path if s.t_ns > t + 100_000_000]
    assert later and all(s.primary == (s.addr == after) for s in later)
    row = next(e for e in events if e["kind"] == "POLICY")
    assert row["t_ns"] == t and row["path"] == "secondary" and row["addr"] == after
    assert row["detail"].startswith(f"switch {before} -> {after}: srtt"), row

    static, static_events = _run(tmp_path / "static", "static")
    assert "policy" not in static.meta  # static: the agent's command line and records as before
    assert not static.policy and not [e for e in static_events if e["kind"] == "POLICY"]
    primaries = {s.addr for s in static.path if s.primary}
    assert len(primaries) == 1


def test_a_guard_time_heartbeats_the_candidate_then_confirms_the_switch(built: None, tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path, "delay-centric:guard=200-400,seed=3", "measure: {capture: true}\n")
    client = records.read(run_dir / "records/main.client.rec")
    decisions = [["policy", str(d.t_ns), d.decision, d.before, d.after, d.candidate, d.reason, *d.paths] for d in client.policy]
    assert [f[2] for f in decisions[:2]] == ["guard", "switch"], decisions
    guard, switch = decisions[0], decisions[1]
    assert guard[3] == guard[4] != guard[5] == switch[5] == switch[4], decisions
    assert " hb 20ms" in guard[6] and "failed" not in guard[6] + switch[6], decisions
    waited = int(switch[1]) - int(guard[1])
    assert 200_000_000 <= waited <= 400_000_000 + 40_000_000, waited / 1e6
    # The candidate really is heartbeated every 20 ms while the guard runs (demanded by the
    # agent: Linux's own timer would wait at least 200 ms plus up to an RTO), as the client's
    # capture of the secondary path shows: heartbeats leave the shaping 10 ms after the demand.
    backend = json.loads((run_dir / "backend.json").read_text())
    on_wire = [p.time_ns - backend["t0_realtime_ns"] for p in captures.read(run_dir / "captures/secondary-client.pcap")
               if p.src == CLIENT_SECONDARY and "HEARTBEAT" in p.chunk_types]
    lo, hi = int(guard[1]) - backend["t0_ns"], int(switch[1]) - backend["t0_ns"]
    during = [t for t in on_wire if lo < t <= hi + 15_000_000]
    assert abs(len(during) - waited / 20_000_000) <= 2, (len(during), waited / 1e6)
    gaps = [b - a for a, b in itertools.pairwise(during)]
    assert gaps and max(gaps) <= 21_000_000, [g / 1e6 for g in gaps]
    assert f" after {len(during)} hb" in switch[6] or f" after {len(during) - 1} hb" in switch[6] \
        or f" after {len(during) + 1} hb" in switch[6], (switch[6], len(during))
