"""Reordering at the receiver: DATA arriving out of TSN order (seed 004's second problem).

After a switch to a faster path, the DATA sent on it overtakes what is still queued on the
old one; the receiver reports the gap in its SACKs and, after enough of them, the sender
retransmits chunks that were never lost. Read from the server's captures of every path of
the association (captures/<path>-<server host>.pcap), where DATA is seen as it arrives,
merged in time. A chunk arrives *out of order* when its TSN is below the highest TSN that
arrived before it; only each TSN's first arrival counts (a second copy is a duplicate, not
a reordering). TSNs are compared in serial-number arithmetic (RFC 1982), so a wrap changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sctpbench.analysis.cumtsn import Ends
from sctpbench.collectors import captures
from sctpbench.plan.data import Association

DATA_ONLY = captures.with_chunks(captures.CHUNK_DATA)
HALF_TSN_SPACE = 1 << 31


@dataclass(frozen=True)
class Arrival:
    time_ns: int
    tsn: int
    path: str


@dataclass(frozen=True)
class Reordering:
    """What arrived: chunks (first arrivals), out of order among them, duplicates, and the
    time of each out-of-order arrival relative to t0."""

    chunks: int
    out_of_order: int
    duplicates: int
    out_of_order_t_rel_ns: tuple[int, ...]

    def to_dict(self) -> dict[str, int | list[float]]:
        return {"chunks": self.chunks, "out_of_order": self.out_of_order, "duplicates": self.duplicates,
                "out_of_order_t_rel_s": [t / 1e9 for t in self.out_of_order_t_rel_ns]}


def _after(a: int, b: int) -> bool:
    """TSN a comes after b (serial-number arithmetic)."""
    return a != b and (a - b) % (1 << 32) < HALF_TSN_SPACE


def count(arrivals: list[Arrival], t0_realtime_ns: int) -> Reordering:
    """Reordering among arrivals (any order given; sorted by time here, ties kept in the given order)."""
    seen: set[int] = set()
    highest: int | None = None
    late: list[int] = []
    duplicates = 0
    for a in sorted(arrivals, key=lambda a: a.time_ns):
        if a.tsn in seen:
            duplicates += 1
            continue
        seen.add(a.tsn)
        if highest is not None and _after(highest, a.tsn):
            late.append(a.time_ns - t0_realtime_ns)
        if highest is None or _after(a.tsn, highest):
            highest = a.tsn
    return Reordering(len(seen), len(late), duplicates, tuple(late))


def server_arrivals(run_dir: Path, assoc: Association) -> list[Arrival]:
    """Every DATA chunk of the client that reached the server, per path, from the server's captures."""
    ends = Ends.of(assoc)
    out = []
    for path in dict.fromkeys(assoc.path_names):
        file = run_dir / "captures" / f"{path}-{assoc.server}.pcap"
        if not file.exists():
            continue
        out += [Arrival(p.time_ns, tsn, path) for p in captures.read(file, DATA_ONLY) if ends.from_client(p) for tsn in p.tsns]
    return out
