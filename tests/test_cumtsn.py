"""Cumulative TSN acknowledged over time from hand-made packets (no tshark, no kernel): the
INIT's initial TSN and the SACK's cumulative TSN ack decoded from bytes, counted from the
initial TSN, only the association's own SACKs, in arrival order, across a TSN wrap."""

from __future__ import annotations

import struct

import pytest

from sctpbench.analysis import cumtsn
from sctpbench.collectors import captures

CLIENT = {"primary": "198.18.0.1", "secondary": "198.18.1.1"}
SERVER = {"primary": "198.18.0.2", "secondary": "198.18.1.2"}
ENDS = cumtsn.Ends(frozenset(CLIENT.values()), frozenset(SERVER.values()), 5000)
T0 = 1_700_000_000_000_000_000  # t0 on the capture's clock (CLOCK_REALTIME), ns


def _sctp(sport: int, dport: int, *chunks: bytes) -> bytes:
    return struct.pack("!HHII", sport, dport, 0x1234, 0) + b"".join(chunks)


def _init(initial_tsn: int) -> bytes:
    return struct.pack("!BBHIIHHI", captures.CHUNK_INIT, 0, 20, 0xABCD, 65536, 10, 10, initial_tsn)


def _sack(cum: int) -> bytes:
    return struct.pack("!BBHIIHH", captures.CHUNK_SACK, 0, 16, cum, 65536, 0, 0)


def _packet(t_ms: float, src: str, dst: str, sctp: bytes) -> captures.Packet:
    sport, dport = struct.unpack_from("!HH", sctp)
    t_ns = T0 + round(t_ms * 1e6)
    return captures.Packet(0, t_ns / 1e9, src, dst, 100, 0, 0x1234, 0, captures.decode_chunks(sctp), b"", sport, dport, t_ns)


def test_capture_times_are_read_to_the_nanosecond() -> None:
    assert captures.epoch_ns("1700000000.123456789") == 1_700_000_000_123_456_789
    assert captures.epoch_ns("1700000000.5") == 1_700_000_000_500_000_000


def test_init_and_sack_chunks_are_decoded_from_the_bytes() -> None:
    (init,) = captures.decode_chunks(_sctp(40000, 5000, _init(0xFFFFFFF0)))
    (sack,) = captures.decode_chunks(_sctp(5000, 40000, _sack(77)))
    assert (init.name, init.initial_tsn, init.cum_tsn) == ("INIT", 0xFFFFFFF0, None)
    assert (sack.name, sack.cum_tsn, sack.initial_tsn) == ("SACK", 77, None)


def test_cumulative_tsn_counts_chunks_from_the_initial_tsn_in_arrival_order_across_a_wrap() -> None:
    initial = 0xFFFFFFFE  # the 3rd chunk has TSN 0
    primary = [
        _packet(0, CLIENT["primary"], SERVER["primary"], _sctp(40000, 5000, _init(initial))),
        _packet(30, SERVER["primary"], CLIENT["primary"], _sctp(5000, 40000, _sack(initial))),          # 1 chunk
        _packet(50, SERVER["primary"], CLIENT["primary"], _sctp(5000, 40000, _sack(0))),                # 3 chunks
        _packet(60, SERVER["primary"], CLIENT["primary"], _sctp(5001, 40001, _sack(12345))),           # another association
        _packet(70, CLIENT["primary"], SERVER["primary"], _sctp(40000, 5000, _sack(999))),              # the client's own SACK
    ]
    secondary = [_packet(40, SERVER["secondary"], CLIENT["secondary"], _sctp(5000, 40000, _sack(initial + 1)))]  # 2 chunks
    rows = cumtsn.rows("main", ENDS, {"primary": primary, "secondary": secondary}, T0)
    assert [(r["t_rel_ns"], r["cum_tsn_ack"], r["path"]) for r in rows] == [
        (30_000_000, 1, "primary"), (40_000_000, 2, "secondary"), (50_000_000, 3, "primary")]
    assert cumtsn.summary(rows) == {"main": {"sacks": 3, "last_cum_tsn_ack": 3}}


def test_no_init_in_the_captures_is_said_rather_than_guessed() -> None:
    sack = _packet(30, SERVER["primary"], CLIENT["primary"], _sctp(5000, 40000, _sack(5)))
    with pytest.raises(ValueError, match="no INIT"):
        cumtsn.rows("main", ENDS, {"primary": [sack]}, T0)
