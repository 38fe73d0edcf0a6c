"""End to end in the guest: a terminal moving back and forth between two networks (pingpong),
with and without handing over at each move (`switch_primary`, `peer`).

Two paths of 10 ms each way; at each move the network left behind turns to 100 ms each way.
Handing over at every move keeps every message on the good network (MTT the good path's
10 ms, the server's primary following by ASCONF SET-PRIMARY); without it the association
stays on its first path and half the run crosses it at 100 ms.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from tests.support.guest_run import run_experiment

MS = 1_000_000

EXPERIMENT = """\
name: pingpong-handover
topology:
  hosts: [mobile, server]
  paths:
    neta: {between: [mobile, server], delay: 10ms}
    netb: {between: [mobile, server], delay: 10ms}
sctp: {nodelay: true, sack_delay: 10ms, hb_interval: 500ms}
workload: {client: mobile, server: server, size: 200B, rate: 50/s, duration: 6s}
events:
  - {at: 1s, pingpong: [netb, neta], good: {delay: 10ms}, bad: {delay: 100ms}, dwell: [1s, 2s], SWITCH}
seed: 2
"""


def _run(tmp_path: Path, switch: str) -> dict[str, Any]:
    run_dir = run_experiment(tmp_path, EXPERIMENT.replace("SWITCH", switch), "pingpong")
    return {"messages": pq.read_table(run_dir / "messages.parquet").to_pylist(),
            "events": pq.read_table(run_dir / "path_events.parquet").to_pylist(),
            "timeline": [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]}


def test_handing_over_at_each_move_keeps_every_message_on_the_good_network(tmp_path: Path) -> None:
    run = _run(tmp_path / "switch", "switch_primary: true, peer: true")
    moves = sorted({e["at_ns"] for e in run["timeline"] if e["kind"] == "primary"})
    assert len(moves) >= 3, run["timeline"]
    messages = run["messages"]
    assert all(m["t_rx_ns"] is not None for m in messages)
    # every message after the first move crosses the good network: 10 ms, not 100
    after = [m for m in messages if m["t_rel_ns"] > moves[0] + 100 * MS]
    assert after and max(m["mtt_ns"] for m in after) < 15 * MS, max(m["mtt_ns"] for m in after) / MS
    assert {m["path"] for m in after} == {"neta", "netb"}
    # the client recorded a primary change per move, and the server was asked to follow each
    kinds = [e["kind"] for e in run["events"]]
    assert kinds.count("PRIMARY_SET") >= len(moves) and kinds.count("ASCONF_SET_PRIMARY") == len(moves), kinds


def test_without_handing_over_the_association_stays_and_suffers_the_bad_network(tmp_path: Path) -> None:
    run = _run(tmp_path / "stay", "switch_primary: false")
    assert not [e for e in run["events"] if e["kind"] in ("PRIMARY_SET", "ASCONF_SET_PRIMARY") and e["t_ns"] > 0]
    slow = [m for m in run["messages"] if m["mtt_ns"] is not None and m["mtt_ns"] > 90 * MS]
    assert len(slow) > 50, len(slow)
