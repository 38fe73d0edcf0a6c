"""Each address reconfiguration a client asked for (RFC 5061), from its request to the
ASCONF-ACK that completed it: the agent's records and the client's captures together.

The agent records when it asked (`event addaddr`, `peerprimary`, `deladdr`: the ASCONF_*
rows of path_events.parquet). The client's capture of each path
(captures/<path>-<client host>.pcap) shows each ASCONF on the wire and the ASCONF-ACK that
answers it (the same serial number, RFC 5061 4.1) arriving: when the change took effect at
both ends. A capture sees an outgoing packet when it leaves the host's qdiscs, so on a
direct path (shaped on the host's egress) the ASCONF's wire time is after the path's
forward delay; with `topology.emulator` it is when the request left. An incoming packet is
seen as it arrives. Linux sends the requests one ASCONF each, in order, with increasing
serials, so the n-th request of a client is its n-th serial. Times are relative to t0:
capture times (CLOCK_REALTIME) less t0_realtime_ns, record times less t0_ns.
"""

from __future__ import annotations

from typing import Any

from sctpbench.analysis.cumtsn import Ends
from sctpbench.collectors import captures

WIRE_FILTER = captures.with_chunks(captures.CHUNK_ASCONF, captures.CHUNK_ASCONF_ACK)


def exchanges(ends: Ends, by_path: dict[str, list[captures.Packet]], t0_realtime_ns: int) -> list[dict[str, Any]]:
    """Per ASCONF the client sent, in serial order: when (its first transmission) and over which
    path it was on the wire, when and over which path its ASCONF-ACK arrived (None: none seen)."""
    sent: dict[int, tuple[int, str]] = {}
    acked: dict[int, tuple[int, str]] = {}
    for path, packets in by_path.items():
        for p in packets:
            for c in p.chunks:
                if c.serial is None:
                    continue
                if c.type == captures.CHUNK_ASCONF and ends.from_client(p):
                    _earliest(sent, c.serial, p.time_ns, path)
                elif c.type == captures.CHUNK_ASCONF_ACK and ends.to_client(p):
                    _earliest(acked, c.serial, p.time_ns, path)
    out = []
    for serial in sorted(sent):
        t_wire, path = sent[serial]
        ack = acked.get(serial)
        out.append({"serial": serial, "wire_rel_ns": t_wire - t0_realtime_ns, "path": path,
                    "acked_rel_ns": None if ack is None else ack[0] - t0_realtime_ns,
                    "ack_path": None if ack is None else ack[1]})
    return out


def _earliest(seen: dict[int, tuple[int, str]], serial: int, t_ns: int, path: str) -> None:
    """A retransmission keeps the first time the serial was seen."""
    if serial not in seen or t_ns < seen[serial][0]:
        seen[serial] = (t_ns, path)


def completions(requests: list[tuple[int, str]], wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The client's requests ((t_rel_ns, kind) in order) each with its exchange on the wire and
    `completed_ms`, from the request to its ASCONF-ACK; a request the capture did not see
    (or before captures) has only its own time."""
    out = []
    for i, (t_rel, kind) in enumerate(requests):
        x = wire[i] if i < len(wire) else {}
        acked = x.get("acked_rel_ns")
        out.append({"request": kind, "request_rel_ns": t_rel, **x,
                    "completed_ms": None if acked is None else (acked - t_rel) / 1e6})
    return out
