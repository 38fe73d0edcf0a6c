"""What competing flows leave: iperf3's JSON (tcp) and udpgen's records (udp), as rows.

iperf3 (`-J --logfile`) writes one JSON document when its test ends: `intervals`, each with
a `sum` (start and end in seconds from the test's start, bytes, bits_per_second,
retransmits) and per stream the sender's snd_cwnd and rtt (µs); `end` with the totals the
sender sent and the receiver received. udpgen's records are in its README
(workloads/udpgen/README.md): `tx T_SCHED T_SENT SEQ SIZE RESULT`, `rx T_RECV SEQ T_SCHED
SIZE`, `end N`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class TcpInterval:
    start_s: float  # from iperf3's test start
    end_s: float
    bytes: int
    bits_per_second: float
    retransmits: int | None
    snd_cwnd: int | None  # bytes, the sender's congestion window at the interval's end
    rtt_ms: float | None  # the sender's smoothed RTT
    # Each TCP connection's bytes in the interval (iperf3's streams, -P), in iperf3's order.
    stream_bytes: tuple[int, ...] = ()


@dataclass
class TcpResult:
    intervals: list[TcpInterval] = field(default_factory=list)
    sent_bps: float | None = None  # end.sum_sent: what the sender wrote, over the test
    received_bps: float | None = None  # end.sum_received: what reached the receiving application
    # Each TCP connection's (stream's) end.streams[k].receiver bits_per_second, in iperf3's order.
    received_stream_bps: tuple[float, ...] = ()
    retransmits: int | None = None
    congestion: str | None = None  # what the sender's kernel used (end.sender_tcp_congestion)
    error: str | None = None  # iperf3's own error, if the test failed


def parse_iperf3(text: str) -> TcpResult:
    """An iperf3 client's JSON document; an empty or cut one (a killed run) gives no intervals."""
    try:
        doc = json.loads(text)
    except ValueError:
        return TcpResult(error="iperf3 left no complete JSON document")
    out = TcpResult(error=doc.get("error"))
    for interval in doc.get("intervals") or []:
        total = interval.get("sum") or {}
        stream = (interval.get("streams") or [{}])[0]
        rtt = stream.get("rtt")
        out.intervals.append(TcpInterval(
            start_s=float(total.get("start", 0.0)), end_s=float(total.get("end", 0.0)), bytes=int(total.get("bytes", 0)),
            bits_per_second=float(total.get("bits_per_second", 0.0)), retransmits=total.get("retransmits"),
            snd_cwnd=stream.get("snd_cwnd"), rtt_ms=None if rtt is None else rtt / 1000.0,
            stream_bytes=tuple(int(s.get("bytes", 0)) for s in interval.get("streams") or []),
        ))
    end = doc.get("end") or {}
    sent, received = end.get("sum_sent") or {}, end.get("sum_received") or {}
    out.sent_bps = sent.get("bits_per_second")
    out.received_bps = received.get("bits_per_second")
    out.received_stream_bps = tuple(float((st.get("receiver") or {}).get("bits_per_second", 0.0))
                                    for st in end.get("streams") or [])
    out.retransmits = sent.get("retransmits")
    out.congestion = end.get("sender_tcp_congestion")
    return out


def read_iperf3(path: Path) -> TcpResult:
    if not path.exists():
        return TcpResult(error=f"{path.name} missing: the flow did not run to its end")
    return parse_iperf3(path.read_text(errors="replace"))


@dataclass(frozen=True)
class Datagram:
    seq: int
    t_sched_ns: int
    t_ns: int  # sent (sender) or received (sink)
    size: int
    ok: bool = True  # sender: the host took it


@dataclass
class UdpRecords:
    datagrams: list[Datagram] = field(default_factory=list)
    end: int | None = None  # the `end N` line: the process finished and said how many


def parse_udpgen(lines: list[str]) -> UdpRecords:
    """Sender (`tx`) or sink (`rx`) records; unknown or cut lines are skipped."""
    out = UdpRecords()
    for line in lines:
        f = line.split()
        try:
            if f[:1] == ["tx"] and len(f) == 6:
                out.datagrams.append(Datagram(int(f[3]), int(f[1]), int(f[2]), int(f[4]), f[5] == "ok"))
            elif f[:1] == ["rx"] and len(f) == 5:
                out.datagrams.append(Datagram(int(f[2]), int(f[3]), int(f[1]), int(f[4])))
            elif f[:1] == ["end"] and len(f) == 2:
                out.end = int(f[1])
        except ValueError:
            continue
    return out


def read_udpgen(path: Path) -> UdpRecords:
    return parse_udpgen(path.read_text(errors="replace").splitlines()) if path.exists() else UdpRecords()


def as_dict(result: TcpResult) -> dict[str, Any]:
    return {"sent_bps": result.sent_bps, "received_bps": result.received_bps, "retransmits": result.retransmits,
            "congestion": result.congestion, "error": result.error}
