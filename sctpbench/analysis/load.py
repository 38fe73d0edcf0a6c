"""Offered load per path: what the senders offered, over the path's capacity (seed 003's
utilisation, extended to several paths).

An association's load is counted on its first path, the primary it starts on, in the
direction from its client; the bytes are those the client's records show it sent, as the
rate limiter charges them (Ethernet, IPv4 and SCTP headers, plan/schedule.wire_bytes), over
the workload's duration. A path without a rate has no capacity, so no utilisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sctpbench.plan.data import Link


@dataclass(frozen=True)
class Offered:
    """A sender's measured load on one direction of a path."""

    source: str  # an association, or a background flow
    path: str
    direction: str  # forward (first host to second) or reverse
    bps: float  # on the wire


def direction_from(link: Link, host: str) -> str:
    return "forward" if link.a.host == host else "reverse"


def per_path(links: list[Link], offered: list[Offered]) -> list[dict[str, Any]]:
    """One row per path and direction that carries load: capacity, offered load, utilisation."""
    rows = []
    for link in links:
        for direction in ("forward", "reverse"):
            mine = [o for o in offered if o.path == link.path and o.direction == direction]
            if not mine:
                continue
            capacity = link.shaping[direction].get("rate")
            total = sum(o.bps for o in mine)
            rows.append({
                "path": link.path, "direction": direction, "capacity_bps": capacity, "offered_bps": total,
                "utilisation": total / capacity if capacity else None, "sources": sorted(o.source for o in mine),
            })
    return rows


def share(links: list[Link], offered: Offered | None) -> float | None:
    """One sender's load over its path's capacity in its direction (None without a rate)."""
    if offered is None:
        return None
    capacity = next(x for x in links if x.path == offered.path).shaping[offered.direction].get("rate")
    return offered.bps / capacity if capacity else None
