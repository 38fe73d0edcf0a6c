"""Packets sent on a path with another path's source address, from the captures.

A path of the testbed is a wire between two interfaces, each with its own address. A
packet that leaves on path P with a source address of the association's that belongs to
another path Q is on the wrong path for its source: on a real multihomed host its replies
(SACKs go to the source address of the DATA they acknowledge, RFC 9260 6.4) come back over
Q, and an access network with ingress filtering (BCP 38) drops it. Linux SCTP sends such
packets where it may not use the source address the route would give:
- a new address is not a source until the ASCONF that adds it is acknowledged (RFC 5061
  5.3 F1), so DATA on a new primary set before that keeps the old address;
- retransmissions to an alternate peer address, and heartbeats to one, leave with a bound
  address whose interface is not the route's when no bound address is on it.
Without per-source routing (topology.source_routing) the main table sends each packet out of
the interface of its destination, so these packets cross the destination's path; with it
they cross their source's. Each end's packets are counted in its own capture of each path
(captures/<path>-<host>.pcap), where they leave the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench.collectors import captures
from sctpbench.plan.data import Association


@dataclass(frozen=True)
class ForeignSource:
    """One packet on a path with another path's source address, as captured where it left."""

    t_rel_ns: int
    path: str  # the path it was on
    sender: str  # client or server
    src: str
    dst: str
    chunks: str  # its chunk types, e.g. "DATA DATA" or "HEARTBEAT"

    def to_dict(self) -> dict[str, Any]:
        return {"t_rel_s": self.t_rel_ns / 1e9, "path": self.path, "sender": self.sender, "src": self.src, "dst": self.dst,
                "chunks": self.chunks}


def _own_addresses(assoc: Association) -> dict[str, dict[str, set[str]]]:
    """Per path, per end (client, server): the end's own addresses on that path."""
    out: dict[str, dict[str, set[str]]] = {}
    for p in assoc.paths:
        ends = out.setdefault(p.path, {"client": set(), "server": set()})
        ends["client"].add(p.client_address)
        ends["server"].add(p.server_address)
    return out


def foreign_sources(run_dir: Path, assoc: Association, t0_realtime_ns: int) -> list[ForeignSource]:
    """Every packet of the association sent on a path with a source address of the same end
    that belongs to another path, in time order. A missing capture file counts nothing."""
    own = _own_addresses(assoc)
    everyone = {end: set().union(*(o[end] for o in own.values())) for end in ("client", "server")}
    hosts = {"client": assoc.client, "server": assoc.server}
    port = int(assoc.workload["port"])
    out = []
    for path, ends in own.items():
        for end, host in hosts.items():
            others = everyone[end] - ends[end]
            file = run_dir / "captures" / f"{path}-{host}.pcap"
            if not others or not file.exists():
                continue
            for p in captures.read(file, captures.from_sources(others)):
                if port in (p.sport, p.dport):
                    out.append(ForeignSource(p.time_ns - t0_realtime_ns, path, end, p.src, p.dst, " ".join(p.chunk_types)))
    return sorted(out, key=lambda f: f.t_rel_ns)


def summary(found: list[ForeignSource]) -> dict[str, Any]:
    """Counts by sender and by chunk kind (DATA-bearing packets apart), and the packets themselves."""
    return {
        "packets": len(found),
        "data_packets": sum(1 for f in found if "DATA" in f.chunks.split()),
        "by_sender": {s: sum(1 for f in found if f.sender == s) for s in ("client", "server")},
        "list": [f.to_dict() for f in found],
    }
