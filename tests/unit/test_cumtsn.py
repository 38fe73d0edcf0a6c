"""Cumulative TSN acknowledged over time from hand-made packets (no tshark, no kernel): the
INIT's initial TSN and the SACK's cumulative TSN ack decoded from bytes, counted from the
initial TSN, only the association's own SACKs, in arrival order, across a TSN wrap."""

from __future__ import annotations

import struct

import pytest

from sctpbench.analysis import cumtsn
from sctpbench.collectors import captures
from tests.support.packets import CLIENT, ENDS, SERVER, T0, init_chunk, packet, sack_chunk, sctp


def test_init_and_sack_chunks_are_decoded_from_the_bytes() -> None:
    (init,) = captures.decode_chunks(sctp(40000, 5000, init_chunk(0xFFFFFFF0)))
    (sack,) = captures.decode_chunks(sctp(5000, 40000, sack_chunk(77)))
    assert (init.name, init.initial_tsn, init.cum_tsn) == ("INIT", 0xFFFFFFF0, None)
    assert (sack.name, sack.cum_tsn, sack.initial_tsn) == ("SACK", 77, None)


def test_sack_gap_blocks_are_decoded_when_the_whole_chunk_was_captured() -> None:
    blocks = struct.pack("!HHHH", 2, 3, 6, 9)
    sack = struct.pack("!BBHIIHH", captures.CHUNK_SACK, 0, 16 + len(blocks), 77, 65536, 2, 0) + blocks
    (whole,) = captures.decode_chunks(sctp(5000, 40000, sack))
    assert (whole.cum_tsn, whole.gaps) == (77, ((2, 3), (6, 9)))
    (cut,) = captures.decode_chunks(sctp(5000, 40000, sack)[:-2])  # the last block not all captured
    assert (cut.cum_tsn, cut.gaps) == (77, None)
    (none,) = captures.decode_chunks(sctp(5000, 40000, sack_chunk(77)))
    assert none.gaps == ()


def test_cumulative_tsn_counts_chunks_from_the_initial_tsn_in_arrival_order_across_a_wrap() -> None:
    initial = 0xFFFFFFFE  # the 3rd chunk has TSN 0
    primary = [
        packet(0, CLIENT["primary"], SERVER["primary"], sctp(40000, 5000, init_chunk(initial))),
        packet(30, SERVER["primary"], CLIENT["primary"], sctp(5000, 40000, sack_chunk(initial))),          # 1 chunk
        packet(50, SERVER["primary"], CLIENT["primary"], sctp(5000, 40000, sack_chunk(0))),                # 3 chunks
        packet(60, SERVER["primary"], CLIENT["primary"], sctp(5001, 40001, sack_chunk(12345))),           # another association
        packet(70, CLIENT["primary"], SERVER["primary"], sctp(40000, 5000, sack_chunk(999))),              # the client's own SACK
    ]
    secondary = [packet(40, SERVER["secondary"], CLIENT["secondary"], sctp(5000, 40000, sack_chunk(initial + 1)))]  # 2 chunks
    rows = cumtsn.rows("main", ENDS, {"primary": primary, "secondary": secondary}, T0)
    assert [(r["t_rel_ns"], r["cum_tsn_ack"], r["path"]) for r in rows] == [
        (30_000_000, 1, "primary"), (40_000_000, 2, "secondary"), (50_000_000, 3, "primary")]
    assert cumtsn.summary(rows) == {"main": {"sacks": 3, "last_cum_tsn_ack": 3}}


def test_no_init_in_the_captures_is_said_rather_than_guessed() -> None:
    sack = packet(30, SERVER["primary"], CLIENT["primary"], sctp(5000, 40000, sack_chunk(5)))
    with pytest.raises(ValueError, match="no INIT"):
        cumtsn.rows("main", ENDS, {"primary": [sack]}, T0)


def test_the_initial_tsn_is_the_clients_first_init_in_time_to_the_associations_port() -> None:
    """Packets given out of time order; the server's INIT (it would start an association of
    its own) and the client's INIT to another port come first and are not this association's."""
    later = packet(20, CLIENT["primary"], SERVER["primary"], sctp(40000, 5000, init_chunk(900)))
    first = packet(10, CLIENT["secondary"], SERVER["secondary"], sctp(40000, 5000, sack_chunk(1), init_chunk(500)))
    theirs = packet(1, SERVER["primary"], CLIENT["primary"], sctp(5000, 40000, init_chunk(100)))
    elsewhere = packet(2, CLIENT["primary"], SERVER["primary"], sctp(40000, 5001, init_chunk(200)))
    assert cumtsn.initial_tsn([later, theirs, elsewhere, first], ENDS) == 500
    assert cumtsn.initial_tsn([theirs, elsewhere], ENDS) is None


def test_ends_of_an_association_are_its_paths_addresses_and_its_port() -> None:
    stray = packet(0, "198.18.9.9", SERVER["primary"], sctp(40000, 5000))
    assert not ENDS.from_client(stray) and not ENDS.to_client(packet(0, SERVER["primary"], "198.18.9.9", sctp(5000, 40000)))
    assert not ENDS.from_client(packet(0, CLIENT["primary"], "198.18.9.9", sctp(40000, 5000)))
    assert not ENDS.to_client(packet(0, "198.18.9.9", CLIENT["primary"], sctp(5000, 40000)))
    assert ENDS.from_client(packet(0, CLIENT["primary"], SERVER["secondary"], sctp(40000, 5000)))
    assert ENDS.to_client(packet(0, SERVER["secondary"], CLIENT["primary"], sctp(5000, 40000)))


MS = 1_000_000


def _curve(*points_ms: tuple[int, int]) -> list[tuple[int, int]]:
    return [(t * MS, c) for t, c in points_ms]


def test_what_is_held_before_the_first_sack_is_nothing_and_at_one_its_value() -> None:
    curve = _curve((1000, 5), (3000, 20), (5000, 40))
    assert [cumtsn.held_at(curve, t * MS) for t in (0, 999, 1000, 2999, 3000, 9000)] == [0, 0, 5, 5, 20, 40]
    assert cumtsn.held_at([], 0) == 0
    # A switch before the first SACK counts from nothing.
    assert cumtsn.acked_after(curve, 500 * MS, (0.5, 2.5)) == [5, 20]


def test_chunks_acknowledged_at_fixed_times_stop_at_the_workloads_end_and_the_last_sack() -> None:
    curve = _curve((1000, 5), (3000, 20), (5000, 40))
    assert cumtsn.acked_at(curve, 0, 4000 * MS, (0.5, 1.0, 3.0, 4.0, 4.5)) == [0, 5, 20, 20, None]
    assert cumtsn.acked_at(curve, 0, 10_000 * MS, (5.0, 5.5)) == [40, None]  # the captures end at 5 s
    assert cumtsn.acked_at(curve, 1000 * MS, 10_000 * MS, (2.0, 0.0001)) == [20, 5]  # counted from the start
    assert cumtsn.acked_at([], 0, 10_000 * MS, (1.0, 2.0)) == [None, None]


def test_the_rates_window_starts_no_earlier_than_the_switch() -> None:
    """100 chunks/s needs 40 chunks in 0.5 s. 50 were acknowledged at the switch (1 s), which a
    window reaching before the switch would count; the half second after it carries 50, and the
    next none."""
    curve = _curve((0, 0), (900, 0), (1000, 50), (1500, 100), (2000, 100))
    assert cumtsn.time_to_rate(curve, 1000 * MS, 100.0) == 500 * MS
    assert cumtsn.time_to_rate(curve, 1000 * MS, 125.0) == 500 * MS  # 50 chunks: exactly 0.8 × 62.5
    assert cumtsn.time_to_rate(curve, 1000 * MS, 126.0) is None
    assert cumtsn.time_to_rate(curve, 1000 * MS, 125.0000001) is None  # 50 chunks short of 50.00000004 (a window in ns / 1e9)
    assert cumtsn.time_to_rate([], 0, 1.0) is None


def test_only_sacks_to_the_client_make_rows_and_the_curve_is_one_associations() -> None:
    packets = [packet(0, CLIENT["primary"], SERVER["primary"], sctp(40000, 5000, init_chunk(10))),
               packet(5, SERVER["primary"], CLIENT["primary"], sctp(5000, 40000, init_chunk(99))),   # no SACK in it
               packet(9, SERVER["primary"], CLIENT["primary"], sctp(5000, 40000, sack_chunk(14)))]
    rows = cumtsn.rows("main", ENDS, {"primary": packets}, T0)
    assert [(r["t_rel_ns"], r["cum_tsn_ack"]) for r in rows] == [(9 * MS, 5)]
    table = [*rows, {"association": "other", "t_rel_ns": 10 * MS, "cum_tsn_ack": 50, "path": "primary"}]
    assert cumtsn.held(table, "main") == [(9 * MS, 5)] and cumtsn.held(table, "other") == [(10 * MS, 50)]
