"""The capture reader as it was before collectors/captures.py read pcap files itself: one
tshark call per file, the SCTP bytes cut from each frame's bytes after tshark's IP header.
Kept as the reference the direct reader's rows must equal (tests/unit/test_pcap_reader.py);
`where` is a tshark display filter here.
"""

from __future__ import annotations

import json
import struct
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

from sctpbench.collectors.captures import IPPROTO_UDP, IPV6_HEADER, UDP_ENCAPS_PORT, UDP_HEADER, CaptureError, Packet, decode_chunks, match_key

TSHARK_TIMEOUT_S = 120


def _first(value: Any) -> Any:
    # A field that repeats (IP inside ICMP, tunnels) comes as a list; the outer one is first.
    return value[0] if isinstance(value, list) else value


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
    sctp = data[ip_at + header: ip_at + total]
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
    """Every SCTP packet (IPv4 or IPv6) of a pcap file as tshark finds them, in capture
    order; with `where` (a tshark display filter) only those it matches."""
    shown = "(ip || ipv6) && sctp" + (f" && ({where})" if where else "")
    argv = ["tshark", "-r", str(path), "-n", "-d", f"udp.port=={UDP_ENCAPS_PORT},sctp", "-Y", shown, "-T", "json",
            "-x", "-j", "frame ip ipv6"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=TSHARK_TIMEOUT_S)
    if r.returncode != 0:
        lines = [line for line in r.stderr.splitlines() if line.strip() and "Running as user" not in line]
        raise CaptureError(f"{path}: tshark failed: {lines[-1] if lines else f'exit status {r.returncode}'}")
    document = json.loads(r.stdout) if r.stdout.strip() else []
    packets = [p for p in (_packet(p["_source"]["layers"]) for p in document) if p is not None]
    return [replace(p, index=i) for i, p in enumerate(packets)]
