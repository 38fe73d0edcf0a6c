"""Modes across repetitions: groups of runs whose values sit together, apart from the others.

Seed 003 found the mean delay of a configuration bimodal: some runs settle (a mode near the
minimum delay), others keep switching paths (a mode far above), and a mean ± CI over both
describes neither. A configuration's values (one per ok run) are split into modes by gaps:
sorted, they are cut at their widest gap when that gap is

- more than twice the widest gap between neighbouring values inside either side (a side's
  spread would merge a tight group with a wide one: 56 runs at 3.7–5.3 ms and 144 at
  209–400 ms are two modes, though the gap of 204 ms is less than twice the second's 191),
- at least half the larger side's median (so 11.6 against 15.9 ms is one mode, 10 against 46 two),
- and at least a quarter of the range of all the configuration's values (so 10 and 34 ms
  stay one mode beside runs at 247 and 338 ms),

and each side is split again by the same rule. A mode is reported as its median, its range
and the share of runs in it. With a handful of runs this is a description, not a test: a
single run far from the rest is a mode of one run.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

SPREAD_FACTOR = 2.0  # the gap must exceed this many times the widest gap inside either side
RELATIVE_GAP = 0.5  # … and this fraction of the larger side's median
RANGE_GAP = 0.25  # … and this fraction of the range of all the values


@dataclass(frozen=True)
class Mode:
    """One group of runs: its median, range, and how many of the runs it holds."""

    value: float  # the median of its runs' values
    low: float
    high: float
    runs: int
    share: float  # runs / all runs of the configuration

    def text(self, digits: int = 1) -> str:
        spread = f" [{self.low:.{digits}f}–{self.high:.{digits}f}]" if self.high > self.low else ""
        return f"{self.value:.{digits}f}{spread} ({self.share:.0%}, {self.runs} run{'s' if self.runs != 1 else ''})"

    def to_dict(self) -> dict[str, float | int]:
        return {"value": self.value, "low": self.low, "high": self.high, "runs": self.runs}


def _median(xs: list[float]) -> float:
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _widest_gap(xs: list[float]) -> float:
    return max((b - a for a, b in pairwise(xs)), default=0.0)


def _separate(left: list[float], right: list[float], whole: float) -> bool:
    gap = right[0] - left[-1]
    spread = max(_widest_gap(left), _widest_gap(right))
    scale = max(abs(_median(left)), abs(_median(right)))
    return gap > 0 and gap > SPREAD_FACTOR * spread and gap >= RELATIVE_GAP * scale and gap >= RANGE_GAP * whole


def _split(xs: list[float], whole: float) -> list[list[float]]:
    if len(xs) < 2:
        return [xs]
    widest = max(range(1, len(xs)), key=lambda i: xs[i] - xs[i - 1])
    left, right = xs[:widest], xs[widest:]
    if not _separate(left, right, whole):
        return [xs]
    return _split(left, whole) + _split(right, whole)


def modes(values: list[float | None]) -> list[Mode]:
    """The modes of a configuration's values (None and NaN left out), lowest first."""
    xs = sorted(float(v) for v in values if v is not None and v == v)
    if not xs:
        return []
    return [Mode(_median(g), g[0], g[-1], len(g), len(g) / len(xs)) for g in _split(xs, xs[-1] - xs[0])]


def text(found: list[Mode], digits: int = 1) -> str:
    """`7.0 [6.8–7.2] (40%, 2 runs) | 301.5 [247.0–338.0] (60%, 3 runs)`; `-` without runs."""
    return " | ".join(m.text(digits) for m in found) or "-"
