"""The `signal` policy's emulated signal strength: per path, a value in dBm over time.

File format (one point a line, `#` starts a comment), read relative to the experiment:

    # time   path       dBm
    0s       primary    -60
    0s       secondary  -95
    4s       primary    -82.5

TIME is from t0 (the run's time 0, like an event's `at`) in the duration syntax, or a bare
number of seconds; PATH a path of the association; DBM a number from -200 to 50. Times
must not decrease. A path's value holds from its point until its next; before its first
point it has none. The agent gets the points as its peer addresses and offsets from the
association's start (plan/signal.py; workloads/agent/RECORDS.md, "Signal files").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from sctpbench.model import units

DBM_MIN = -200.0
DBM_MAX = 50.0
FORMAT_HELP = "lines 'TIME PATH DBM'"
Point = tuple[int, str, float]


def parse(text: str, source: str, key: str, paths: Sequence[str]) -> list[Point]:
    """`time path dBm` lines → [(ns from t0, path, dBm)]; ValueError `source:line: key: …; allowed: …`."""
    lines = [(f"{source}:{number}: {key}", raw.split("#", 1)[0].split()) for number, raw in enumerate(text.splitlines(), 1)]
    return _collect([(where, fields) for where, fields in lines if fields], f"{source}: {key}", paths)


def inline(points: Sequence[Sequence[object]], where: Callable[[int], str], key: str, paths: Sequence[str]) -> list[Point]:
    """Points written in the experiment (`points: [[time, path, dBm], ...]`), checked alike;
    `where(i)` is the file and line of point i."""
    return _collect([(f"{where(i)}: {key}.{i}", [_word(v) for v in p]) for i, p in enumerate(points)], f"{where(0)}: {key}", paths)


def _collect(items: list[tuple[str, list[str]]], whole: str, paths: Sequence[str]) -> list[Point]:
    points: list[Point] = []
    for where, fields in items:
        try:
            points.append(_point(fields, points[-1][0] if points else 0, paths))
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    if not points:
        raise ValueError(f"{whole}: no points; allowed: {FORMAT_HELP}, at least one")
    return points


def _point(fields: list[str], previous_ns: int, paths: Sequence[str]) -> Point:
    if len(fields) != 3:
        raise ValueError(f"{' '.join(fields)!r} has {len(fields)} fields; allowed: {FORMAT_HELP}")
    time_text, path, dbm_text = fields
    at = units.parse_duration(f"{time_text}s" if _is_number(time_text) else time_text)
    if path not in paths:
        raise ValueError(f"unknown path {path!r}; allowed: {', '.join(paths)} (the association's paths)")
    dbm = _dbm(dbm_text)
    if at < previous_ns:
        raise ValueError(f"{units.format_duration(at)} is before the previous point's "
                         f"{units.format_duration(previous_ns)}; allowed: times that do not decrease")
    return at, path, dbm


def _dbm(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not DBM_MIN <= value <= DBM_MAX:
        raise ValueError(f"{text!r} is not a signal strength; allowed: a number of dBm from {DBM_MIN:g} to {DBM_MAX:g}")
    return value


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return not text.lower().lstrip("+-").startswith(("nan", "inf"))


def _word(value: object) -> str:
    # An inline time is already in ns once validated: write it back with a unit.
    return units.format_duration(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
