"""Video frames of a `type: video` association: each frame's messages put back together.

A frame is delivered when every message it was cut into arrived; its MTT runs from the
time the schedule wanted it sent (T_SCHED of its first message) to the arrival of its last
message. A frame is late when it was not delivered, or delivered past the playout deadline.
The messages' frames come from the schedule file the client replayed (plan/schedule.py),
the agent's sequence number i being the schedule's i-th message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sctpbench.plan import schedule


@dataclass(frozen=True)
class Sent:
    """One message as the records have it: when it was due and when it arrived (None: never)."""

    seq: int
    t_sched_ns: int | None
    t_rx_ns: int | None


def frame_rows(messages: Sequence[schedule.Message], sent: Sequence[Sent], deadline_ns: int, association: str,
               t0_ns: int | None) -> list[dict[str, Any]]:
    """One row per frame the client sent a message of, in schedule order."""
    expected: dict[int, int] = {}
    for m in messages:
        if m.frame is not None:
            expected[m.frame] = expected.get(m.frame, 0) + 1
    pieces: dict[int, list[tuple[schedule.Message, Sent]]] = {}
    for s in sent:
        frame = messages[s.seq].frame if 0 <= s.seq < len(messages) else None
        if frame is not None:
            pieces.setdefault(frame, []).append((messages[s.seq], s))
    return [_row(frame, got, expected[frame], deadline_ns, association, t0_ns) for frame, got in pieces.items()]


def _row(frame: int, got: list[tuple[schedule.Message, Sent]], expected: int, deadline_ns: int, association: str,
         t0_ns: int | None) -> dict[str, Any]:
    """A frame of which the client sent `got` of its `expected` messages."""
    first = got[0]
    sched = first[1].t_sched_ns
    arrivals = [s.t_rx_ns for _, s in got if s.t_rx_ns is not None]
    complete = len(arrivals) == expected and sched is not None
    last = max(arrivals) if complete else None
    mtt = last - sched if last is not None and sched is not None else None
    return {
        "association": association, "frame": frame, "type": first[0].frame_type, "messages": expected,
        "bytes": sum(m.size for m, _ in got), "delivered": len(arrivals), "t_sched_ns": sched,
        "t_rel_ns": sched - t0_ns if sched is not None and t0_ns is not None else None,
        "t_last_rx_ns": last, "mtt_ns": mtt, "late": mtt is None or mtt > deadline_ns,
    }


def frame_metrics(rows: Sequence[dict[str, Any]], deadline_ns: int) -> dict[str, Any]:
    """Frames sent, delivered and late, and the frame MTT, overall and per frame type."""
    out = _figures(rows)
    out["deadline_ms"] = deadline_ns / 1e6
    out["by_type"] = {t: _figures([r for r in rows if r["type"] == t]) for t in sorted({str(r["type"]) for r in rows})}
    return out


def _figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    mtts = sorted(r["mtt_ns"] / 1e6 for r in rows if r["mtt_ns"] is not None)
    late = sum(1 for r in rows if r["late"])
    return {
        "frames": len(rows), "delivered": len(mtts), "late": late,
        "late_share": late / len(rows) if rows else None,
        "mtt_p50_ms": float(np.percentile(mtts, 50)) if mtts else None,
        "mtt_p99_ms": float(np.percentile(mtts, 99)) if mtts else None,
        "mtt_max_ms": mtts[-1] if mtts else None,
    }
