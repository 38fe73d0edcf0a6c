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
