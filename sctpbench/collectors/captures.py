"""Read a run's packet captures (captures/{path}-{host}.pcap) into typed rows.

The pcap files tcpdump writes in the guest are read here directly, record by record
(no tshark process, no library): the link header (Ethernet on the guest's interfaces;
Linux cooked capture v1/v2 and raw IP are read too), the IPv4 or IPv6 header, and for
SCTP over UDP (RFC 6951, port 9899, as the usrsctp agent sends it) the UDP header;
then the SCTP common header and chunk headers, as far as the capture reaches. tshark
was the reader until the collection's CPU cost was measured (docs/development.md,
"Captures"); tests/unit/test_pcap_reader.py keeps it as the reference the rows here
must equal, real captures included. A DATA payload starts with the agent's sequence
number and generation time (workloads/agent/RECORDS.md, "Messages"), which is how
captures are put on the agents' clock (see analysis/verify.py).

What tshark would call SCTP but this reader skips: an ICMP error quoting an SCTP packet
(tshark's rows for those were the ICMP message's bytes read as SCTP), a fragment of an
IPv4 packet, and SCTP behind an IPv6 extension header; the project's paths carry none.
"""

from __future__ import annotations

import hashlib
import socket
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

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
    """A capture file that cannot be read: not a pcap file, or cut short."""


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


IPV6_HEADER = 40
IPPROTO_SCTP = 132
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
ETHERTYPE_VLAN = (0x8100, 0x88A8)  # 802.1Q and 802.1ad tags, skipped
LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = (101, 12, 14)  # raw IP: DLT_RAW's number differs between systems
LINKTYPE_LINUX_SLL = 113  # `tcpdump -i any`: 16-byte cooked header, protocol last
LINKTYPE_LINUX_SLL2 = 276  # 20-byte cooked header, protocol first
# The pcap magic number as read little-endian: the byte order of the file's fields and how
# many ns a unit of the records' sub-second field is (tcpdump writes µs unless told ns).
PCAP_MAGIC = {0xA1B2C3D4: ("<", 1000), 0xD4C3B2A1: (">", 1000), 0xA1B23C4D: ("<", 1), 0x4D3CB2A1: (">", 1)}
PCAPNG_MAGIC = 0x0A0D0D0A
PCAP_HEADER = 24
RECORD_HEADER = 16
NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class Where:
    """Which packets a read keeps: those with a chunk of one of `chunk_types`, and those whose
    source is one of `sources` (canonical spelling: see from_sources). Judged on the
    packet's bytes, before it is decoded, so the rest cost little."""

    chunk_types: frozenset[int] = frozenset()
    sources: frozenset[str] = frozenset()


def with_chunks(*types: int) -> Where:
    """Packets with a chunk of one of `types` (CHUNK_DATA, …)."""
    return Where(chunk_types=frozenset(types))


def from_sources(addresses: Iterable[str]) -> Where:
    """Packets whose source is one of `addresses` (IPv4 or IPv6, any spelling)."""
    return Where(sources=frozenset(_canonical(a) for a in addresses))


def either(*wheres: Where) -> Where:
    """Packets any of `wheres` keeps."""
    return Where(frozenset().union(*(w.chunk_types for w in wheres)), frozenset().union(*(w.sources for w in wheres)))


def _has_chunk(sctp: bytes, types: frozenset[int]) -> bool:
    """Whether a chunk of `types` is among the chunk headers decode_chunks would decode."""
    offset = 12
    while offset + 4 <= len(sctp):
        if sctp[offset] in types:
            return True
        (length,) = struct.unpack_from("!H", sctp, offset + 2)
        if length < 4:
            return False
        offset += (length + 3) & ~3
    return False


def _canonical(address: str) -> str:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    return socket.inet_ntop(family, socket.inet_pton(family, address))


def _records(data: bytes, path: Path) -> tuple[int, Iterator[tuple[int, int, int, int]]]:
    """The file's link type and its records; CaptureError for what is not a pcap file."""
    if len(data) < PCAP_HEADER:
        raise CaptureError(f"{path}: not a pcap file ({len(data)} bytes, shorter than a pcap header)")
    (magic,) = struct.unpack_from("<I", data)
    if magic not in PCAP_MAGIC:
        kind = "a pcapng file (tcpdump -w writes pcap)" if magic == PCAPNG_MAGIC else "not a pcap file"
        raise CaptureError(f"{path}: {kind}: magic number {magic:#010x}")
    order, unit = PCAP_MAGIC[magic]
    (linktype,) = struct.unpack_from(order + "I", data, 20)
    linktype &= 0x0FFFFFFF  # the upper bits can carry an FCS length
    if linktype not in (LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2, *LINKTYPE_RAW):
        raise CaptureError(f"{path}: link type {linktype} is not read (Ethernet, Linux cooked or raw IP are)")
    return linktype, _frames(data, path, struct.Struct(order + "IIII"), unit)


def _frames(data: bytes, path: Path, record: struct.Struct, unit: int) -> Iterator[tuple[int, int, int, int]]:
    """Each record's (capture time ns, length on the wire, where its bytes start and end in the file)."""
    offset, size = PCAP_HEADER, len(data)
    while offset < size:
        if offset + RECORD_HEADER > size:
            raise CaptureError(f"{path}: cut short in the middle of a packet's record header at byte {offset}")
        seconds, fraction, captured, length = record.unpack_from(data, offset)
        start = offset + RECORD_HEADER
        offset = start + captured
        if offset > size:
            raise CaptureError(f"{path}: cut short in the middle of a packet at byte {start}")
        yield seconds * NS_PER_S + fraction * unit, length, start, offset


def _ip_start(linktype: int, data: bytes, start: int, end: int) -> int | None:
    """Where the frame's IPv4 or IPv6 header starts, or None for another protocol."""
    if linktype in LINKTYPE_RAW:
        return start if start < end and data[start] >> 4 in (4, 6) else None
    if linktype == LINKTYPE_ETHERNET:
        at = start + 12
        while at + 2 <= end and struct.unpack_from("!H", data, at)[0] in ETHERTYPE_VLAN:
            at += 4
    else:
        at = start + (14 if linktype == LINKTYPE_LINUX_SLL else 0)
    if at + 2 > end:
        return None
    (ethertype,) = struct.unpack_from("!H", data, at)
    ip = at + 2 if linktype == LINKTYPE_ETHERNET else start + (16 if linktype == LINKTYPE_LINUX_SLL else 20)
    if ip >= end or (ethertype, data[ip] >> 4) not in ((ETHERTYPE_IPV4, 4), (ETHERTYPE_IPV6, 6)):
        return None
    return ip


def _address(raw: bytes, names: dict[bytes, str]) -> str:
    name = names.get(raw)
    if name is None:
        name = names[raw] = socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, raw)
    return name


def _sctp(data: bytes, at: int, end: int) -> tuple[bytes, bytes, bytes, int] | None:
    """The SCTP packet in the IP packet at `at` (as far as captured), its IP source and
    destination and IP ID, or None: not SCTP (nor SCTP over UDP port 9899), a fragment, or
    less than an SCTP common header captured."""
    if data[at] >> 4 == 4:
        if at + 20 > end:
            return None
        version_ihl, total, ip_id, fragment, proto = struct.unpack_from("!B1xHHH1xB", data, at)
        header = (version_ihl & 0x0F) * 4
        if fragment & 0x3FFF or header < 20:  # more fragments, or not the first
            return None
        src, dst = data[at + 12: at + 16], data[at + 16: at + 20]
    else:
        if at + IPV6_HEADER > end:
            return None
        payload, proto = struct.unpack_from("!HB", data, at + 4)
        header, total, ip_id = IPV6_HEADER, IPV6_HEADER + payload, 0
        src, dst = data[at + 8: at + 24], data[at + 24: at + 40]
    if proto == IPPROTO_UDP:
        if at + header + UDP_HEADER > end or UDP_ENCAPS_PORT not in struct.unpack_from("!HH", data, at + header):
            return None
        header += UDP_HEADER
    elif proto != IPPROTO_SCTP:
        return None
    sctp = data[at + header: min(at + total, end)]  # the capture may have cut it short
    return (sctp, src, dst, ip_id) if len(sctp) >= 12 else None


def read(path: Path, where: Where | None = None) -> list[Packet]:
    """Every SCTP packet (IPv4 or IPv6) of a pcap file, in capture order; with `where` only
    those it keeps (index: the position among those). CaptureError for a file that is
    missing, not a pcap file, or cut short."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CaptureError(f"{path}: {e.strerror or e}") from None
    linktype, frames = _records(data, path)
    names: dict[bytes, str] = {}
    out: list[Packet] = []
    for time_ns, length, start, end in frames:
        at = _ip_start(linktype, data, start, end)
        found = None if at is None else _sctp(data, at, end)
        if found is None:
            continue
        sctp, src_raw, dst_raw, ip_id = found
        src = names.get(src_raw) or _address(src_raw, names)
        if where is not None and src not in where.sources and not _has_chunk(sctp, where.chunk_types):
            continue
        sport, dport, vtag, checksum = struct.unpack_from("!HHII", sctp)
        out.append(Packet(
            index=len(out), time=time_ns / NS_PER_S, time_ns=time_ns, src=src, dst=names.get(dst_raw) or _address(dst_raw, names),
            length=length, ip_id=ip_id, vtag=vtag, checksum=checksum, chunks=decode_chunks(sctp),
            key=match_key(length, ip_id, sctp), sport=sport, dport=dport,
        ))
    return out
