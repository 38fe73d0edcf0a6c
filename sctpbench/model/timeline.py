"""The experiment's events made into primitive steps on one time axis.

Compound events expand here, deterministically: a flap into fail/restore pairs, a trace
into degrade steps, a ping-pong movement into seeded degrade steps that swap two paths'
conditions. Shaping changes accumulate, so each degrade step carries the complete values
of its direction at that moment. The plan turns steps into commands.

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
import random
from dataclasses import dataclass, field
from typing import Any

from sctpbench.model import units

DIRECTIONS = ("forward", "reverse")
FIELD_PARSERS = {"delay": units.parse_delay, "rate": units.parse_rate, "loss": units.parse_percent}


@dataclass(frozen=True)
class Step:
    at_ns: int
    kind: str  # fail, restore, primary, degrade, down, up
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


def expand(events: list[Any], shaping: dict[str, dict[str, dict[str, Any]]], seed: int, end_ns: int) -> list[Step]:
    """events: validated spec events; shaping: path → direction → configured values."""
    raw: list[Step] = []
    for ev in events:
        raw += _expand_one(ev, seed, end_ns)
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


def _expand_one(ev: Any, seed: int, end_ns: int) -> list[Step]:
    action, target = ev.action, ev.target
    if action in ("fail", "restore", "primary", "down", "up"):
        return [Step(ev.at, action, target, origin=action)]
    if action == "degrade":
        return [Step(ev.at, "degrade", target, ev.direction, _changes(ev.set), origin="degrade")]
    if action == "flap":
        return _flap(ev, end_ns)
    if action == "trace":
        return [
            Step(ev.at + offset, "degrade", target, ev.direction, {ev.field: value}, origin=f"trace {ev.field}")
            for offset, value in ev.steps
        ]
    if action == "pingpong":
        return _pingpong(ev, seed, end_ns)
    raise ValueError(f"unknown event action {action!r}")


def _changes(override: Any) -> dict[str, Any]:
    return {k: (v.model_dump() if hasattr(v, "model_dump") else v) for k, v in override if v is not None}


def _flap(ev: Any, end_ns: int) -> list[Step]:
    until = ev.until if ev.until is not None else end_ns
    down_ns = round(ev.period * ev.duty)
    steps: list[Step] = []
    k = 0
    while (ev.count is None or k < ev.count) and ev.at + k * ev.period < until:
        start = ev.at + k * ev.period
        steps += [Step(start, "fail", ev.target, origin="flap"), Step(start + down_ns, "restore", ev.target, origin="flap")]
        k += 1
    return steps


def _pingpong(ev: Any, seed: int, end_ns: int) -> list[Step]:
    """A terminal moving back and forth between two access networks: at each move the
    two paths swap their `good` and `bad` conditions; dwell times are drawn uniformly from
    `dwell` with the run's seed, so a repetition moves exactly the same way."""
    rng = random.Random(f"pingpong:{seed}:{ev.at}")
    first, second = ev.pingpong
    good, bad = _changes(ev.good), _changes(ev.bad)
    until = ev.until if ev.until is not None else end_ns
    steps: list[Step] = []
    t, on_first = ev.at, True
    while t < until:
        near, far = (first, second) if on_first else (second, first)
        origin = f"pingpong to {near}"
        steps += [Step(t, "degrade", near, "both", good, origin), Step(t, "degrade", far, "both", bad, origin)]
        t += rng.randint(ev.dwell[0], ev.dwell[1])
        on_first = not on_first
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
