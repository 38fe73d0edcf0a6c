"""Is a statement about repeated runs supported? Confidence intervals over repetitions.

Each check compares one or two samples (a metric's values over a configuration's ok runs)
with what a claim says, through a confidence interval:

- a difference of two means: Welch's interval (unequal variances, Welch–Satterthwaite
  degrees of freedom);
- a ratio of two means: the same on the logarithm of the ratio (the delta method), which
  keeps the interval positive and symmetric in a/b against b/a;
- one mean against a value: Student's t interval;
- where both sides are the same repetitions (repetition r's seed in every configuration:
  common random numbers, analysis/claims.py decides), the difference and the ratio are taken
  over the pairs instead: Student's t interval of the per-repetition differences, and for
  the ratio the delta method with the pairs' covariance. What the configurations share (the
  seed's draws, the same start offsets and losses) cancels in each pair, so the interval
  narrows to what the configurations change.

A check *holds* when the whole interval lies on the claimed side, is *contradicted* when
the whole interval lies on the other side (for "less": the difference is ≥ 0), and is
*inconclusive* otherwise: more repetitions narrow the interval. A sample of fewer than two
runs has no interval and is inconclusive unless every run of it is one value and the other
side too (no variance to estimate: the figures are exact).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["holds", "contradicted", "inconclusive", "not exercised"]
VERDICTS: tuple[Verdict, ...] = ("holds", "contradicted", "inconclusive", "not exercised")
CONCLUSIVE: tuple[Verdict, ...] = ("holds", "contradicted")


@dataclass(frozen=True)
class Sample:
    """A metric's values over the runs of one side of a comparison."""

    values: tuple[float, ...]

    @classmethod
    def of(cls, values: list[float | None]) -> Sample:
        return cls(tuple(float(v) for v in values if v is not None and v == v))

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return sum(self.values) / self.n

    @property
    def variance(self) -> float:
        if self.n < 2:
            return 0.0
        m = self.mean
        return sum((x - m) ** 2 for x in self.values) / (self.n - 1)

    @property
    def constant(self) -> bool:
        return self.n >= 2 and min(self.values) == max(self.values)

    def half_width(self, confidence: float = 0.95) -> float | None:
        if self.n < 2:
            return None
        return _t(confidence, self.n - 1) * math.sqrt(self.variance / self.n)

    def text(self, digits: int = 1, confidence: float = 0.95) -> str:
        """`46.1 ± 15.2 (n 3)`: mean ± the CI's half-width."""
        if self.n == 0:
            return "no runs"
        h = self.half_width(confidence)
        return f"{self.mean:.{digits}f}" + (f" ± {h:.{digits}f}" if h is not None else "") + f" (n {self.n})"


Interval = tuple[float, float]


def spent(confidence: float, n: int) -> float:
    """The confidence of an interval over n units at a look of a sequential campaign:
    1 − α / (n (n − 1)), α = 1 − confidence, which sums to α over every n ≥ 2 (analysis/sequential.py)."""
    alpha = 1.0 - confidence
    return 1.0 - alpha / (n * (n - 1)) if n >= 2 else confidence


@functools.lru_cache(maxsize=4096)
def _t(confidence: float, df: float) -> float:
    # scipy.special's stdtrit is what scipy.stats.t.ppf computes, the same value to the bit;
    # scipy.stats takes 1.6 CPU-s to import here, scipy.special 0.6.
    from scipy import special

    return float(special.stdtrit(df, 0.5 + confidence / 2))


def _exact(*samples: Sample) -> bool:
    """Every side a single value repeated: nothing to estimate, the interval is the point."""
    return all(s.constant for s in samples)


def _welch(components: list[tuple[float, int]]) -> float:
    """Welch–Satterthwaite degrees of freedom of a sum of variance components (var/n, n)."""
    num = sum(c for c, _ in components) ** 2
    den = sum(c * c / (n - 1) for c, n in components if n > 1)
    return num / den if den > 0 else math.inf


def mean_interval(a: Sample, confidence: float) -> Interval | None:
    if a.n == 0:
        return None
    if _exact(a):
        return (a.mean, a.mean)
    h = a.half_width(confidence)
    return None if h is None else (a.mean - h, a.mean + h)


def difference_interval(a: Sample, b: Sample, confidence: float) -> Interval | None:
    """Of mean(a) − mean(b)."""
    if a.n == 0 or b.n == 0:
        return None
    d = a.mean - b.mean
    if _exact(a, b):
        return (d, d)
    if a.n < 2 or b.n < 2:
        return None
    components = [(a.variance / a.n, a.n), (b.variance / b.n, b.n)]
    se = math.sqrt(sum(c for c, _ in components))
    h = _t(confidence, _welch(components)) * se
    return (d - h, d + h)


def ratio_interval(a: Sample, b: Sample, confidence: float) -> Interval | None:
    """Of mean(a) / mean(b); None when a mean is not positive (no ratio to speak of)."""
    if a.n == 0 or b.n == 0 or a.mean <= 0 or b.mean <= 0:
        return None
    r = a.mean / b.mean
    if _exact(a, b):
        return (r, r)
    if a.n < 2 or b.n < 2:
        return None
    components = [(a.variance / (a.n * a.mean**2), a.n), (b.variance / (b.n * b.mean**2), b.n)]
    se = math.sqrt(sum(c for c, _ in components))
    h = _t(confidence, _welch(components)) * se
    return (r * math.exp(-h), r * math.exp(h))


@dataclass(frozen=True)
class Pairs:
    """A metric's values on both sides of a comparison, matched by repetition: a[i] and b[i]
    share one seed. `left_out`: ok runs of either side whose partner is missing (failed,
    disturbed, not run yet, or without this metric)."""

    a: tuple[float, ...]
    b: tuple[float, ...]
    left_out: int = 0

    @property
    def n(self) -> int:
        return len(self.a)

    def differences(self) -> Sample:
        return Sample(tuple(x - y for x, y in zip(self.a, self.b, strict=True)))


def paired_difference_interval(pairs: Pairs, confidence: float) -> Interval | None:
    """Of mean(a) − mean(b) over the pairs: Student's t on the per-pair differences (n − 1 df)."""
    return mean_interval(pairs.differences(), confidence) if pairs.n else None


def paired_ratio_interval(pairs: Pairs, confidence: float) -> Interval | None:
    """Of mean(a) / mean(b) over the pairs: the delta method on log mean(a) − log mean(b) with
    the pairs' covariance, i.e. Student's t on z_i = a_i / mean(a) − b_i / mean(b)."""
    if pairs.n == 0:
        return None
    a, b = Sample(pairs.a), Sample(pairs.b)
    if a.mean <= 0 or b.mean <= 0:
        return None
    r = a.mean / b.mean
    z = Sample(tuple(x / a.mean - y / b.mean for x, y in zip(pairs.a, pairs.b, strict=True)))
    if z.constant:
        return (r, r)
    h = z.half_width(confidence)
    return None if h is None else (r * math.exp(-h), r * math.exp(h))


def below(interval: Interval | None, limit: float) -> Verdict:
    """The quantity is below limit: holds when the interval is under it, contradicted when at or above."""
    if interval is None:
        return "inconclusive"
    lo, hi = interval
    return "holds" if hi < limit else "contradicted" if lo >= limit else "inconclusive"


def above(interval: Interval | None, limit: float) -> Verdict:
    if interval is None:
        return "inconclusive"
    lo, hi = interval
    return "holds" if lo > limit else "contradicted" if hi <= limit else "inconclusive"


def at_least(interval: Interval | None, limit: float) -> Verdict:
    if interval is None:
        return "inconclusive"
    lo, hi = interval
    return "holds" if lo >= limit else "contradicted" if hi < limit else "inconclusive"


def at_most(interval: Interval | None, limit: float) -> Verdict:
    if interval is None:
        return "inconclusive"
    lo, hi = interval
    return "holds" if hi <= limit else "contradicted" if lo > limit else "inconclusive"


def within(interval: Interval | None, tolerance: float) -> Verdict:
    """No difference: holds when the interval lies inside ±tolerance, contradicted when wholly outside."""
    if interval is None:
        return "inconclusive"
    lo, hi = interval
    if -tolerance <= lo and hi <= tolerance:
        return "holds"
    return "contradicted" if lo > tolerance or hi < -tolerance else "inconclusive"


def combine(verdicts: list[Verdict]) -> Verdict:
    """A claim made of several checks: holds when every one holds, contradicted when any is;
    not exercised when, short of that, a check's runs never met the claim's precondition."""
    if not verdicts:
        return "inconclusive"
    if "contradicted" in verdicts:
        return "contradicted"
    if all(v == "holds" for v in verdicts):
        return "holds"
    return "not exercised" if "not exercised" in verdicts else "inconclusive"


def interval_text(interval: Interval | None, digits: int = 1) -> str:
    if interval is None:
        return "no interval"
    lo, hi = interval
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"
