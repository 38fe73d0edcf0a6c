"""Handover metrics of one association: each change of the client's primary path (and each
move of a ping-pong terminal), how long the new path took to deliver, MTT around it, how
often the primary changed, how long each path was primary and what each path delivered.

A *decision* is what starts a handover, at the moment it took effect:
- `primary`, `set_primary`, `handover`: the client's `event primary` record (PRIMARY_SET)
  of a timeline `primary` step, named after the event kind the step came from;
- `policy`: a path-selection policy's `switch` record;
- `pingpong`: a move of a ping-pong terminal (both paths' conditions swapped) towards the
  path that became good. With `switch_primary` the move's own `primary` step makes that path
  the primary (the PRIMARY_SET record is the decision, as above). Without it the move
  changes no primary, and the first step of a ping-pong is where the terminal starts, not a
  move: a move is there so that a policy's (or the stack's) reaction shows as its delay.
A primary step or policy switch to the path that already is the primary changes nothing and
is no switch. The primary at the start is the association's first path (its INIT's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sctpbench.analysis.metrics import Message
from sctpbench.collectors import records

# The window of generation times around a decision whose messages give the handover's MTT
# and MMTT: from 1 s before (the old path's last moments) to 2 s after (the new path's
# start, slow start included). One place, so a test and the docs (docs/results.md, "Metrics") can name it.
WINDOW_BEFORE_NS = 1_000_000_000
WINDOW_AFTER_NS = 2_000_000_000

PINGPONG = "pingpong"
POLICY = "policy"
PRIMARY_CAUSES = ("primary", "set_primary", "handover")
_PINGPONG_STEP = "pingpong to "  # a ping-pong step's origin, in its timeline detail
_PINGPONG_ORIGIN = re.compile(r"\(pingpong to ([^)]+)\)$")


@dataclass(frozen=True)
class Decision:
    t_ns: int
    to: str  # the path handed over to
    cause: str  # primary, set_primary, handover, policy or pingpong
    away: str | None = None  # a ping-pong move that sets no primary: the path the terminal moved away from
    changes_primary: bool = True  # False: a ping-pong move that only changed the paths' conditions


@dataclass(frozen=True)
class Switch:
    """One handover: its decision, the path before, and what the messages around it saw."""

    t_ns: int
    from_path: str | None
    to: str
    cause: str
    delay_ns: int | None  # decision → first message delivered over `to` after it; None: none was
    window: tuple[Message, ...]  # messages generated in [t − WINDOW_BEFORE_NS, t + WINDOW_AFTER_NS)

    def to_dict(self, t0_ns: int | None) -> dict[str, Any]:
        mtts = _mtts(self.window)
        return {
            "t_rel_s": None if t0_ns is None else (self.t_ns - t0_ns) / 1e9,
            "from": self.from_path, "to": self.to, "cause": self.cause,
            "delay_ms": None if self.delay_ns is None else self.delay_ns / 1e6,
            "mtt_mean_ms": float(mtts.mean()) / 1e6 if mtts.size else None,
            "mmtt_ms": float(mtts.max()) / 1e6 if mtts.size else None,
            "messages": len(self.window),
            "undelivered": sum(1 for m in self.window if m.t_rx_ns is None),
        }


def _mtts(messages: Iterable[Message]) -> np.ndarray:
    return np.array([m.mtt_ns for m in messages if m.mtt_ns is not None], dtype=float)


# ---------------------------------------------------------------------------- decisions


def decisions(client: records.Records, events: list[dict[str, Any]], path_of: dict[str, str],
              paths: list[str]) -> list[Decision]:
    """An association's decisions from its client's records and the run's timeline
    (events.jsonl), in time order; `paths` are the association's own."""
    primary_steps = sorted((e for e in events if e["kind"] == "primary"), key=lambda e: e["scheduled_ns"])
    out = [Decision(t, path_of[addr], _cause(primary_steps, t)) for t, name, addr in client.events
           if name == "primary" and addr in path_of]
    out += [Decision(d.t_ns, path_of[d.after], POLICY) for d in client.policy if d.decision == "switch" and d.after in path_of]
    # A move that sets the primary (switch_primary) is already its primary step's decision.
    switched = {e["at_ns"] for e in primary_steps if (e.get("detail") or "").startswith(_PINGPONG_STEP)}
    out += [m for at, m in pingpong_moves(events) if at not in switched and m.to in paths and m.away in paths]
    return sorted(out, key=lambda d: d.t_ns)


def _cause(primary_steps: list[dict[str, Any]], t_ns: int) -> str:
    """The event kind behind a primary change: the last timeline `primary` step scheduled at or
    before it (its detail names the kind that made it, empty for a plain `primary`)."""
    before = [e for e in primary_steps if e["scheduled_ns"] <= t_ns]
    detail = (before[-1].get("detail") or "") if before else ""
    if detail.startswith(_PINGPONG_STEP):
        return PINGPONG
    return detail if detail in PRIMARY_CAUSES else "primary"


def pingpong_moves(events: list[dict[str, Any]]) -> list[tuple[int, Decision]]:
    """Each ping-pong move after the first step of its pair of paths, at the moment its last
    change of the paths' conditions was applied, with the time it was planned for (at_ns)."""
    steps: dict[tuple[int, str], dict[str, Any]] = {}
    for e in events:
        found = _PINGPONG_ORIGIN.search(e.get("detail") or "") if e["kind"] == "degrade" else None
        if found:
            step = steps.setdefault((e["at_ns"], found.group(1)), {"paths": set(), "applied_ns": e["applied_ns"]})
            step["paths"].add(e["target"])
            step["applied_ns"] = max(step["applied_ns"], e["applied_ns"])
    seen: set[frozenset[str]] = set()
    moves = []
    for (at, to), step in sorted(steps.items()):
        pair = frozenset(step["paths"])
        if pair in seen:
            away = sorted(pair - {to})
            moves.append((at, Decision(step["applied_ns"], to, PINGPONG, away[0] if away else None, changes_primary=False)))
        seen.add(pair)
    return moves


# ---------------------------------------------------------------------------- switches


def primary_changes(initial: str, decisions_: Iterable[Decision]) -> list[tuple[int, str]]:
    """(time, new primary) of every decision that changed the primary."""
    current, out = initial, []
    for d in sorted(decisions_, key=lambda d: d.t_ns):
        if d.changes_primary and d.to != current:
            out.append((d.t_ns, d.to))
            current = d.to
    return out


def switches(initial: str, decisions_: Iterable[Decision], messages: list[Message]) -> list[Switch]:
    """Every handover: each primary change and each ping-pong move, with its delay and window."""
    current, out = initial, []
    for d in sorted(decisions_, key=lambda d: d.t_ns):
        before: str | None
        if d.changes_primary:
            if d.to == current:
                continue
            before, current = current, d.to
        else:
            before = d.away
        out.append(Switch(d.t_ns, before, d.to, d.cause, delay_ns(d.t_ns, d.to, messages),
                          tuple(in_window(d.t_ns, messages))))
    return out


def delay_ns(t_ns: int, path: str, messages: Iterable[Message]) -> int | None:
    """Decision → the first delivery over `path` at or after it."""
    times = [m.t_rx_ns for m in messages if m.path == path and m.t_rx_ns is not None and m.t_rx_ns >= t_ns]
    return min(times) - t_ns if times else None


def in_window(t_ns: int, messages: Iterable[Message]) -> list[Message]:
    return [m for m in messages if t_ns - WINDOW_BEFORE_NS <= m.t_gen_ns < t_ns + WINDOW_AFTER_NS]


# ---------------------------------------------------------------------------- per path


def time_on_paths(initial: str, changes: list[tuple[int, str]], start_ns: int, end_ns: int) -> dict[str, float]:
    """Seconds each path was the primary between the workload's start and end."""
    out: dict[str, float] = {initial: 0.0}
    current, since = initial, start_ns
    for t, path in changes:
        if t >= end_ns:
            break
        if t > since:
            out[current] = out.get(current, 0.0) + (t - since) / 1e9
            since = t
        current = path
        out.setdefault(current, 0.0)
    out[current] = out.get(current, 0.0) + max(end_ns - since, 0) / 1e9
    return out


def delivered_share(messages: Iterable[Message]) -> dict[str, float]:
    """The fraction of delivered messages that arrived over each path."""
    counts: dict[str, int] = {}
    for m in messages:
        if m.t_rx_ns is not None and m.path:
            counts[m.path] = counts.get(m.path, 0) + 1
    total = sum(counts.values())
    return {p: n / total for p, n in sorted(counts.items())}


# ---------------------------------------------------------------------------- metrics


def handover_metrics(switch_list: list[Switch], path_switches: int) -> dict[str, float | int | None]:
    """Over the switches given (one association's, or every association's):
    handover delay mean and max of the switches that delivered over their new path; MTT
    mean and MMTT of the messages generated in any switch's window (each once)."""
    delays = [s.delay_ns / 1e6 for s in switch_list if s.delay_ns is not None]
    mtts = _mtts(_unique(switch_list))
    return {
        "handover_delay_ms": sum(delays) / len(delays) if delays else None,
        "handover_delay_max_ms": max(delays) if delays else None,
        "handover_mtt_mean_ms": float(mtts.mean()) / 1e6 if mtts.size else None,
        "handover_mmtt_ms": float(mtts.max()) / 1e6 if mtts.size else None,
        "path_switches": path_switches,
    }


def _unique(switch_list: list[Switch]) -> list[Message]:
    """The window messages of every switch, each once. Overlapping windows hold the same
    Message objects, while two associations' messages may be equal in value (same seq and
    times): identity, not equality, tells them apart."""
    seen: dict[int, Message] = {}
    for s in switch_list:
        for m in s.window:
            seen.setdefault(id(m), m)
    return list(seen.values())
