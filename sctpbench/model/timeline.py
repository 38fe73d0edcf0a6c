"""The experiment's events made into primitive steps on one time axis.

Each event kind expands itself (model/events/: a flap into fail/restore pairs, a trace into
degrade steps, a ping-pong movement into seeded degrade steps that swap two paths'
conditions); here the steps are put in time order and shaping changes accumulate, so each
degrade step carries the complete values of its direction at that moment. The plan turns
steps into commands (each primitive kind's `render`).

Trace file format (one step per line, `#` starts a comment):

    # time   value
    0s       20ms
    2.5s     80ms
    7s       20ms

Times are offsets from the event's `at` (a bare number is seconds); values are in the
field's unit (`delay`: a duration, `rate`: a rate, `loss`: a percentage). Mahimahi
packet-delivery traces (one line per 1500-byte delivery opportunity, its time in ms) convert
to rate steps with `sctpbench trace mahimahi FILE --window 100ms` (`mahimahi_rate_steps`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from sctpbench.model import units

DIRECTIONS: tuple[Literal["forward", "reverse"], ...] = ("forward", "reverse")
FIELD_PARSERS = {"delay": units.parse_delay, "rate": units.parse_rate, "loss": units.parse_percent}


@dataclass(frozen=True)
class Step:
    at_ns: int
    kind: str  # a primitive event kind: fail, restore, primary, degrade, down, up, …
    path: str  # for primary: a path name or a peer address
    direction: str | None = None  # degrade only
    values: dict[str, Any] = field(default_factory=dict)  # degrade: the direction's complete shaping
    origin: str = ""  # the event this step comes from, for the records


def parse_trace(text: str, field_name: str, source: str) -> list[tuple[int, Any]]:
    """`time value` rows → [(offset ns, value)]; raises ValueError naming source:line."""
    steps: list[tuple[int, Any]] = []
    parse = FIELD_PARSERS[field_name]
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{source}:{number}: expected 'time value', got {raw.strip()!r}")
        time_text, value_text = parts
        try:
            offset = units.parse_duration(time_text if not _is_number(time_text) else f"{time_text}s")
            value = parse(value_text)
        except ValueError as e:
            raise ValueError(f"{source}:{number}: {e}") from None
        if steps and offset < steps[-1][0]:
            raise ValueError(f"{source}:{number}: times must not go backwards")
        steps.append((offset, value))
    if not steps:
        raise ValueError(f"{source}: no steps")
    return steps


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class Expandable(Protocol):
    """An event of any kind (model/events/): it knows its own primitive steps."""

    def expand(self, seed: int, end_ns: int) -> list[Step]: ...


def expand(events: Sequence[Expandable], shaping: dict[str, dict[str, dict[str, Any]]], seed: int, end_ns: int) -> list[Step]:
    """events: validated spec events; shaping: path → direction → configured values."""
    raw: list[Step] = []
    for ev in events:
        raw += ev.expand(seed, end_ns)
    raw.sort(key=lambda s: s.at_ns)  # stable: steps at one instant keep the file's order
    state = copy.deepcopy(shaping)
    steps: list[Step] = []
    for step in raw:
        if step.kind != "degrade":
            steps.append(step)
            continue
        assert step.direction is not None
        for direction in DIRECTIONS if step.direction == "both" else (step.direction,):
            state[step.path][direction] |= step.values
            steps.append(Step(step.at_ns, "degrade", step.path, direction, dict(state[step.path][direction]), step.origin))
    return steps


MAHIMAHI_PACKET_BYTES = 1500
# tbf cannot shape to zero; a window without delivery opportunities gets this instead.
MIN_RATE_BPS = 1000


def mahimahi_rate_steps(text: str, window_ns: int, source: str) -> list[tuple[int, int]]:
    """Delivery opportunities per window → (offset ns, rate bit/s), equal neighbours merged."""
    times: list[int] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if not line.isdigit():
            raise ValueError(f"{source}:{number}: expected a time in ms, got {line!r}")
        times.append(int(line) * 1_000_000)
    if not times:
        raise ValueError(f"{source}: no delivery opportunities")
    bins = [0] * (times[-1] // window_ns + 1)
    for t in times:
        bins[t // window_ns] += 1
    steps: list[tuple[int, int]] = []
    for k, count in enumerate(bins):
        rate = max(MIN_RATE_BPS, round(count * MAHIMAHI_PACKET_BYTES * 8 / (window_ns / 1e9)))
        if not steps or steps[-1][1] != rate:
            steps.append((k * window_ns, rate))
    return steps


def format_trace(steps: list[tuple[int, int]], field_name: str) -> str:
    fmt = {"rate": units.format_rate, "delay": units.format_duration}.get(field_name, str)
    return "".join(f"{units.format_duration(t)} {fmt(v)}\n" for t, v in steps)
