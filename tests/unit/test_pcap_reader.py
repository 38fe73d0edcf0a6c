"""The direct pcap reader (collectors/captures.py) gives the rows tshark gave: the same
Packet rows, times to the ns, on real captures from the guest (tests/data/captures: the
kernel's SCTP over IPv4 with an ADD-IP exchange, over IPv6, usrsctp's SCTP over UDP port
9899), with each filter the analyses use, and on the link types and file variants tcpdump
can write (Linux cooked capture v1 and v2, raw IP, VLAN tags, ns timestamps, big-endian).
The reference is the tshark reader the project used before (tests/support/tshark_capture.py).

tests/data/captures/: kernel-ipv4-asconf.pcap is examples/seed004-handover.yaml's home-mn
capture, packets 1-30 and 215-240 (`editcap -r`); kernel-ipv6.pcap the first 60 packets of
examples/failover-cross-family.yaml's wifi-client capture; usrsctp-udp-icmp.pcap packets
1-40 and 190-194 of a usrsctp association's capture (tests/guest/test_usrsctp.py's setup),
the last an ICMP port unreachable quoting an SCTP packet, when the server had gone.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from sctpbench.analysis import asconf, cumtsn, multipath
from sctpbench.collectors import captures
from tests.support import tshark_capture
from tests.support.packets import T0, sack_chunk, sctp, write_pcap

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")

DATA = Path(__file__).resolve().parents[1] / "data"
IPV4 = DATA / "captures/kernel-ipv4-asconf.pcap"
IPV6 = DATA / "captures/kernel-ipv6.pcap"
UDP = DATA / "captures/usrsctp-udp-icmp.pcap"
BULK = DATA / "seed002-bulk/run-001/captures/neta-mt.pcap"
NOT_ICMP = "!icmp && !icmpv6"  # see test_an_icmp_error_quoting_sctp_is_not_a_packet
# One tshark call costs about 0.5 s of CPU: the fixtures are read as one file, and each
# tshark reading of it once.
FIXTURES = (IPV4, IPV6, UDP, BULK)


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real captures one after the other in one pcap file (all Ethernet, µs)."""
    path = tmp_path_factory.mktemp("pcap") / "real.pcap"
    path.write_bytes(IPV4.read_bytes() + b"".join(f.read_bytes()[24:] for f in FIXTURES[1:]))
    return path


@pytest.fixture(scope="module")
def tshark_rows(real: Path) -> list[captures.Packet]:
    return tshark_capture.read(real, NOT_ICMP)


def test_every_packet_is_the_row_tshark_gave(real: Path, tshark_rows: list[captures.Packet]) -> None:
    rows = captures.read(real)
    assert rows == tshark_rows
    assert len(rows) == sum(len(captures.read(f)) for f in FIXTURES) > 250


@pytest.mark.parametrize(("where", "shown"), [
    (multipath.DATA_FILTER, "sctp.chunk_type == 0"),
    (captures.either(cumtsn.INIT_OR_SACK, asconf.WIRE_FILTER),
     "sctp.chunk_type == 1 || sctp.chunk_type == 3 || sctp.chunk_type == 193 || sctp.chunk_type == 128"),
    # analysis/sources.py's "another path's source address": a list, either family, any spelling
    (captures.from_sources({"198.18.1.2", "2001:2:0:1:0:0:0:1"}), "ip.src == 198.18.1.2 || ipv6.src == 2001:2:0:1::1"),
], ids=["data", "init-sack-asconf", "sources"])
def test_a_filter_keeps_what_the_tshark_filter_kept(real: Path, where: captures.Where, shown: str) -> None:
    rows = captures.read(real, where)
    assert rows == tshark_capture.read(real, f"({shown}) && {NOT_ICMP}")
    assert 0 < len(rows) < len(captures.read(real))  # the filter did keep some and leave some


def test_the_fixtures_hold_what_the_filters_are_for() -> None:
    ipv4 = captures.read(IPV4)
    kinds = {c.type for p in ipv4 for c in p.chunks}
    assert {captures.CHUNK_INIT, captures.CHUNK_ASCONF, captures.CHUNK_ASCONF_ACK} <= kinds
    assert any(c.gaps for p in ipv4 for c in p.chunks)
    assert {p.src for p in captures.read(IPV6)} == {"2001:2:0:1::1", "2001:2:0:1::2"}
    udp = captures.read(UDP)
    assert any(p.sport == 5000 for p in udp) and all(9899 not in (p.sport, p.dport) for p in udp)  # SCTP's ports


def test_an_icmp_error_quoting_sctp_is_not_a_packet() -> None:
    """tshark calls an ICMP port unreachable that quotes an SCTP packet SCTP; its row was the
    ICMP message's bytes read as an SCTP header (port 771 is ICMP type 3, code 3)."""
    quoted = tshark_capture.read(UDP, "icmp")
    assert [(p.sport, p.src) for p in quoted] == [(0x0303, "198.18.1.2")]
    assert all(p.sport != 0x0303 for p in captures.read(UDP))


def _records(pcap: Path) -> list[tuple[int, int, bytes]]:
    """(seconds, µs, Ethernet frame) of a µs little-endian pcap file."""
    data, out, at = pcap.read_bytes(), [], 24
    while at < len(data):
        seconds, micros, captured, _ = struct.unpack_from("<IIII", data, at)
        out.append((seconds, micros, data[at + 16: at + 16 + captured]))
        at += 16 + captured
    return out


UDP_DNS = bytes.fromhex("4500001c00010000401100000a0000010a000002c0000035000800ff")  # IPv4 UDP to port 53
ICMP6_ECHO = bytes.fromhex("6000000000083a40" + "20010002000000010000000000000001" * 2 + "8000000000010001")
ARP = bytes.fromhex("0001080006040001") + bytes(20)
LINKS = {  # link type, the header before an IP packet of the given ethertype
    "sll": (113, lambda kind: struct.pack("!HHH8sH", 0, 1, 6, bytes(8), kind)),
    "sll2": (276, lambda kind: struct.pack("!HHIHBB8s", kind, 0, 2, 1, 0, 6, bytes(8))),
    "raw": (101, lambda kind: b""),
    "vlan-ns-big-endian": (1, lambda kind: bytes(12) + struct.pack("!HHH", 0x8100, 7, kind)),
}


def _variant(tmp_path: Path, name: str) -> Path:
    """IPV6's and UDP's packets, with other protocols between them, written as `name`."""
    linktype, header = LINKS[name]
    nanos = name.endswith("big-endian")
    order, magic = (">", 0xA1B23C4D) if nanos else ("<", 0xA1B2C3D4)
    frames = [(s, u, f[14:]) for s, u, f in _records(IPV6)[:20] + _records(UDP)]
    frames[3:3] = [(frames[3][0], 0, UDP_DNS), (frames[3][0], 1, ICMP6_ECHO), (frames[3][0], 2, ARP)]
    out = [struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 65535, linktype)]
    for i, (seconds, micros, packet) in enumerate(frames):
        kind = 0x0806 if packet is ARP else 0x86DD if packet[0] >> 4 == 6 else 0x0800
        if packet is ARP and name == "raw":
            continue
        frame = header(kind) + packet
        fraction = micros * 1000 + i if nanos else micros  # ns that are no whole µs
        out.append(struct.pack(order + "IIII", seconds, fraction, len(frame), len(frame)) + frame)
    path = tmp_path / f"{name}.pcap"
    path.write_bytes(b"".join(out))
    return path


@pytest.mark.parametrize("name", list(LINKS))
def test_other_link_types_and_file_variants_give_tshark_s_rows(tmp_path: Path, name: str) -> None:
    pcap = _variant(tmp_path, name)
    rows = captures.read(pcap)
    assert rows == tshark_capture.read(pcap, NOT_ICMP)
    assert {p.src[:4] for p in rows} == {"2001", "198."} and len(rows) == 20 + 44
    if name.endswith("ns-big-endian"):
        assert any(p.time_ns % 1000 for p in rows)


def test_times_are_exact_ns_and_time_is_the_float_tshark_printed(tmp_path: Path) -> None:
    pcap = write_pcap(tmp_path / "ns.pcap", [(0.000001, "198.18.0.1", "198.18.0.2", sctp(5000, 40000, sack_chunk(7))),
                                             (1.234567, "198.18.0.2", "198.18.0.1", sctp(40000, 5000, sack_chunk(8)))])
    rows = captures.read(pcap)
    assert [p.time_ns - T0 for p in rows] == [1, 1_234_567]
    assert rows == tshark_capture.read(pcap)  # `time` too: the float of tshark's printed epoch


@pytest.mark.parametrize(("content", "says"), [
    (None, "No such file"),
    (b"not a capture\n" * 3, "not a pcap file"),
    (b"\x0a\x0d\x0d\x0a" + bytes(40), "pcapng"),
    (b"\xd4\xc3\xb2\xa1", "shorter than a pcap header"),
    ("cut", "cut short"),
], ids=["missing", "text", "pcapng", "short", "cut-short"])
def test_an_unreadable_file_is_a_one_line_capture_error(tmp_path: Path, content: bytes | str | None, says: str) -> None:
    pcap = tmp_path / "x.pcap"
    if content == "cut":
        pcap.write_bytes(UDP.read_bytes()[:-10])
        with pytest.raises(captures.CaptureError):  # tshark would not read it either
            tshark_capture.read(pcap)
    elif isinstance(content, bytes):
        pcap.write_bytes(content)
    with pytest.raises(captures.CaptureError) as e:
        captures.read(pcap)
    assert says in str(e.value) and str(pcap) in str(e.value) and "\n" not in str(e.value)
