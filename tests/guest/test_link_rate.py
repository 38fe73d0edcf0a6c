"""End to end in the guest: `rate_model: link` serializes every packet at the path's rate.

One path of 10 ms and 1 Mbit/s, ten 1000-byte messages a second (far below the rate, so no
queue builds). On a link each message's packet (1000 B + SCTP DATA 16 + SCTP 12 + IPv4 20 +
Ethernet 14 = 1062 B) takes 1062 × 8 / 1 Mbit/s = 8.496 ms to serialize before its 10 ms of
delay; tbf's bucket lets an isolated packet through at once. Virtual time: exact.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from tests.support.guest_run import run_experiment

MS = 1_000_000
SERIALIZATION_NS = 1062 * 8 * 1000  # 1062 B at 1 Mbit/s

EXPERIMENT = """\
name: link-rate
topology:
  hosts: [a, b]
  paths:
    p: {between: [a, b], delay: 10ms, rate: 1mbit, queue: 50, rate_model: MODEL}
sctp: {nodelay: true, sack_delay: 10ms}
workload: {client: a, server: b, size: 1000B, rate: 10/s, duration: 2s}
"""


def _mtts(tmp_path: Path, model: str) -> list[int]:
    run_dir = run_experiment(tmp_path, EXPERIMENT.replace("MODEL", model), "link")
    return [m["mtt_ns"] for m in pq.read_table(run_dir / "messages.parquet").to_pylist()]


def test_a_link_adds_each_packets_serialization_time_and_a_token_bucket_does_not(tmp_path: Path) -> None:
    link = _mtts(tmp_path / "link", "link")
    assert len(link) == 20 and all(m is not None for m in link)
    # one-way delay plus serialization, to a few microseconds (the guest's clock reads)
    assert all(abs(m - (10 * MS + SERIALIZATION_NS)) < 50_000 for m in link), [m / MS for m in link]
    bucket = _mtts(tmp_path / "bucket", "token-bucket")
    assert all(abs(m - 10 * MS) < 50_000 for m in bucket), [m / MS for m in bucket]
