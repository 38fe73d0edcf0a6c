"""The agent's --policy in a real run (guest): two paths of 10 ms each way; at 3 s the primary's
delay goes to 60 ms each way (a `degrade` event). The delay-centric policy must move the primary
to the other path within a few samples and record the decision; static must not switch.

The experiment file cannot ask for a policy yet, so (as in test_agent_schedule.py) SCTPBENCH_AGENT
points at a wrapper that appends `--policy ...` to the client's command line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sctpbench.collectors import records

ROOT = Path(__file__).resolve().parent.parent
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"
DEGRADE_S = 3

EXPERIMENT = f"""\
name: policy
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{nodelay: true, sack_delay: 10ms, hb_interval: 500ms}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 5s}}
events:
  - {{at: {DEGRADE_S}s, degrade: primary, set: {{delay: 60ms}}}}
"""

WRAPPER = """\
#!/bin/sh
agent="$(dirname "$0")/sctpbench-agent"
case "$1" in client) exec "$agent" "$@" --policy POLICY;; *) exec "$agent" "$@";; esac
"""


@pytest.fixture
def wrapper_dir() -> Iterator[Path]:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)
    folder = AGENT_DIR / "build" / f"policy-test-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(AGENT, folder / "sctpbench-agent")
    yield folder
    shutil.rmtree(folder)


def _run(folder: Path, tmp_path: Path, policy: str) -> records.Records:
    (folder / "agent").write_text(WRAPPER.replace("POLICY", policy))
    (folder / "agent").chmod(0o755)
    tmp_path.mkdir(parents=True, exist_ok=True)
    experiment = tmp_path / "policy.yaml"
    experiment.write_text(EXPERIMENT)
    env = os.environ | {"SCTPBENCH_AGENT": str(folder / "agent")}
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--json", "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr + r.stdout
    run_dir = Path(json.loads(r.stdout)["runs"][0]["directory"])
    return records.read(run_dir / "records/main.client.rec")


def _start_ns(client: records.Records) -> int:
    return next(int(args) for _, name, args in client.events if name == "start")


@pytest.mark.guest
def test_delay_centric_moves_the_primary_off_a_degraded_path_and_static_does_not(wrapper_dir: Path, tmp_path: Path) -> None:
    client = _run(wrapper_dir, tmp_path / "dc", "delay-centric:hysteresis=10")
    assert client.meta["policy"] == "delay-centric:hysteresis=10"
    decisions = [f for f in client.other if f[0] == "policy"]
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

    static = _run(wrapper_dir, tmp_path / "static", "static")
    assert static.meta["policy"] == "static"
    assert not [f for f in static.other if f[0] == "policy"]
    primaries = {s.addr for s in static.path if s.primary}
    assert len(primaries) == 1


@pytest.mark.guest
def test_a_guard_time_heartbeats_the_candidate_then_confirms_the_switch(wrapper_dir: Path, tmp_path: Path) -> None:
    client = _run(wrapper_dir, tmp_path, "delay-centric:guard=200-400,seed=3")
    decisions = [f for f in client.other if f[0] == "policy"]
    assert [f[2] for f in decisions[:2]] == ["guard", "switch"], decisions
    guard, switch = decisions[0], decisions[1]
    assert guard[3] == guard[4] != guard[5] == switch[5] == switch[4], decisions
    assert " hb 20ms" in guard[6] and "failed" not in guard[6] + switch[6], decisions
    waited = int(switch[1]) - int(guard[1])
    assert 200_000_000 <= waited <= 400_000_000 + 40_000_000, waited / 1e6
