"""`scheduler:` on a workload (checked in the spec, passed to the client agent as --scheduler,
left out of the run id at its default), the agent's `sched` records, and the multipath metrics:
head-of-line blocking, reordering, path share and MTT per stream (analysis/multipath.py)."""

import struct
from pathlib import Path

import pytest

from sctpbench.analysis import multipath
from sctpbench.analysis.multipath import Arrival
from sctpbench.collectors import captures, records
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan
from sctpbench.plan.data import Association
from tests.support import packets as pk

TOPOLOGY = """topology:
  hosts: [a, b]
  paths:
    one: {between: [a, b], delay: 10ms}
    two: {between: [a, b], delay: 30ms}
"""
MS = 1_000_000


def _load(tmp_path: Path, workload: str) -> spec.Experiment:
    f = tmp_path / "x.yaml"
    f.write_text(TOPOLOGY + f"workload: {{client: a, server: b, duration: 1s{workload}}}\n")
    return spec.load(f, [])


def _client_argv(e: spec.Experiment) -> list[str]:
    p = plan.build(e, 1, "agent")
    return next(proc.argv for proc in p.processes if proc.role == "client")


def test_the_scheduler_reaches_the_client_only_when_not_primary(tmp_path: Path) -> None:
    argv = _client_argv(_load(tmp_path, ", scheduler: 'stream-aware:margin=2'"))
    assert argv[argv.index("--scheduler") + 1] == "stream-aware:margin=2"
    assert "--scheduler" not in _client_argv(_load(tmp_path, ""))
    assert "--scheduler" not in _client_argv(_load(tmp_path, ", scheduler: primary"))


def test_the_default_scheduler_keeps_the_run_id_and_another_changes_it(tmp_path: Path) -> None:
    ids = {plan.build(_load(tmp_path, extra), 1, "agent").run_id for extra in ("", ", scheduler: primary")}
    assert len(ids) == 1
    assert plan.build(_load(tmp_path, ", scheduler: round-robin"), 1, "agent").run_id not in ids


@pytest.mark.parametrize("text, expected", [
    ("fastest", "scheduler: unknown scheduler 'fastest' (allowed: primary, round-robin, static-stream, dynamic-path, stream-aware)"),
    ("round-robin:hz=100", "round-robin takes no parameters"),
    ("dynamic-path:margin=2", "unknown parameter 'margin' for dynamic-path (allowed: hz)"),
    ("stream-aware:margin", "bad parameter 'margin' (KEY=VALUE)"),
    ("stream-aware:margin=-1", "bad margin '-1' (allowed: ms from 0 to 60000)"),
    ("dynamic-path:hz=2.5", "bad hz '2.5'"),
])
def test_a_bad_scheduler_gets_one_message(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, f", scheduler: '{text}'")
    assert expected in str(e.value), str(e.value)
    assert "\n" not in str(e.value).strip()


def test_a_scheduler_with_a_policy_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, ", scheduler: round-robin, policy: delay-centric")
    assert "scheduler: round-robin chooses every message's path; it goes with policy: static only, not delay-centric" in str(e.value)


def test_sched_records_are_read_with_their_inputs() -> None:
    rec = records.parse([
        "sched\t5000\t7\t3\t200\to\tstream-aware\t198.18.1.2\tstream path eff 53.6 best 53.6 wait 53.6\t"
        "198.18.0.2,ACTIVE,20.0,4380,0,10.9,53.6\t198.18.1.2,ACTIVE,100.0,4380,0,54.6,54.6\n",
        "sched\t6000\t8\t0\t200\tu\tround-robin\t-\tno active path\t198.18.0.2,UNKNOWN,-,-,-,-,-\n",
    ])
    assert rec.sched[0] == records.SchedDecision(5000, 7, 3, 200, True, "stream-aware", "198.18.1.2",
                                                 "stream path eff 53.6 best 53.6 wait 53.6",
                                                 ("198.18.0.2,ACTIVE,20.0,4380,0,10.9,53.6", "198.18.1.2,ACTIVE,100.0,4380,0,54.6,54.6"))
    assert not rec.sched[1].ordered and rec.sched[1].chosen == "-"


def _a(seq: int, stream: int, t_ms: float, ordered: bool = True, path: str = "one") -> Arrival:
    return Arrival(seq, stream, ordered, int(t_ms * MS), path)


def test_holb_is_the_wait_for_an_earlier_message_of_the_same_stream() -> None:
    arrived = [
        _a(0, 0, 30, path="two"),   # slow path
        _a(1, 0, 12),               # arrived first, waits 18 ms for message 0
        _a(2, 1, 13),               # another stream: no wait
        _a(3, 0, 14),               # waits 16 ms for message 0
        _a(4, 0, 15, ordered=False),  # unordered: never waits, left out
        _a(5, 0, 40),               # after everything: no wait
    ]
    holb = multipath.holb_ns(arrived)
    assert holb == {0: 0, 1: 18 * MS, 2: 0, 3: 16 * MS, 5: 0}
    m = multipath.holb_metrics(list(holb.values()), arrived)
    assert m["holb_mean_ms"] == pytest.approx(34 / 5, rel=1e-12)
    assert m["holb_share"] == pytest.approx(2 / 5)
    # arrived before one sent earlier: 1, 2, 3, 4 (all before message 0)
    assert m["reordered_share"] == pytest.approx(4 / 6)


def test_holb_p99_is_the_99th_percentile_of_the_waits_not_their_middle() -> None:
    """98 messages that never wait and two that wait 50 and 100 ms: the p99 lies between those
    two, at rank 0.99 × 99 = 98.01 (linear interpolation): 50 + 0.01 × 50 = 50.5 ms."""
    waits = [0] * 98 + [50 * MS, 100 * MS]
    m = multipath.holb_metrics(waits, [_a(0, 0, 0)])
    assert m["holb_p99_ms"] == pytest.approx(50.5, rel=1e-12)
    assert m["holb_mean_ms"] == pytest.approx(1.5) and m["holb_share"] == pytest.approx(0.02)


def test_messages_captured_in_one_instant_are_not_reordered() -> None:
    """Two messages bundled in one packet arrive together: a tie is no reordering, nor a wait."""
    arrived = [_a(0, 0, 10), _a(1, 0, 10), _a(2, 0, 20), _a(3, 0, 20)]
    assert multipath.reordered_share(arrived) == 0.0
    assert multipath.holb_ns(arrived) == {0: 0, 1: 0, 2: 0, 3: 0}
    assert multipath.reordered_share([_a(0, 0, 10), _a(1, 0, 9), _a(2, 0, 10)]) == pytest.approx(1 / 3)
    assert multipath.reordered_share([]) is None


def test_no_capture_means_no_holb_figures() -> None:
    assert multipath.holb_metrics([], None) == dict.fromkeys(multipath.METRIC_KEYS)


def test_path_share_and_mtt_per_stream() -> None:
    assert multipath.path_share(["one", "two", "one", None, "one"]) == {"one": 0.75, "two": 0.25}
    per = multipath.mtt_per_stream([(0, 10 * MS), (0, 30 * MS), (1, 12 * MS)])
    assert per["0"]["messages"] == 2 and per["0"]["mtt_mean_ms"] == pytest.approx(20.0)
    assert per["1"]["mtt_p99_ms"] == pytest.approx(12.0)


def test_mtt_from_the_schedule_counts_the_senders_backlog() -> None:
    client = records.parse(["tx\t120\t0\t0\t200\t121\t100\n", "tx\t300\t1\t0\t200\t301\t-\n"])
    server = records.parse(["rx\t150\t0\t0\t200\t120\t10.0.0.1\n", "rx\t330\t1\t0\t200\t300\t10.0.0.1\n"])
    assert multipath.sched_mtt_ns(client, server) == [50]  # message 1 has no schedule (saturate)
    assert multipath.sched_mtt_metrics([50 * MS]) == {"sched_mtt_mean_ms": 50.0, "sched_mtt_p99_ms": 50.0}
    assert multipath.sched_mtt_metrics([]) == dict.fromkeys(multipath.SCHED_MTT_KEYS)


# ---------------------------------------------------------------- arrivals from the captures

A_ONE, B_ONE, A_TWO, B_TWO = "198.18.0.1", "198.18.0.2", "198.18.1.1", "198.18.1.2"  # _load's plan: a client, b server


def _plan_assoc(tmp_path: Path) -> Association:
    assoc = plan.build(_load(tmp_path, ""), 1, "agent").associations[0]
    assert {p.path: (p.client_address, p.server_address) for p in assoc.paths} == {"one": (A_ONE, B_ONE), "two": (A_TWO, B_TWO)}
    return assoc


def _data(seq: int, *, unordered: bool = False) -> bytes:
    """A DATA chunk that starts a message (B bit) whose payload opens with the agent's sequence number."""
    flags = 0x02 | 0x01 | (multipath.DATA_U_BIT if unordered else 0)
    return struct.pack("!BBHIHHI", captures.CHUNK_DATA, flags, 16 + 16, 100 + seq, 0, 0, 0) + struct.pack("!QQ", seq, 0)


def _sent(*seq_stream: tuple[int, int]) -> records.Records:
    return records.Records(tx=[records.Tx(0, seq, stream, 200, 0) for seq, stream in seq_stream])


def test_a_messages_arrival_is_its_first_capture_at_the_server_on_either_path(tmp_path: Path) -> None:
    """Message 0 came first on path two (a retransmission elsewhere came later); message 1
    twice on one; message 2 in one instant on both paths keeps the first path's; message 3 is
    unordered; what the server sent (first in its file), and a message the client never sent
    (also bundled before messages 1 and 3), are no arrivals, and the packets and chunks after
    them are still read."""
    assoc = _plan_assoc(tmp_path)
    (tmp_path / "captures").mkdir()
    pk.write_pcap(tmp_path / "captures" / "one-b.pcap", [
        (5, B_ONE, A_ONE, pk.sctp(5000, 40000, _data(4))),     # the server's DATA, towards the client
        (30, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(0))),
        (10, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(99), _data(1), _data(3, unordered=True))),
        (50, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(1))),
        (40, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(2))),
        (6, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(99))),    # not in the client's records
    ])
    pk.write_pcap(tmp_path / "captures" / "two-b.pcap", [
        (20, A_TWO, B_TWO, pk.sctp(40000, 5000, _data(0))),
        (40, A_TWO, B_TWO, pk.sctp(40000, 5000, _data(2))),
    ])
    client = _sent((0, 0), (1, 0), (2, 1), (3, 1), (4, 0))
    got = multipath.arrivals(tmp_path, assoc, client)
    assert got == [Arrival(0, 0, True, pk.T0 + 20 * MS, "two"), Arrival(1, 0, True, pk.T0 + 10 * MS, "one"),
                   Arrival(2, 1, True, pk.T0 + 40 * MS, "one"), Arrival(3, 1, False, pk.T0 + 10 * MS, "one")]
    # The client's own captures (host=a) hold its first departures instead.
    pk.write_pcap(tmp_path / "captures" / "one-a.pcap", [(1, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(1)))])
    assert multipath.arrivals(tmp_path, assoc, client, host="a") == [Arrival(1, 0, True, pk.T0 + 1 * MS, "one")]


def test_no_server_capture_is_no_arrivals_and_an_empty_one_is_none_arrived(tmp_path: Path) -> None:
    assoc = _plan_assoc(tmp_path)
    (tmp_path / "captures").mkdir()
    pk.write_pcap(tmp_path / "captures" / "one-a.pcap", [(1, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(0)))])
    assert multipath.arrivals(tmp_path, assoc, _sent((0, 0))) is None
    pk.write_pcap(tmp_path / "captures" / "two-b.pcap", [])
    assert multipath.arrivals(tmp_path, assoc, _sent((0, 0))) == []


def test_data_copies_count_each_tsns_first_copy_and_its_repeats_per_path(tmp_path: Path) -> None:
    """TSN 100 first on one, again on two; TSN 101 on both paths in one instant (the earlier
    path's is the first) and again on one; TSN 102 once on two; the server's own DATA and a
    chunk without its TSN captured are not counted."""
    assoc = _plan_assoc(tmp_path)
    (tmp_path / "captures").mkdir()
    pk.write_pcap(tmp_path / "captures" / "one-b.pcap", [
        (5, B_ONE, A_ONE, pk.sctp(5000, 40000, _data(7))),
        (10, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(0))),
        (30, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(1))),
        (50, A_ONE, B_ONE, pk.sctp(40000, 5000, _data(1))),
    ])
    pk.write_pcap(tmp_path / "captures" / "two-b.pcap", [
        (20, A_TWO, B_TWO, pk.sctp(40000, 5000, _data(0))),
        (30, A_TWO, B_TWO, pk.sctp(40000, 5000, _data(1))),
        (40, A_TWO, B_TWO, pk.sctp(40000, 5000, _data(2))),
    ])
    arrived = multipath.data_copies(tmp_path, assoc, "b")
    assert arrived == {"one": {"first": 2, "again": 1}, "two": {"first": 1, "again": 2}}
    assert multipath.duplicate_share(arrived) == pytest.approx(3 / 6)
    assert multipath.data_copies(tmp_path, assoc, "a") is None  # no capture of the client's
    assert multipath.duplicate_share(None) is None and multipath.duplicate_share({"one": {"first": 0, "again": 0}}) is None
    metrics = multipath.holb_metrics([0], [_a(0, 0, 10)], arrived)
    assert metrics["duplicate_share"] == pytest.approx(0.5)
    assert multipath.holb_metrics([], None, arrived)["duplicate_share"] is None


def test_the_associations_multipath_section() -> None:
    arrived = [_a(0, 0, 10), _a(1, 0, 5, ordered=False)]
    copies = {"arrived": {"one": {"first": 2, "again": 0}}, "sent": None}
    section = multipath.association_summary(arrived, {0: 0}, ["two", "one", None], [(0, 10 * MS)], {"198.18.0.2": 3}, copies)
    assert section == {"path_share": {"one": 0.5, "two": 0.5}, "mtt_per_stream": {"0": {"messages": 1, "mtt_mean_ms": 10.0, "mtt_p99_ms": 10.0}},
                       "holb_messages": 1, "arrivals_captured": 2, "scheduled_on": {"198.18.0.2": 3},
                       "data_copies_arrived": {"one": {"first": 2, "again": 0}}, "data_copies_sent": None}
    none = multipath.association_summary(None, {}, [], [], {})
    assert (none["holb_messages"], none["arrivals_captured"], none["path_share"], none["mtt_per_stream"]) == (None, None, {}, {})


def test_path_share_is_in_path_order_and_empty_without_a_known_path() -> None:
    assert list(multipath.path_share(["two", "one", "two"])) == ["one", "two"]
    assert multipath.path_share([None, None]) == {} and multipath.path_share([]) == {}


def test_mtt_per_stream_p99_is_the_99th_percentile_of_each_stream() -> None:
    """101 messages at 0 … 100 ms: p99 at rank 99 is 99 ms (neither the maximum nor the mean);
    streams in number order, keyed by their number as text."""
    per = multipath.mtt_per_stream([(2, 5 * MS)] + [(0, i * MS) for i in range(101)])
    assert list(per) == ["0", "2"]
    assert per["0"] == {"messages": 101, "mtt_mean_ms": pytest.approx(50.0), "mtt_p99_ms": pytest.approx(99.0)}
    assert multipath.mtt_per_stream([]) == {}


def test_mtt_from_the_schedule_p99_and_messages_not_delivered() -> None:
    sched = multipath.sched_mtt_metrics([i * MS for i in range(101)])
    assert sched == {"sched_mtt_mean_ms": pytest.approx(50.0), "sched_mtt_p99_ms": pytest.approx(99.0)}
    client = records.Records(tx=[records.Tx(100, 0, 0, 200, 101, 90), records.Tx(200, 1, 0, 200, 201, 190)])
    server = records.Records(rx=[records.Rx(150, 0, 0, 200, 100, "x")])  # message 1 never arrived
    assert multipath.sched_mtt_ns(client, server) == [60]


def test_holb_and_reordering_follow_the_sending_order_whatever_the_order_given() -> None:
    arrived = [_a(3, 0, 14), _a(1, 0, 12), _a(0, 0, 30, path="two"), _a(2, 1, 13)]
    assert multipath.holb_ns(arrived) == {0: 0, 1: 18 * MS, 2: 0, 3: 16 * MS}
    assert multipath.reordered_share(arrived) == pytest.approx(3 / 4)


def test_a_wait_of_one_nanosecond_is_a_wait() -> None:
    assert multipath.holb_metrics([0, 1], [_a(0, 0, 0)])["holb_share"] == 0.5


def test_captured_arrivals_without_an_ordered_message_have_no_holb_figures_but_a_reordering_share() -> None:
    arrived = [_a(0, 0, 10, ordered=False), _a(1, 0, 5, ordered=False)]
    assert multipath.holb_metrics(list(multipath.holb_ns(arrived).values()), arrived) == {
        "holb_mean_ms": None, "holb_p99_ms": None, "holb_share": None, "reordered_share": 0.5, "duplicate_share": None}
