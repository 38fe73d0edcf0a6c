"""Paired intervals: both sides of a comparison are the same repetitions (one seed each).

Repetition r runs with the same seed in every configuration of a campaign (common random
numbers), so what the seed draws cancels in each pair. A claim compares two sides over the
pairs when they are the same repetitions of configurations that differ only in swept values,
and with Welch's unpaired interval otherwise; the verdict line says which.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sctpbench.analysis import claims, verdicts
from sctpbench.analysis.verdicts import Pairs

# Seed 000 Paper I at 100 msg/s: the runs' delays spread with the seed, yet each repetition's
# SACK delay costs the same 8 ms.
SPREAD = [100.0, 160.0, 130.0, 190.0, 115.0]
KEY = "sctp.sack_delay"


def _row(config: str, repetition: int, value: float | None, *, seed: int | None = None, status: str = "ok",
         **params: str) -> dict[str, Any]:
    return {"config": config, "repetition": repetition, "seed": repetition if seed is None else seed, "status": status,
            "mtt_mean_ms": value, **{f"param.{k}": v for k, v in params.items()}}


def _rows(offset: float = -8.0, **changes: Any) -> list[dict[str, Any]]:
    rows = []
    for i, v in enumerate(SPREAD, start=1):
        rows.append(_row(f"{KEY}=1ms", i, v + offset, **{KEY: "1ms"}))
        rows.append(_row(f"{KEY}=200ms", i, v, **{KEY: "200ms"}))
    return rows


def _claims(tmp_path: Path, body: str, head: str = "") -> claims.Loaded:
    path = tmp_path / "c.yaml"
    path.write_text(f"""paper: "test"
campaign: campaign.yaml
{head}axes:
  delay: {{key: {KEY}, values: {{small: 1ms, default: 200ms}}}}
claims:
  - id: small-delay-lower
    says: "x"
    where: "test"
    metric: mtt_mean_ms
{body}""")
    return claims.load(path)


LESS = "    kind: less\n    a: {delay: small}\n    b: {delay: default}\n"


def _only(loaded: claims.Loaded, rows: list[dict[str, Any]], swept: list[str] | None = None) -> claims.Result:
    return claims.evaluate(loaded, rows, swept or [KEY])[0]


def test_common_seeds_settle_what_welch_cannot(tmp_path: Path) -> None:
    """A constant 8 ms per repetition under a 90 ms spread: paired, the claim holds at five
    repetitions; the same values from independent seeds leave Welch's interval straddling 0."""
    loaded = _claims(tmp_path, LESS)
    paired = _only(loaded, _rows())
    assert paired.verdict == "holds"
    assert "a − b [-8.0, -8.0] (paired, n 5) → holds" in paired.line()
    assert (paired.checks[0].pairing, paired.checks[0].pairs) == ("paired", 5)
    independent = [r | {"seed": r["seed"] + (100 if r["config"].endswith("1ms") else 0)} for r in _rows()]
    unpaired = _only(loaded, independent)
    assert unpaired.verdict == "inconclusive"
    assert "(unpaired) → inconclusive" in unpaired.line()
    assert unpaired.checks[0].to_dict()["pairing"] == "unpaired"


def test_a_pair_without_its_partner_is_left_out(tmp_path: Path) -> None:
    rows = _rows()
    rows[2] = rows[2] | {"status": "failed", "mtt_mean_ms": None}  # repetition 2 at 1 ms failed
    result = _only(_claims(tmp_path, LESS), rows)
    assert "(paired, n 4, 1 run without a partner left out) → holds" in result.line()
    assert "b 139.0 ± 44.9 (n 5)" in result.line()  # each side's figures are still all its ok runs


def test_a_side_pooled_over_an_axis_the_other_fixes_is_not_paired(tmp_path: Path) -> None:
    """a pools two loads, b is at one: a holds two runs per repetition, no pairing."""
    rows = [r | {"param.load": "high"} for r in _rows()]
    rows += [r | {"param.load": "low"} for r in _rows() if r["config"].endswith("1ms")]
    body = "    kind: less\n    a: {delay: small}\n    b: {delay: default, load: high}\n"
    result = _only(_claims(tmp_path, body), rows, [KEY, "load"])
    assert "(unpaired)" in result.line()
    # pooled on both sides, the pairs match within each load
    rows += [r | {"param.load": "low"} for r in _rows() if r["config"].endswith("200ms")]
    result = _only(_claims(tmp_path, LESS), rows, [KEY, "load"])
    assert "(paired, n 10)" in result.line()


def test_runs_of_different_campaigns_are_not_paired(tmp_path: Path) -> None:
    """Another campaign's experiment differs in more than swept values: the same seed draws
    different things there."""
    other = [r | {"config": "x"} for r in _rows(offset=0.0) if r["config"].endswith("200ms")]
    body = "    kind: less\n    a: {delay: small, campaign: this}\n    b: {delay: default, campaign: other}\n"
    loaded = _claims(tmp_path, body, "campaigns: {other: other.yaml}\n")
    mine = [r for r in _rows() if r["config"].endswith("1ms")]
    result = claims.evaluate(loaded, mine, [KEY], {"other": (other, [KEY])})[0]
    assert "(unpaired)" in result.line()


def test_among_rivals_are_paired(tmp_path: Path) -> None:
    body = "    kind: lowest\n    among: delay\n    which: small\n"
    result = _only(_claims(tmp_path, body), _rows())
    assert result.verdict == "holds" and "small vs default: " in result.line() and "(paired, n 5)" in result.line()


def test_paired_ratio_is_exact_when_every_pair_has_it() -> None:
    pairs = Pairs((20.0, 40.0, 60.0), (10.0, 20.0, 30.0))
    assert verdicts.paired_ratio_interval(pairs, 0.95) == pytest.approx((2.0, 2.0))
    noisy = Pairs((21.0, 39.0, 61.0, 40.0), (10.0, 20.0, 30.0, 20.0))
    lo, hi = verdicts.paired_ratio_interval(noisy, 0.95) or (0.0, 0.0)
    assert lo < 161 / 80 < hi and hi - lo < 0.2
    # unpaired, the same values' between-repetition spread swamps the ratio
    lo_u, hi_u = verdicts.ratio_interval(verdicts.Sample(noisy.a), verdicts.Sample(noisy.b), 0.95) or (0.0, 0.0)
    assert hi_u - lo_u > 1.0


def test_one_pair_has_no_interval() -> None:
    assert verdicts.paired_difference_interval(Pairs((1.0,), (2.0,)), 0.95) is None
    assert verdicts.paired_difference_interval(Pairs((), ()), 0.95) is None
