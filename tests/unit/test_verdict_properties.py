"""Properties of the statistics every claim's verdict rests on (analysis/verdicts.py, claims.py),
over many generated samples rather than a few examples: coverage near the nominal rate,
symmetry in a and b, monotonicity in confidence and tolerance, Bonferroni never weaker than
one check, and `combine`'s rules. Derandomized (the same examples every run) and seeded, so a
failure is a property broken, not bad luck; together a few seconds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sctpbench.analysis import claims, verdicts
from sctpbench.analysis.verdicts import Sample, Verdict

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CONFIDENCES = (0.8, 0.9, 0.95, 0.975, 0.99, 0.999)

# Runs of a metric: two to eight values a tenth apart, some repeated (constant samples happen).
samples = st.lists(st.integers(-500, 500), min_size=2, max_size=8).map(lambda xs: Sample(tuple(x / 10 for x in xs)))
positive = st.lists(st.integers(1, 500), min_size=2, max_size=8).map(lambda xs: Sample(tuple(x / 10 for x in xs)))
confidence_pairs = st.lists(st.sampled_from(CONFIDENCES), min_size=2, max_size=2, unique=True).map(sorted)
verdict_lists = st.lists(st.sampled_from(verdicts.VERDICTS), max_size=6)

# ---------------------------------------------------------------------------- coverage

REPS = 1500


def _margin(rate: float) -> float:
    """Three standard errors of a rate measured over REPS trials."""
    return 3 * float(np.sqrt(rate * (1 - rate) / REPS))


@pytest.mark.parametrize("n_a, n_b, sd_a, sd_b", [(3, 3, 1.0, 1.0), (4, 10, 1.0, 3.0)])
def test_the_difference_interval_covers_the_true_difference_at_its_nominal_rate(n_a: int, n_b: int, sd_a: float, sd_b: float) -> None:
    """1,500 simulated pairs of normal samples (a fixed seed), of unequal sizes and spreads: the
    95 % Welch interval holds the true difference in 95 % ± 1.7 % of them (three standard errors
    of the rate)."""
    rng = np.random.default_rng(20261129)
    hits = 0
    for _ in range(REPS):
        a, b = Sample(tuple(rng.normal(10.0, sd_a, n_a))), Sample(tuple(rng.normal(7.0, sd_b, n_b)))
        lo, hi = verdicts.difference_interval(a, b, 0.95) or (0.0, 0.0)
        hits += lo <= 3.0 <= hi
    assert abs(hits / REPS - 0.95) <= _margin(0.95)


def test_the_mean_and_ratio_intervals_cover_at_their_nominal_rate() -> None:
    confidence = 0.9
    rng = np.random.default_rng(7)
    mean_hits = ratio_hits = 0
    for _ in range(REPS):
        a, b = Sample(tuple(rng.normal(100.0, 8.0, 10))), Sample(tuple(rng.normal(50.0, 5.0, 12)))
        lo, hi = verdicts.mean_interval(a, confidence) or (0.0, 0.0)
        mean_hits += lo <= 100.0 <= hi
        lo, hi = verdicts.ratio_interval(a, b, confidence) or (0.0, 0.0)
        ratio_hits += lo <= 2.0 <= hi
    assert abs(mean_hits / REPS - confidence) <= _margin(confidence)
    # The delta method is itself an approximation: half a point more.
    assert abs(ratio_hits / REPS - confidence) <= _margin(confidence) + 0.005


# ---------------------------------------------------------------------------- symmetry

@SETTINGS
@given(samples, samples, st.sampled_from(CONFIDENCES))
def test_swapping_a_and_b_mirrors_the_difference_and_its_verdicts(a: Sample, b: Sample, confidence: float) -> None:
    ab, ba = verdicts.difference_interval(a, b, confidence), verdicts.difference_interval(b, a, confidence)
    assert ab is not None and ba is not None
    assert ba == pytest.approx((-ab[1], -ab[0]))
    # "a less than b" on (a, b) is "b greater than a" on (b, a): the same verdict.
    assert verdicts.below(ab, 0.0) == verdicts.above(ba, 0.0)
    assert verdicts.above(ab, 0.0) == verdicts.below(ba, 0.0)
    assert verdicts.within(ab, 1.0) == verdicts.within(ba, 1.0)


@SETTINGS
@given(positive, positive, st.sampled_from(CONFIDENCES), st.sampled_from([0.5, 1.0, 1.5, 2.0]))
def test_swapping_a_and_b_inverts_the_ratio_and_mirrors_its_verdicts(a: Sample, b: Sample, confidence: float, r: float) -> None:
    ab, ba = verdicts.ratio_interval(a, b, confidence), verdicts.ratio_interval(b, a, confidence)
    assert ab is not None and ba is not None
    assert ba == pytest.approx((1 / ab[1], 1 / ab[0]))
    # a/b ≥ r where b/a ≤ 1/r: the same verdict, up to rounding at the very edge.
    if not any(abs(x - r) < 1e-9 * r for x in ab):
        assert verdicts.at_least(ab, r) == verdicts.at_most(ba, 1 / r)


# ---------------------------------------------------------------------------- monotonicity

RANK = {"holds": 0, "inconclusive": 1, "contradicted": 2}


@SETTINGS
@given(samples, samples, confidence_pairs, st.sampled_from([-2.0, 0.0, 2.0]))
def test_a_higher_confidence_widens_the_interval_and_never_firms_a_verdict(a: Sample, b: Sample, pair: list[float],
                                                                            limit: float) -> None:
    """Nested intervals: what holds (or is contradicted) at the higher confidence does at the lower one."""
    low, high = pair
    narrow, wide = verdicts.difference_interval(a, b, low), verdicts.difference_interval(a, b, high)
    assert narrow is not None and wide is not None
    assert wide[0] <= narrow[0] + 1e-9 and narrow[1] <= wide[1] + 1e-9
    for test in (verdicts.below, verdicts.above, verdicts.at_least, verdicts.at_most):
        firm = test(wide, limit)
        if firm != "inconclusive":
            assert test(narrow, limit) == firm
    mean_narrow, mean_wide = verdicts.mean_interval(a, low), verdicts.mean_interval(a, high)
    assert mean_narrow is not None and mean_wide is not None
    assert mean_wide[0] <= mean_narrow[0] + 1e-9 and mean_narrow[1] <= mean_wide[1] + 1e-9


@SETTINGS
@given(samples, samples, st.sampled_from(CONFIDENCES), st.integers(0, 50), st.integers(0, 50))
def test_a_larger_tolerance_never_turns_same_into_different(a: Sample, b: Sample, confidence: float, t1: int, t2: int) -> None:
    small, large = sorted((t1 / 10, t2 / 10))
    interval = verdicts.difference_interval(a, b, confidence)
    at_small, at_large = verdicts.within(interval, small), verdicts.within(interval, large)
    assert RANK[at_large] <= RANK[at_small]
    if at_small == "holds":
        assert at_large == "holds"
    if at_large == "contradicted":
        assert at_small == "contradicted"


# ---------------------------------------------------------------------------- Bonferroni through evaluate

CLAIMS_FILE = """paper: "tests: properties"
claims:
  - id: a-lower-at-every-g
    says: "a is lower at every g"
    where: "test"
    metric: detection_time_ms
    kind: less
    a: {k: a}
    b: {k: b}
    for_each: [g]
"""


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> claims.Loaded:
    path = tmp_path_factory.mktemp("claims") / "p.claims.yaml"
    path.write_text(CLAIMS_FILE)
    return claims.load(path)


@settings(derandomize=True, max_examples=30, deadline=None)
@given(st.lists(st.tuples(samples, samples), min_size=1, max_size=6))
def test_bonferroni_is_never_weaker_than_one_check(loaded: claims.Loaded, groups: list[tuple[Sample, Sample]]) -> None:
    """A claim of k checks contradicted means a check contradicted at k times the error rate's
    share (1 − 0.05/k), and so at 95 % too; a claim holds only when every check holds at 95 %."""
    rows = [{"param.g": f"g{i}", "param.k": side, "status": "ok", "detection_time_ms": v}
            for i, pair in enumerate(groups) for side, s in zip("ab", pair, strict=True) for v in s.values]
    (result,) = claims.evaluate(loaded, rows, ["k", "g"])
    single = [verdicts.below(verdicts.difference_interval(a, b, 0.95), 0.0) for a, b in groups]
    family = [verdicts.below(verdicts.difference_interval(a, b, 1 - 0.05 / len(groups)), 0.0) for a, b in groups]
    assert result.verdict == verdicts.combine([s if s == "holds" else f for s, f in zip(single, family, strict=True)])
    if result.verdict == "contradicted":
        assert "contradicted" in single
    if result.verdict == "holds":
        assert set(single) == {"holds"}


# ---------------------------------------------------------------------------- combine


@SETTINGS
@given(verdict_lists, st.randoms(use_true_random=False))
def test_combine_follows_its_rules_in_any_order(found: list[Verdict], rnd: object) -> None:
    combined = verdicts.combine(found)
    if not found:
        assert combined == "inconclusive"
    elif "contradicted" in found:
        assert combined == "contradicted"
    elif set(found) == {"holds"}:
        assert combined == "holds"
    elif "not exercised" in found:  # a check whose runs never met the claim's precondition
        assert combined == "not exercised"
    else:
        assert combined == "inconclusive"
    shuffled = list(found)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert verdicts.combine(shuffled) == combined
    assert verdicts.combine([*found, "holds"]) == (combined if found else "holds")


@SETTINGS
@given(st.sampled_from(verdicts.VERDICTS))
def test_one_check_is_its_own_verdict(v: Verdict) -> None:
    assert verdicts.combine([v]) == v

