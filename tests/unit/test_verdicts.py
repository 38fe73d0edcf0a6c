"""The intervals behind every verdict (analysis/verdicts.py), against an independent reference:
scipy's own Welch and Student intervals, at more than one confidence, so that an interval
computed at a fixed 95 % whatever the claim asks is caught."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from sctpbench.analysis import verdicts
from sctpbench.analysis.verdicts import Sample

A, B = Sample((12.0, 13.0, 14.5, 13.2)), Sample((8.0, 9.0, 10.0))


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_the_difference_interval_is_welchs_at_the_confidence_asked(confidence: float) -> None:
    reference = stats.ttest_ind(A.values, B.values, equal_var=False).confidence_interval(confidence)
    assert verdicts.difference_interval(A, B, confidence) == pytest.approx((reference.low, reference.high))


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_the_mean_interval_is_students_at_the_confidence_asked(confidence: float) -> None:
    reference = stats.t.interval(confidence, A.n - 1, loc=A.mean, scale=stats.sem(A.values))
    assert verdicts.mean_interval(A, confidence) == pytest.approx(reference)
    assert A.half_width(confidence) == pytest.approx((reference[1] - reference[0]) / 2)


@pytest.mark.parametrize("confidence", [0.8, 0.99])
def test_the_ratio_interval_is_welchs_on_the_log_at_the_confidence_asked(confidence: float) -> None:
    """The delta method: var(log mean) ≈ var / (n mean²); Welch's df on those two terms."""
    ca, cb = A.variance / (A.n * A.mean**2), B.variance / (B.n * B.mean**2)
    df = (ca + cb) ** 2 / (ca**2 / (A.n - 1) + cb**2 / (B.n - 1))
    h = float(stats.t.ppf(0.5 + confidence / 2, df)) * math.sqrt(ca + cb)
    r = A.mean / B.mean
    assert verdicts.ratio_interval(A, B, confidence) == pytest.approx((r * math.exp(-h), r * math.exp(h)))


def test_an_exact_sample_has_a_point_interval_and_one_run_none() -> None:
    same, other = Sample((5.0, 5.0, 5.0)), Sample((2.0, 2.0))
    assert verdicts.difference_interval(same, other, 0.99) == (3.0, 3.0)
    assert verdicts.ratio_interval(same, other, 0.99) == (2.5, 2.5)
    assert verdicts.mean_interval(same, 0.99) == (5.0, 5.0)
    assert verdicts.difference_interval(Sample((5.0,)), B, 0.95) is None
    assert verdicts.difference_interval(Sample(()), B, 0.95) is None
    assert verdicts.mean_interval(Sample((5.0,)), 0.95) is None
    assert verdicts.ratio_interval(Sample((-1.0, -2.0)), B, 0.95) is None


def test_sample_of_drops_missing_and_nan_values() -> None:
    assert Sample.of([1, None, float("nan"), 2.5]).values == (1.0, 2.5)
    assert Sample((1.0, 2.0, 3.0)).text(1) == f"2.0 ± {Sample((1.0, 2.0, 3.0)).half_width():.1f} (n 3)"
    assert Sample(()).text() == "no runs" and Sample((4.0,)).text() == "4.0 (n 1)"


@pytest.mark.parametrize("test, interval, limit, verdict", [
    (verdicts.below, (1.0, 2.0), 2.0, "inconclusive"), (verdicts.below, (1.0, 1.9), 2.0, "holds"),
    (verdicts.below, (2.0, 3.0), 2.0, "contradicted"), (verdicts.above, (2.0, 3.0), 2.0, "inconclusive"),
    (verdicts.above, (2.1, 3.0), 2.0, "holds"), (verdicts.above, (1.0, 2.0), 2.0, "contradicted"),
    (verdicts.at_least, (2.0, 3.0), 2.0, "holds"), (verdicts.at_least, (1.0, 2.0), 2.0, "inconclusive"),
    (verdicts.at_least, (1.0, 1.9), 2.0, "contradicted"), (verdicts.at_most, (1.0, 2.0), 2.0, "holds"),
    (verdicts.at_most, (2.0, 3.0), 2.0, "inconclusive"), (verdicts.at_most, (2.1, 3.0), 2.0, "contradicted"),
    (verdicts.within, (-2.0, 2.0), 2.0, "holds"), (verdicts.within, (-2.1, 1.0), 2.0, "inconclusive"),
    (verdicts.within, (2.1, 3.0), 2.0, "contradicted"), (verdicts.within, (-3.0, -2.1), 2.0, "contradicted"),
    (verdicts.within, (-3.0, 3.0), 2.0, "inconclusive"), (verdicts.within, (2.0, 3.0), 2.0, "inconclusive"),
    (verdicts.within, (-3.0, -2.0), 2.0, "inconclusive"), (verdicts.below, None, 2.0, "inconclusive"),
    (verdicts.above, None, 2.0, "inconclusive"), (verdicts.at_least, None, 2.0, "inconclusive"),
    (verdicts.at_most, None, 2.0, "inconclusive"), (verdicts.within, None, 2.0, "inconclusive"),
])
def test_each_test_at_its_edges(test: object, interval: verdicts.Interval | None, limit: float, verdict: str) -> None:
    """Strict and non-strict edges as the module's docstring has them (for "less": a difference of 0 contradicts)."""
    assert test(interval, limit) == verdict  # type: ignore[operator]


def test_interval_text() -> None:
    assert verdicts.interval_text((1.234, 5.678), 2) == "[1.23, 5.68]"
    assert verdicts.interval_text((1.234, 5.678)) == "[1.2, 5.7]"
    assert verdicts.interval_text(None) == "no interval"


def test_two_runs_a_side_are_enough_for_an_interval() -> None:
    """n = 2 is the smallest sample with a variance: one degree of freedom."""
    a, b = Sample((10.0, 12.0)), Sample((4.0, 5.0, 6.0, 8.0))
    assert a.half_width(0.95) == pytest.approx(float(stats.t.ppf(0.975, 1)) * 1.0)
    for x, y in ((a, b), (b, a), (a, Sample((3.0, 5.0)))):
        reference = stats.ttest_ind(x.values, y.values, equal_var=False).confidence_interval(0.9)
        assert verdicts.difference_interval(x, y, 0.9) == pytest.approx((reference.low, reference.high))
        assert verdicts.ratio_interval(x, y, 0.9) is not None


def test_one_exact_side_is_no_exact_interval() -> None:
    """Only when both sides are constant is the interval a point: a constant b against a varied a
    (or the reverse) keeps a's variance, with n − 1 degrees of freedom."""
    varied, constant = Sample((10.0, 11.0, 13.0)), Sample((5.0, 5.0, 5.0))
    h = float(stats.t.ppf(0.975, 2)) * math.sqrt(varied.variance / 3)
    assert verdicts.difference_interval(varied, constant, 0.95) == pytest.approx((varied.mean - 5 - h, varied.mean - 5 + h))
    assert verdicts.difference_interval(constant, varied, 0.95) == pytest.approx((5 - varied.mean - h, 5 - varied.mean + h))
    for x, y in ((varied, constant), (constant, varied)):
        lo, hi = verdicts.ratio_interval(x, y, 0.95) or (0.0, 0.0)
        assert lo < x.mean / y.mean < hi


def test_a_ratio_needs_positive_means_however_small() -> None:
    small, b = Sample((0.25, 0.5, 0.75)), Sample((0.5, 0.6, 0.7))
    assert verdicts.ratio_interval(small, b, 0.95) is not None and verdicts.ratio_interval(b, small, 0.95) is not None
    zero, one = Sample((0.0, 0.0)), Sample((1.0, 1.0))
    assert verdicts.ratio_interval(zero, one, 0.95) is None and verdicts.ratio_interval(one, zero, 0.95) is None
    assert verdicts.ratio_interval(Sample((2.0,)), b, 0.95) is None and verdicts.ratio_interval(b, Sample((2.0,)), 0.95) is None


def test_combine_of_no_check_is_inconclusive() -> None:
    assert verdicts.combine([]) == "inconclusive"
