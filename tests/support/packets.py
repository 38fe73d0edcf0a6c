"""SCTP packets built byte by byte, as a capture would hold them, for the capture readers' tests."""

from __future__ import annotations

import struct

from sctpbench.analysis import cumtsn
from sctpbench.collectors import captures

CLIENT = {"primary": "198.18.0.1", "secondary": "198.18.1.1"}
SERVER = {"primary": "198.18.0.2", "secondary": "198.18.1.2"}
ENDS = cumtsn.Ends(frozenset(CLIENT.values()), frozenset(SERVER.values()), 5000)
T0 = 1_700_000_000_000_000_000  # t0 on the capture's clock (CLOCK_REALTIME), ns


def sctp(sport: int, dport: int, *chunks: bytes) -> bytes:
    return struct.pack("!HHII", sport, dport, 0x1234, 0) + b"".join(chunks)


def init_chunk(initial_tsn: int) -> bytes:
    return struct.pack("!BBHIIHHI", captures.CHUNK_INIT, 0, 20, 0xABCD, 65536, 10, 10, initial_tsn)


def sack_chunk(cum: int) -> bytes:
    return struct.pack("!BBHIIHH", captures.CHUNK_SACK, 0, 16, cum, 65536, 0, 0)


def packet(t_ms: float, src: str, dst: str, sctp: bytes) -> captures.Packet:
    sport, dport = struct.unpack_from("!HH", sctp)
    t_ns = T0 + round(t_ms * 1e6)
    return captures.Packet(0, t_ns / 1e9, src, dst, 100, 0, 0x1234, 0, captures.decode_chunks(sctp), b"", sport, dport, t_ns)
