"""SCTP packets built byte by byte, as a capture would hold them, for the capture readers' tests."""

from __future__ import annotations

import struct
from pathlib import Path

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


def data_chunk(tsn: int, payload: int = 16) -> bytes:
    """A DATA chunk (no B bit: no agent header is decoded) of `payload` bytes."""
    return struct.pack("!BBHIHHI", captures.CHUNK_DATA, 0x01, 16 + payload, tsn, 0, 0, 0) + bytes(payload)


def heartbeat_chunk() -> bytes:
    return struct.pack("!BBHHH", 4, 0, 8, 1, 4)


def _ipv4(src: str, dst: str, payload: bytes, ip_id: int) -> bytes:
    words = lambda a: bytes(int(x) for x in a.split("."))  # noqa: E731
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ip_id, 0, 64, 132, 0, words(src), words(dst))
    total = sum(struct.unpack("!10H", header))
    total = (total & 0xFFFF) + (total >> 16)
    checksum = ~((total & 0xFFFF) + (total >> 16)) & 0xFFFF
    return header[:10] + struct.pack("!H", checksum) + header[12:] + payload


def write_pcap(path: Path, frames: list[tuple[float, str, str, bytes]]) -> Path:
    """A pcap file (Ethernet, IPv4) of SCTP packets (t_ms after T0, src, dst, SCTP bytes), as
    tcpdump writes one: what the capture readers hand to the real tshark."""
    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1)]  # nanosecond timestamps
    for i, (t_ms, src, dst, sctp_bytes) in enumerate(frames):
        frame = bytes(6) + bytes(6) + b"\x08\x00" + _ipv4(src, dst, sctp_bytes, i + 1)
        t_ns = T0 + round(t_ms * 1e6)
        out.append(struct.pack("<IIII", t_ns // 1_000_000_000, t_ns % 1_000_000_000, len(frame), len(frame)) + frame)
    path.write_bytes(b"".join(out))
    return path
