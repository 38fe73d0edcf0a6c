"""Verdicts that stay valid when repetitions are added until they are conclusive.

Checking a claim, adding repetitions while it is inconclusive and stopping once it is not
is optional stopping: a 95 % interval looked at after every repetition excludes the true
value at *some* look far more often than 5 % of the time (31 % of simulated paired campaigns
over 39 looks at a difference that is truly 0, tests/unit/test_sequential.py). Here each
look spends part of the error rate α = 1 − confidence, by the size of the sample it looks at:
an interval over n units (pairs for a paired comparison, else runs of both sides together)
is taken at confidence

    1 − α / (n (n − 1))          for n ≥ 2,

and Σ_{n≥2} α / (n (n − 1)) = α. A campaign's data only grow, so every look at a check with
new data sees a larger n than the look before: whatever the looks, however many, and
whatever made the campaign stop or resume, the chance that any look's interval misses the
true value is at most α (the union bound: Bonferroni over every sample size at which one
could look; the alpha-spending idea of Lan & DeMets, Biometrika 70 (1983) 659–663, with a
spending sequence that needs no planned number of looks — Robbins' confidence sequences,
Ann. Math. Statist. 41 (1970) 1397–1409, give the same guarantee with a narrower boundary
but are not tied to Student's t). Each interval is the fixed-n one of analysis/verdicts.py
at that confidence, so the guarantee rests on what they rest on: runs (or pairs) independent
and their metric near normal. A claim's Bonferroni split over its checks (docs/claims.md)
applies on top.

The price is width: at n 2 the interval is at 97.5 %, at 10 at 99.94 %, at 40 at 99.997 %
(Student's t quantile 4.7 instead of 2.0 at 39 df). Paired designs, whose differences
are often exactly constant, and large effects settle anyway; a small effect needs more runs
than a fixed-n design would, which is what validity under optional stopping costs.
"""

from __future__ import annotations

from dataclasses import dataclass

from sctpbench.analysis.claims import Result
from sctpbench.analysis.verdicts import spent

__all__ = ["METHOD", "Needs", "needs_more", "spent"]

METHOD = "alpha spent over sample sizes: 1 − α / (n (n − 1)) at n units (docs/claims.md)"


@dataclass(frozen=True)
class Needs:
    """A configuration that needs more repetitions: the claims whose inconclusive checks look at it."""

    config: str
    claims: tuple[str, ...]


def needs_more(results: list[Result]) -> list[Needs]:
    """The configurations whose claims are still inconclusive, each with those claims: the
    configurations of every inconclusive check of every inconclusive claim. A claim that
    holds, is contradicted or is not exercised (its runs never ran the mechanism: more of
    the same setup does not help) adds none."""
    wanted: dict[str, list[str]] = {}
    for r in results:
        if r.verdict != "inconclusive":
            continue
        for check in r.checks:
            if check.verdict == "inconclusive":
                for config in check.configs:
                    ids = wanted.setdefault(config, [])
                    if r.claim.id not in ids:
                        ids.append(r.claim.id)
    return [Needs(c, tuple(ids)) for c, ids in sorted(wanted.items())]
