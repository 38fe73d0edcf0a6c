"""Cumulative TSN acknowledged over time (seed 004's handover metric), from the client's captures.

Every SACK that reaches the client carries the cumulative TSN ack: the last DATA chunk the
server has received with none missing before it. Counted from the client's initial TSN
(its INIT's), it is the number of DATA chunks acknowledged in sequence: 0 before the first,
the number of chunks the client sent once all are acknowledged. The client's capture of
each path (captures/<path>-<client host>.pcap) sees a SACK as it arrives: shaping is on
egress, so nothing delays a packet between the wire and that capture. Times are capture
times (the guest's CLOCK_REALTIME) less t0's (backend.json's t0_realtime_ns).

A SACK that crossed a slower path may arrive after a newer one: the table keeps what
arrived, so it shows as a dip, which the sender ignores (RFC 9260 6.2.1: a SACK whose
cumulative TSN ack is below the one it has is out of order).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from sctpbench.collectors import captures
from sctpbench.plan.data import Association

TSN_SPACE = 1 << 32
# INIT (for the initial TSN) and SACK packets only: tshark need not hand over every DATA packet.
INIT_OR_SACK = f"sctp.chunk_type == {captures.CHUNK_INIT} || sctp.chunk_type == {captures.CHUNK_SACK}"
CUM_TSN_SCHEMA = pa.schema([
    ("association", pa.string()), ("t_rel_ns", pa.int64()), ("cum_tsn_ack", pa.int64()), ("path", pa.string()),
])


@dataclass(frozen=True)
class Ends:
    """Who is who in an association's packets: the client's and server's addresses, the server's port."""

    client: frozenset[str]
    server: frozenset[str]
    port: int

    @classmethod
    def of(cls, assoc: Association) -> Ends:
        return cls(frozenset(p.client_address for p in assoc.paths), frozenset(p.server_address for p in assoc.paths),
                   int(assoc.workload["port"]))

    def from_client(self, p: captures.Packet) -> bool:
        return p.src in self.client and p.dst in self.server and p.dport == self.port

    def to_client(self, p: captures.Packet) -> bool:
        return p.src in self.server and p.dst in self.client and p.sport == self.port


def initial_tsn(packets: list[captures.Packet], ends: Ends) -> int | None:
    """The initial TSN of the client's first INIT (a retransmitted INIT keeps it)."""
    for p in sorted(packets, key=lambda p: p.time_ns):
        if ends.from_client(p):
            for c in p.chunks:
                if c.initial_tsn is not None:
                    return c.initial_tsn
    return None


def rows(association: str, ends: Ends, by_path: dict[str, list[captures.Packet]], t0_realtime_ns: int) -> list[dict[str, Any]]:
    """One row per SACK the client received, in arrival order: its cumulative TSN ack
    counted from the initial TSN (modulo 2³², so a wrap changes nothing)."""
    initial = initial_tsn([p for packets in by_path.values() for p in packets], ends)
    if initial is None:
        raise ValueError(f"association {association}: no INIT of the client in its captures, so no initial TSN")
    out = [
        {"association": association, "t_rel_ns": p.time_ns - t0_realtime_ns,
         "cum_tsn_ack": (c.cum_tsn - initial + 1) % TSN_SPACE, "path": path}
        for path, packets in by_path.items() for p in packets if ends.to_client(p)
        for c in p.chunks if c.cum_tsn is not None
    ]
    return sorted(out, key=lambda r: r["t_rel_ns"])


def client_packets(run_dir: Path, assoc: Association, where: str,
                   read_files: dict[Path, list[captures.Packet]] | None = None) -> dict[str, list[captures.Packet]]:
    """The packets matching `where` (at least INIT_OR_SACK's) in the client's capture of each
    of the association's paths. Associations between the same hosts share capture files:
    pass one `read_files` to read each once."""
    cache = {} if read_files is None else read_files
    by_path = {}
    for path in dict.fromkeys(assoc.path_names):
        file = run_dir / "captures" / f"{path}-{assoc.client}.pcap"
        if file not in cache:
            cache[file] = captures.read(file, where) if file.exists() else []
        by_path[path] = cache[file]
    return by_path


def summary(table: list[dict[str, Any]]) -> dict[str, Any]:
    """Per association: SACKs seen and the last cumulative TSN ack (chunks acknowledged)."""
    out: dict[str, Any] = {}
    for r in table:
        a = out.setdefault(r["association"], {"sacks": 0, "last_cum_tsn_ack": None})
        a["sacks"] += 1
        a["last_cum_tsn_ack"] = r["cum_tsn_ack"]
    return out
