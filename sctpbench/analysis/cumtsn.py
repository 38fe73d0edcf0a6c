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

import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench.collectors import captures
from sctpbench.plan.data import Association

TSN_SPACE = 1 << 32
# INIT (for the initial TSN) and SACK packets only: the DATA packets are not kept.
INIT_OR_SACK = captures.with_chunks(captures.CHUNK_INIT, captures.CHUNK_SACK)


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


def client_packets(run_dir: Path, assoc: Association, where: captures.Where,
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


# Seconds after a switch at which seed 004's figures read the chunks acknowledged, and the
# run metrics that hold them (RunMetrics: acked_0_5s_after_switch, …).
ACKED_AFTER_S = (0.5, 1.0, 2.0, 4.0)
ACKED_AFTER_METRICS = ("acked_0_5s_after_switch", "acked_1s_after_switch", "acked_2s_after_switch", "acked_4s_after_switch")
# Seconds after the workload's start at which seed 002's figures (TSN against time over a
# whole run) are read, and the run metrics that hold the chunks acknowledged by then
# (RunMetrics: acked_at_10s, …).
ACKED_AT_S = (10.0, 30.0, 60.0, 120.0)
ACKED_AT_METRICS = ("acked_at_10s", "acked_at_30s", "acked_at_60s", "acked_at_120s")
# The new path's rate is reached when the chunks acknowledged over RATE_WINDOW_NS come to
# RATE_SHARE of what the path's configured rate carries in that time.
RATE_WINDOW_NS = 500_000_000
RATE_SHARE = 0.8


def held(table: list[dict[str, Any]], association: str) -> list[tuple[int, int]]:
    """(time, cumulative TSN ack the sender holds): the highest so far, as SACKs arrived."""
    out: list[tuple[int, int]] = []
    for r in table:
        if r["association"] == association:
            best = max(r["cum_tsn_ack"], out[-1][1]) if out else r["cum_tsn_ack"]
            out.append((r["t_rel_ns"], best))
    return out


def held_at(curve: list[tuple[int, int]], t_rel_ns: int) -> int:
    """The cumulative TSN ack held at a moment (0 before the first SACK)."""
    i = bisect.bisect_right(curve, (t_rel_ns, TSN_SPACE))
    return curve[i - 1][1] if i else 0


def acked_after(curve: list[tuple[int, int]], switch_rel_ns: int, after_s: tuple[float, ...] = ACKED_AFTER_S) -> list[int | None]:
    """Chunks acknowledged from a switch to each of `after_s` seconds after it (None: the
    captures end before that moment)."""
    if not curve:
        return [None for _ in after_s]
    at_switch, last = held_at(curve, switch_rel_ns), curve[-1][0]
    return [held_at(curve, t) - at_switch if t <= last else None
            for t in (switch_rel_ns + round(s * 1e9) for s in after_s)]


def acked_at(curve: list[tuple[int, int]], start_rel_ns: int, end_rel_ns: int,
             at_s: tuple[float, ...] = ACKED_AT_S) -> list[int | None]:
    """Chunks acknowledged (the cumulative TSN ack held) at each of `at_s` seconds after the
    workload's start: bulk progress at fixed times of the run. None for a moment after the
    workload's end (`end_rel_ns`) or after the last SACK the captures hold."""
    last = curve[-1][0] if curve else None
    return [held_at(curve, t) if last is not None and t <= min(end_rel_ns, last) else None
            for t in (start_rel_ns + round(s * 1e9) for s in at_s)]


def time_to_rate(curve: list[tuple[int, int]], switch_rel_ns: int, chunks_per_s: float) -> int | None:
    """From the switch to the first moment the chunks acknowledged over the RATE_WINDOW_NS
    before it reach RATE_SHARE of `chunks_per_s` (the new path's rate in chunks), the window
    starting no earlier than the switch; None when that never happens."""
    need = RATE_SHARE * chunks_per_s * RATE_WINDOW_NS / 1e9
    for t, cum in curve:
        if t < switch_rel_ns + RATE_WINDOW_NS:
            continue
        if cum - held_at(curve, t - RATE_WINDOW_NS) >= need:
            return t - switch_rel_ns
    return None
