"""Campaigns run until their claims are conclusive: the verdicts they stop on stay valid.

Simulated, seeded campaigns look at a claim after every repetition from the 2nd to the 40th
and stop at the first conclusive verdict. With every look at 95 % (a fixed-n interval looked
at again and again) a true difference of 0 is excluded at some look in far more than 5 % of
campaigns; with the alpha spent by sample size (analysis/sequential.py, docs/claims.md) it is
excluded in at most 5 %, and a claim true at the margin is declared contradicted no more often.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from sctpbench.analysis import claims, sequential, verdicts
from sctpbench.analysis.verdicts import Interval, Pairs, Sample

CONFIDENCE = 0.95
ALPHA = 1 - CONFIDENCE
CAMPAIGNS = 2000
UNPAIRED_CAMPAIGNS = 500
MAX_REPETITIONS = 40


def _excluded(interval: Interval | None, truth: float) -> bool:
    return interval is not None and not interval[0] <= truth <= interval[1]


def _paired_campaign(rng: random.Random, spend: bool) -> tuple[bool, bool]:
    """One campaign of a paired claim `less` whose true difference is 0 (its margin): (some
    look's interval missed 0, the campaign stopped on `contradicted`)."""
    a: list[float] = []
    b: list[float] = []
    for n in range(1, MAX_REPETITIONS + 1):
        shared = rng.gauss(100.0, 30.0)  # what the repetition's seed draws, on both sides
        a.append(shared + rng.gauss(0.0, 5.0))
        b.append(shared + rng.gauss(0.0, 5.0))
        if n < 2:
            continue
        level = verdicts.spent(CONFIDENCE, n) if spend else CONFIDENCE
        interval = verdicts.paired_difference_interval(Pairs(tuple(a), tuple(b)), level)
        verdict = verdicts.below(interval, 0.0)
        if _excluded(interval, 0.0) or verdict != "inconclusive":
            return True, verdict == "contradicted"
    return False, False


def _unpaired_campaign(rng: random.Random, spend: bool) -> bool:
    """Two independent sides of equal means and unequal spread, a repetition added to each per look."""
    a: list[float] = []
    b: list[float] = []
    for n in range(1, MAX_REPETITIONS + 1):
        a.append(rng.gauss(50.0, 4.0))
        b.append(rng.gauss(50.0, 12.0))
        if n < 2:
            continue
        level = verdicts.spent(CONFIDENCE, 2 * n) if spend else CONFIDENCE
        if _excluded(verdicts.difference_interval(Sample(tuple(a)), Sample(tuple(b)), level), 0.0):
            return True
    return False


def test_spending_keeps_a_true_null_at_the_stated_rate_over_40_looks() -> None:
    rng = random.Random(20261129)
    spent = [_paired_campaign(rng, spend=True) for _ in range(CAMPAIGNS)]
    missed, contradicted = sum(m for m, _ in spent) / CAMPAIGNS, sum(c for _, c in spent) / CAMPAIGNS
    assert missed <= ALPHA, missed
    assert contradicted <= ALPHA, contradicted
    # Welch's degrees of freedom make each look's quantile a fresh computation: fewer campaigns
    unpaired = sum(_unpaired_campaign(rng, spend=True) for _ in range(UNPAIRED_CAMPAIGNS)) / UNPAIRED_CAMPAIGNS
    assert unpaired <= ALPHA, unpaired


def test_looking_again_and_again_at_95_percent_does_not() -> None:
    """The same campaigns with every look at 95 %: what the spending is for (the test above can fail)."""
    rng = random.Random(20261129)
    naive = [_paired_campaign(rng, spend=False) for _ in range(CAMPAIGNS)]
    # seeded: 31 % of campaigns miss 0 at some look, 16 % stop on `contradicted` (4.2 % and 2.5 % spent)
    assert sum(m for m, _ in naive) / CAMPAIGNS > 3 * ALPHA
    assert sum(c for _, c in naive) / CAMPAIGNS > ALPHA


def test_the_spent_confidence_by_sample_size() -> None:
    assert sequential.spent(0.95, 2) == 0.975
    assert round(sequential.spent(0.95, 10), 6) == round(1 - 0.05 / 90, 6)
    # every n ≥ 2 together spends no more than α
    assert sum(1 - sequential.spent(0.95, n) for n in range(2, 100_000)) < 0.05


KEY = "sctp.sack_delay"


def _rows(offsets: dict[str, float], repetitions: int) -> list[dict[str, Any]]:
    rng = random.Random(1)
    out = []
    for r in range(1, repetitions + 1):
        shared = rng.gauss(100.0, 30.0)
        out += [{"config": f"{KEY}={v}", "repetition": r, "seed": r, "status": "ok", f"param.{KEY}": v,
                 "mtt_mean_ms": shared + o + rng.gauss(0.0, 1.0)} for v, o in offsets.items()]
    return out


def test_a_campaign_plans_more_runs_only_where_claims_are_inconclusive(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"""paper: "test"
axes:
  delay: {{key: {KEY}}}
claims:
  - id: settled
    says: "x"
    where: "test"
    metric: mtt_mean_ms
    kind: less
    a: {{delay: 1ms}}
    b: {{delay: 200ms}}
  - id: small-effect
    says: "x"
    where: "test"
    metric: mtt_mean_ms
    kind: less
    a: {{delay: 40ms}}
    b: {{delay: 41ms}}
""")
    loaded = claims.load(path)
    rows = _rows({"1ms": -50.0, "200ms": 0.0, "40ms": -0.2, "41ms": 0.0}, 3)
    results = claims.evaluate(loaded, rows, [KEY], sequential=True)
    assert [r.verdict for r in results] == ["holds", "inconclusive"]
    assert "; sequential, at 99.1667%" in results[0].line()  # 3 pairs: 1 − 0.05 / 6
    assert sequential.needs_more(results) == [sequential.Needs(f"{KEY}=40ms", ("small-effect",)),
                                              sequential.Needs(f"{KEY}=41ms", ("small-effect",))]
    # a claim not exercised asks for nothing: the setup must change, not the number of runs
    assert sequential.needs_more([claims.Result(results[1].claim, "not exercised", results[1].checks)]) == []
