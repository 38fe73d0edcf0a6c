"""End to end in the guest: issue 26's stack variants of the project kernel, read from the
captures and the agent's path samples (virtual time).

A saturating client of full-sized messages (one 1452 B DATA chunk per packet) on path one
(10 ms each way) for 2 s, then `primary: two` (50 ms each way, idle until then), Max.Burst
off so the window alone limits a flight, as in test_stack_variants.py:
- `primary_cwnd_alpha_permille` (seed 004's congestion-control parameter update): two's cwnd
  right after the switch is α times one's right before it (the client's path samples, every
  20 ms, so one's may have grown a little since its last sample);
- `buffer_retransmit` (seed 004's buffer retransmission): every DATA chunk outstanding on one
  at the switch (sent on one, above the cumulative TSN acknowledged before the switch) is
  sent again on two; without it (the window carried over alone, so that two could send
  them) almost none is;
- unset, they write nothing and the kernel reads back 0 (stock behaviour, as in
  test_stack_variants.py's stock cases).
The relaxed RTO back-off is checked against its timer model in test_timeouts.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sctpbench.collectors import captures, records
from tests.support.guest_run import run_experiment

S = 1_000_000_000
MS = 1_000_000
SERVER = {"one": "198.18.0.2", "two": "198.18.1.2"}
CLIENT = {"one": "198.18.0.1", "two": "198.18.1.1"}

SWITCH = """\
name: variants-switch
topology:
  hosts: [client, server]
  paths:
    one: {{between: [client, server], delay: 10ms, rate: 10mbit, queue: 1000}}
    two: {{between: [client, server], delay: 50ms, rate: 10mbit, queue: 1000}}
sctp: {{nodelay: true, sack_delay: 10ms, max_burst: 0{sctp}}}
workload: {{client: client, server: server, size: 1452B, arrival: saturate, duration: 3s}}
measure: {{capture: true}}
events:
  - {{at: 2s, primary: two}}
"""
CASES = {
    "stock": "",
    "half": ", primary_cwnd_alpha_permille: 500",
    "double": ", primary_cwnd_alpha_permille: 2000",
    "carry": ", primary_cwnd_carry: true",
    "carry-buffer": ", primary_cwnd_carry: true, buffer_retransmit: true",
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("variants")
    return {name: run_experiment(tmp, SWITCH.format(sctp=sctp), f"switch-{name}") for name, sctp in CASES.items()}


def _backend(run_dir: Path) -> dict[str, int]:
    backend: dict[str, int] = json.loads((run_dir / "backend.json").read_text())
    return backend


def _switch_ns(run_dir: Path) -> int:
    """The client's primary change (its `event primary` record), CLOCK_MONOTONIC."""
    client = records.read(run_dir / "records" / "main.client.rec")
    return next(t for t, name, _ in client.events if name == "primary")


def _around_switch(run_dir: Path) -> tuple[int, int]:
    """one's cwnd in its last sample before the switch, two's in its first after it."""
    client, switch = records.read(run_dir / "records" / "main.client.rec"), _switch_ns(run_dir)
    before = [s for s in client.path if s.addr == SERVER["one"] and s.t_ns < switch]
    after = [s for s in client.path if s.addr == SERVER["two"] and s.t_ns > switch]
    return before[-1].cwnd, after[0].cwnd


def _sysctls(run_dir: Path) -> dict[str, str]:
    sysctl: dict[str, str] = json.loads((run_dir / "kernel.json").read_text())["sysctl"]["client"]
    return sysctl


def test_unset_variants_read_back_as_stock(runs: dict[str, Path]) -> None:
    sysctl = _sysctls(runs["stock"])
    assert (sysctl["primary_cwnd_alpha"], sysctl["buffer_retransmit"], sysctl["rto_backoff_pct"]) == ("0", "0", "0")


@pytest.mark.parametrize("case, alpha", [("half", 0.5), ("double", 2.0)])
def test_the_new_primarys_cwnd_is_alpha_times_the_old_ones(runs: dict[str, Path], case: str, alpha: float) -> None:
    old, new = _around_switch(runs[case])
    assert old > 10 * 1500  # one grew well past its initial window in 2 s
    assert abs(new - alpha * old) <= 0.1 * alpha * old, (old, new)
    assert _sysctls(runs[case])["primary_cwnd_alpha"] == str(round(alpha * 1000))
    _, stock = _around_switch(runs["stock"])
    assert stock == 4380  # and without it, two starts from its initial window


TWO_DELAY_NS = 50_000_000  # two's egress netem: its capture sees an outgoing packet this much after it was sent


def _outstanding_at_switch(run_dir: Path) -> set[int]:
    """TSNs the client sent on one that no SACK acknowledged before the first DATA left on two
    after the switch. The agent records the switch after the kernel made it, and a SACK that
    arrives in between acknowledges chunks already marked for retransmission: they leave the
    retransmit queue unsent, rightly, so they count as acknowledged here."""
    b = _backend(run_dir)
    switch_rt = _switch_ns(run_dir) - b["t0_ns"] + b["t0_realtime_ns"]
    one = captures.read(run_dir / "captures" / "one-client.pcap")
    two = captures.read(run_dir / "captures" / "two-client.pcap")
    first_on_two = min(p.time_ns for p in two if p.src == CLIENT["two"] and p.tsns and p.time_ns - TWO_DELAY_NS >= switch_rt - S // 10)
    # The SACK whose arrival made the client send (the retransmit queue goes out at the
    # next transmission) arrives at the moment the first DATA leaves: within 1 ms.
    acked = max(c.cum_tsn for p in one + two if p.time_ns < first_on_two - TWO_DELAY_NS + MS and p.src in SERVER.values()
                for c in p.chunks if c.cum_tsn is not None)
    return {t for p in one if p.src == CLIENT["one"] for t in p.tsns if (t - acked) % 2**32 < 2**31 and t != acked}


def _sent_on_two(run_dir: Path) -> set[int]:
    return {t for p in captures.read(run_dir / "captures" / "two-client.pcap") if p.src == CLIENT["two"] for t in p.tsns}


def test_buffer_retransmission_resends_every_outstanding_chunk_on_the_new_primary(runs: dict[str, Path]) -> None:
    outstanding = _outstanding_at_switch(runs["carry-buffer"])
    assert len(outstanding) > 20, len(outstanding)  # a full window was in flight on one
    assert not outstanding - _sent_on_two(runs["carry-buffer"]), sorted(outstanding - _sent_on_two(runs["carry-buffer"]))
    assert _sysctls(runs["carry-buffer"])["buffer_retransmit"] == "1"
    # Without it the same window carried over sends new data on two; what was in flight on
    # one is acknowledged over one.
    without = _outstanding_at_switch(runs["carry"])
    assert len(without & _sent_on_two(runs["carry"])) <= len(without) // 4, (len(without), len(without & _sent_on_two(runs["carry"])))
