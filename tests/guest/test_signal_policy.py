"""The `signal` policy in a real run (guest, virtual time): two paths of 10 ms each way; the
primary's emulated signal fades below `switch` at a known time while the other path is
strong. The primary must move in the first sampling round at or after that time (one
interval, 20 ms), messages after the switch must arrive over the new path, every message
must be delivered; with `prepare`, messages between prepare and switch must already arrive
over the target path while the primary stays.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sctpbench.collectors import records
from tests.support.guest_run import run_experiment

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"
SAMPLE_NS = 20_000_000
MS = 1_000_000
S = 1_000_000_000

EXPERIMENT = f"""\
name: signal
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{nodelay: true, sack_delay: 10ms, hb_interval: 500ms}}
workload:
  client: client
  server: server
  size: 200B
  rate: 50/s
  duration: 5s
  policy: 'POLICY'
  signal: {{points: POINTS}}
"""


@pytest.fixture
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)


def _run(tmp_path: Path, policy: str, points: str) -> tuple[records.Records, list[dict[str, Any]], list[dict[str, Any]]]:
    run_dir = run_experiment(tmp_path, EXPERIMENT.replace("POLICY", policy).replace("POINTS", points), "signal",
                             os.environ | {"SCTPBENCH_AGENT": str(AGENT)})
    return (records.read(run_dir / "records/main.client.rec"), pq.read_table(run_dir / "messages.parquet").to_pylist(),
            pq.read_table(run_dir / "path_events.parquet").to_pylist())


def _start_ns(client: records.Records) -> int:
    return next(int(args) for _, name, args in client.events if name == "start")


def _in_first_round_after(client: records.Records, t: int, due: int) -> None:
    """t is the first sampling round at or after `due`: not before it, within one interval,
    and no round was sampled in between."""
    assert due <= t < due + SAMPLE_NS, (t - due) / MS
    between = [s.t_ns for s in client.path if due <= s.t_ns < t - MS]
    assert not between, [(x - due) / MS for x in between]


def _all_delivered(messages: list[dict[str, Any]]) -> None:
    assert len(messages) == 250, len(messages)  # 50/s for 5 s
    assert all(m["t_rx_ns"] is not None for m in messages), [m["seq"] for m in messages if m["t_rx_ns"] is None]


def test_the_primary_moves_in_the_round_its_signal_fades_and_traffic_follows(built: None, tmp_path: Path) -> None:
    client, messages, events = _run(tmp_path, "signal:switch=-80,hysteresis=5",
                                    "[[0s, primary, -60], [0s, secondary, -55], [2s, primary, -85]]")
    t0 = _start_ns(client)
    assert client.meta["policy"] == "signal:switch=-80,hysteresis=5" and client.meta["signal_points"] == "3"
    assert [d.decision for d in client.policy] == ["switch"], client.policy
    d = client.policy[0]
    print("policy record:", d, "at", (d.t_ns - t0) / MS, "ms")
    _in_first_round_after(client, d.t_ns, t0 + 2 * S)
    assert d.before == "198.18.0.2" and d.after == d.candidate == "198.18.1.2", d
    assert d.reason == "signal -85.0<-80 alt -55.0>-85.0+5", d
    # inputs: ADDR,STATE,SRTT_MS,RTO_MS,CWND,SHORT,LONG,SIGNAL_DBM per path
    signal = {p.split(",")[0]: p.split(",")[7] for p in d.paths}
    assert signal == {"198.18.0.2": "-85.0", "198.18.1.2": "-55.0"}, d.paths
    _all_delivered(messages)
    before = {m["path"] for m in messages if m["t_gen_ns"] < d.t_ns}
    after = {m["path"] for m in messages if m["t_gen_ns"] > d.t_ns}
    assert before == {"primary"} and after == {"secondary"}, (before, after)
    later = [s for s in client.path if s.t_ns > d.t_ns + 100 * MS]
    assert later and all(s.primary == (s.addr == d.after) for s in later)
    row = next(e for e in events if e["kind"] == "POLICY")
    assert row["t_ns"] == d.t_ns and row["path"] == "secondary", row


def test_prepare_sends_on_the_target_before_the_switch(built: None, tmp_path: Path) -> None:
    client, messages, _ = _run(tmp_path, "signal:switch=-80,prepare=-70",
                               "[[0s, primary, -60], [0s, secondary, -60], [1500ms, primary, -75], [3s, primary, -90]]")
    t0 = _start_ns(client)
    assert [d.decision for d in client.policy] == ["prepare", "switch"], client.policy
    prepare, switch = client.policy
    print("prepare at", (prepare.t_ns - t0) / MS, "ms; switch at", (switch.t_ns - t0) / MS, "ms")
    _in_first_round_after(client, prepare.t_ns, t0 + 1500 * MS)
    _in_first_round_after(client, switch.t_ns, t0 + 3 * S)
    # prepare leaves the primary where it is and names the target
    assert prepare.before == prepare.after == "198.18.0.2" and prepare.candidate == "198.18.1.2", prepare
    assert prepare.reason == "signal -75.0<-70 alt -60.0>-75.0+5", prepare
    assert switch.before == "198.18.0.2" and switch.after == "198.18.1.2", switch
    prepared = [s for s in client.path if prepare.t_ns + 100 * MS < s.t_ns < switch.t_ns]
    assert prepared and all(s.primary == (s.addr == "198.18.0.2") for s in prepared)
    _all_delivered(messages)
    assert {m["path"] for m in messages if m["t_gen_ns"] < prepare.t_ns} == {"primary"}
    between = [m for m in messages if prepare.t_ns < m["t_gen_ns"] < switch.t_ns]
    assert len(between) >= 70 and {m["path"] for m in between} == {"secondary"}, {m["path"] for m in between}
    assert {m["path"] for m in messages if m["t_gen_ns"] > switch.t_ns} == {"secondary"}
