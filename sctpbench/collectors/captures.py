"""Read a run's packet captures (captures/{path}-{host}.pcap) into typed rows.

One tshark call per file finds the SCTP packets (IPv4 or IPv6) and hands over their bytes; the
SCTP common header and chunk headers are decoded here from the bytes after the IP
header. Why not tshark's SCTP fields: it does not dissect the chunks of a truncated
packet at all ("SCTP truncated"), and for whole packets its JSON splits the SCTP bytes
between the sctp and data layers; the frame's bytes serve both cases alike. A DATA
payload starts with the agent's sequence number and generation time
(workloads/agent/RECORDS.md, "Messages"), which is how captures are put on the agents'
clock (see analysis/verify.py).
"""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

TSHARK_TIMEOUT_S = 120
CHUNK_DATA = 0
CHUNK_INIT = 1
CHUNK_SACK = 3
CHUNK_ASCONF_ACK = 128
CHUNK_ASCONF = 193
CHUNK_NAMES = {
    0: "DATA", 1: "INIT", 2: "INIT_ACK", 3: "SACK", 4: "HEARTBEAT", 5: "HEARTBEAT_ACK", 6: "ABORT",
    7: "SHUTDOWN", 8: "SHUTDOWN_ACK", 9: "ERROR", 10: "COOKIE_ECHO", 11: "COOKIE_ACK", 12: "ECNE", 13: "CWR",
    14: "SHUTDOWN_COMPLETE", 15: "AUTH", 64: "I_DATA", 128: "ASCONF_ACK", 130: "RE_CONFIG", 192: "FORWARD_TSN",
    193: "ASCONF",
}
DATA_B_BIT = 0x02  # first fragment of a user message: its payload starts with the agent's header
# SCTP over UDP (RFC 6951), as the usrsctp agent sends it (docs/stacks.md): decoded as SCTP,
# its 8-byte UDP header skipped.
UDP_ENCAPS_PORT = 9899
UDP_HEADER = 8
IPPROTO_UDP = 17


class CaptureError(Exception):
    """A capture file that tshark cannot read."""


@dataclass(frozen=True)
class Chunk:
    type: int
    flags: int
    tsn: int | None = None  # DATA only, when the header was captured
    seq: int | None = None  # the agent's message sequence number (first fragment, payload captured)
    t_gen_ns: int | None = None  # the agent's generation time, CLOCK_MONOTONIC
    cum_tsn: int | None = None  # SACK only: the cumulative TSN acknowledged
    initial_tsn: int | None = None  # INIT only: the TSN its sender's first DATA chunk gets
    serial: int | None = None  # ASCONF and ASCONF-ACK: the serial number pairing them (RFC 5061 4.1)
    # SACK only, when all of it was captured: its gap ack blocks, (start, end) offsets from cum_tsn
    gaps: tuple[tuple[int, int], ...] | None = None

    @property
    def name(self) -> str:
        return CHUNK_NAMES.get(self.type, str(self.type))


@dataclass(frozen=True)
class Packet:
    """One SCTP packet (IPv4 or IPv6) as captured on one interface."""

    index: int  # position among the SCTP packets of its capture file
    time: float  # capture time, s since the epoch (the guest kernel's CLOCK_REALTIME)
    src: str
    dst: str
    length: int  # bytes on the wire including the Ethernet header: what a qdisc counts
    ip_id: int  # 0 for IPv6, which has no ID
    vtag: int
    checksum: int
    chunks: tuple[Chunk, ...]
    key: bytes  # what identifies the packet on both sides of the emulator; see match_key
    sport: int = 0  # SCTP ports: which association of two hosts the packet belongs to
    dport: int = 0
    time_ns: int = 0  # `time` in integer ns, exact: a float of seconds since the epoch keeps only ~0.2 µs

    @property
    def chunk_types(self) -> list[str]:
        return [c.name for c in self.chunks]

    @property
    def tsns(self) -> list[int]:
        return [c.tsn for c in self.chunks if c.tsn is not None]


def match_key(length: int, ip_id: int, sctp: bytes) -> bytes:
    """The identity of a packet on both sides of the emulator.

    The SCTP CRC32c cannot serve: on veth the checksum is offloaded and never filled in,
    so every packet carries 0. IP forwarding changes TTL and the header checksum but
    keeps the ID, total length and the whole SCTP packet: verification tag, every chunk,
    TSNs, SACK contents and, for DATA, the message's sequence number and generation time.
    The kernel numbers an association's packets in the IP ID, so even a retransmission
    differs from its original; it leaves the ID at 0 where no socket is connected yet
    (INIT-ACK, COOKIE-ACK, out-of-the-blue replies). IPv6 has no ID (0 here): there a
    retransmission identical to its original shares its key too. Only such copies can
    share a key, and matching tells them apart by time.
    """
    return hashlib.blake2b(struct.pack("!IH", length, ip_id) + sctp, digest_size=16).digest()


def sack_gaps(sctp: bytes, offset: int) -> tuple[tuple[int, int], ...] | None:
    """The gap ack blocks of the SACK chunk at `offset` (RFC 9260 3.3.4: after the
    cumulative TSN ack and a_rwnd, the counts of gap blocks and duplicate TSNs, then the
    blocks), or None when the capture stops before the last block."""
    if offset + 16 > len(sctp):
        return None
    (count,) = struct.unpack_from("!H", sctp, offset + 12)
    if offset + 16 + 4 * count > len(sctp):
        return None
    return tuple(struct.unpack_from("!HH", sctp, offset + 16 + 4 * i) for i in range(count))


def decode_chunks(sctp: bytes) -> tuple[Chunk, ...]:
    """Chunk headers after the 12-byte common header, as far as the capture reaches."""
    chunks: list[Chunk] = []
    offset = 12
    while offset + 4 <= len(sctp):
        ctype, flags, length = struct.unpack_from("!BBH", sctp, offset)
        tsn = seq = t_gen = cum = initial = serial = None
        gaps: tuple[tuple[int, int], ...] | None = None
        if ctype == CHUNK_DATA and offset + 8 <= len(sctp):
            (tsn,) = struct.unpack_from("!I", sctp, offset + 4)
            payload = offset + 16
            if flags & DATA_B_BIT and length >= 32 and payload + 16 <= len(sctp):
                seq, t_gen = struct.unpack_from("!QQ", sctp, payload)
        elif ctype == CHUNK_SACK and offset + 8 <= len(sctp):
            (cum,) = struct.unpack_from("!I", sctp, offset + 4)
            gaps = sack_gaps(sctp, offset)
        elif ctype == CHUNK_INIT and offset + 20 <= len(sctp):
            # initiate tag, a_rwnd, outbound and inbound streams, then the initial TSN
            (initial,) = struct.unpack_from("!I", sctp, offset + 16)
        elif ctype in (CHUNK_ASCONF, CHUNK_ASCONF_ACK) and offset + 8 <= len(sctp):
            (serial,) = struct.unpack_from("!I", sctp, offset + 4)
        chunks.append(Chunk(ctype, flags, tsn, seq, t_gen, cum, initial, serial, gaps))
        if length < 4:  # malformed: stop rather than loop
            break
        offset += (length + 3) & ~3
    return tuple(chunks)


def _first(value: Any) -> Any:
    # A field that repeats (IP inside ICMP, tunnels) comes as a list; the outer one is first.
    return value[0] if isinstance(value, list) else value


IPV6_HEADER = 40


def _ip_header(layers: dict[str, Any], data: bytes) -> tuple[int, int, int, str, str, int] | None:
    """(where the IP header starts, its length, the IP packet's length, source,
    destination, IP ID) of an IPv4 or IPv6 packet; IPv6 has no ID (0)."""
    for name in ("ip", "ipv6"):
        fields, raw = layers.get(name), layers.get(f"{name}_raw")
        if fields and raw:
            at = int((raw[0] if isinstance(raw[0], list) else raw)[1])  # [hex, offset, length, …]
            break
    else:
        return None
    if name == "ip":
        header = (data[at] & 0x0F) * 4
        if int(_first(fields["ip.proto"])) == IPPROTO_UDP:
            header += UDP_HEADER
        return (at, header, int(_first(fields["ip.len"])), _first(fields["ip.src"]),
                _first(fields["ip.dst"]), int(_first(fields["ip.id"]), 16))
    # SCTP (or its UDP header) follows the fixed header directly: no extension header.
    plen = int(_first(fields["ipv6.plen"]))
    header = IPV6_HEADER + (UDP_HEADER if int(_first(fields["ipv6.nxt"])) == IPPROTO_UDP else 0)
    return at, header, IPV6_HEADER + plen, _first(fields["ipv6.src"]), _first(fields["ipv6.dst"]), 0


def _packet(layers: dict[str, Any]) -> Packet | None:
    frame_raw = layers.get("frame_raw")
    if not frame_raw:
        return None
    data = bytes.fromhex(_first(frame_raw))
    ip = _ip_header(layers, data)
    if ip is None:
        return None
    ip_at, header, total, src, dst, ip_id = ip
    sctp = data[ip_at + header: ip_at + total]  # the capture may have cut it short
    if len(sctp) < 12:
        return None
    frame = layers["frame"]
    length = int(_first(frame["frame.len"]))
    epoch = str(_first(frame["frame.time_epoch"]))
    sport, dport, vtag, checksum = struct.unpack_from("!HHII", sctp, 0)
    return Packet(
        index=0, time=float(epoch), time_ns=epoch_ns(epoch), src=src, dst=dst,
        length=length, ip_id=ip_id, vtag=vtag, checksum=checksum, chunks=decode_chunks(sctp),
        key=match_key(length, ip_id, sctp), sport=sport, dport=dport,
    )


def epoch_ns(text: str) -> int:
    """tshark's `frame.time_epoch` ("1700000000.123456789") as integer ns."""
    seconds, _, fraction = text.partition(".")
    return int(seconds) * 1_000_000_000 + int((fraction + "000000000")[:9])


def read(path: Path, where: str | None = None) -> list[Packet]:
    """Every SCTP packet (IPv4 or IPv6) of a pcap file, in capture order; with `where` (a
    tshark display filter) only those it matches, which spares decoding the rest (index:
    the position among those)."""
    shown = "(ip || ipv6) && sctp" + (f" && ({where})" if where else "")
    argv = ["tshark", "-r", str(path), "-n", "-d", f"udp.port=={UDP_ENCAPS_PORT},sctp", "-Y", shown, "-T", "json",
            "-x", "-j", "frame ip ipv6"]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=TSHARK_TIMEOUT_S)
    except FileNotFoundError:
        raise CaptureError("tshark is not installed (Debian: apt-get install tshark)") from None
    except subprocess.TimeoutExpired:
        raise CaptureError(f"{path}: tshark did not finish within {TSHARK_TIMEOUT_S} s") from None
    if r.returncode != 0:
        lines = [line for line in r.stderr.splitlines() if line.strip() and "Running as user" not in line]
        raise CaptureError(f"{path}: tshark failed: {lines[-1] if lines else f'exit status {r.returncode}'}")
    document = json.loads(r.stdout) if r.stdout.strip() else []
    packets = [p for p in (_packet(p["_source"]["layers"]) for p in document) if p is not None]
    return [replace(p, index=i) for i, p in enumerate(packets)]
