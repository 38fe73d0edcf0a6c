"""End to end in the guest: paths may have names that ip would read as its own keywords (`a`
abbreviates `address`, `up` is a state): the interfaces named after them are made, raised,
shaped and carry the association."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from tests.support.guest_run import run_experiment

EXPERIMENT = """\
name: keyword-names
topology:
  hosts: [a, b]
  paths:
    a: {between: [a, b], delay: 10ms}
    up: {between: [a, b], delay: 20ms}
sctp: {nodelay: true, sack_delay: 10ms}
workload: {client: a, server: b, size: 200B, rate: 50/s, duration: 1s}
events:
  - {at: 500ms, primary: up}
"""


def test_paths_named_like_ip_keywords_carry_the_association(tmp_path: Path) -> None:
    run_dir = run_experiment(tmp_path, EXPERIMENT, "names")
    messages = pq.read_table(run_dir / "messages.parquet").to_pylist()
    assert len(messages) == 50 and all(m["t_rx_ns"] is not None for m in messages)
    # both paths shaped as configured: 10 ms on `a` before the switch, 20 ms on `up` after it
    assert {m["path"] for m in messages} == {"a", "up"}
    assert all(abs(m["mtt_ns"] - {"a": 10, "up": 20}[m["path"]] * 1_000_000) < 1_000_000 for m in messages)
