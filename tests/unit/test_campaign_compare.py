"""`campaign compare`'s rules in process, on constructed samples and comparisons: the p-value's
edge cases, the verdict's direction and thresholds, budgets at their limits, which runs count,
and the words and JUnit cases a user reads (tests/unit/test_campaign.py runs the command)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from sctpbench.campaign import compare, expand, spec, table
from sctpbench.campaign.compare import BudgetCheck, Change, Comparison
from sctpbench.model.errors import SpecError

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests/data/campaigns/tiny.yaml"


def test_p_value_needs_two_runs_a_side_and_is_certain_for_constant_samples() -> None:
    tests: tuple[compare.Test, ...] = ("welch", "mannwhitney")
    for test in tests:
        assert compare.p_value([1.0], [1.0, 2.0], test) is None
        assert compare.p_value([1.0, 2.0], [1.0], test) is None
    assert compare.p_value([5.0, 5.0], [5.0, 5.0, 5.0], "mannwhitney") == 1.0
    assert compare.p_value([5.0, 5.0], [5.0, 5.0], "welch") == 1.0
    assert compare.p_value([5.0, 5.0], [6.0, 6.0], "welch") == 0.0
    # Welch's t by hand: means 2 and 4, variances 1 and 4 over 3 runs each, t = 2 / √(5/3), its
    # degrees of freedom (5/3)² / ((1/3)² / 2 + (4/3)² / 2); Student's pooled t would give p 0.196.
    t, df = 2 / math.sqrt(5 / 3), (5 / 3) ** 2 / ((1 / 3) ** 2 / 2 + (4 / 3) ** 2 / 2)
    assert compare.p_value([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], "welch") == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9)
    assert compare.p_value([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], "welch") == pytest.approx(0.2209, abs=1e-4)
    # Mann-Whitney U, two-sided and exact: U = 0 of 20 orderings, as likely as U = 9: p = 2 / 20
    assert compare.p_value([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], "mannwhitney") == pytest.approx(0.1, abs=1e-9)


def test_relative_change_against_a_zero_baseline_is_none_zero_or_infinite() -> None:
    def rel(base: list[float], new: list[float]) -> float | None:
        return Change("c", "m", base, new, None, "insufficient").relative
    assert rel([0.0, 0.0], [0.0]) == 0.0
    assert rel([0.0], [2.0]) == math.inf and rel([0.0], [-2.0]) == -math.inf
    assert rel([-10.0], [-5.0]) == pytest.approx(0.5)  # against |base|: up is up
    assert rel([], [1.0]) is None and rel([1.0], []) is None


def test_a_distribution_that_moved_with_its_mean_unchanged_is_unchanged_at_min_effect_0() -> None:
    new, base = [8.0] * 9 + [18.0], [9.0] * 10  # same mean 9; Mann-Whitney's p 0.0008
    moved = compare.judge("c", "mmtt_ms", new, base, "mannwhitney", 0.05, 0.0)
    assert moved.p_value is not None and moved.p_value < 0.05 and moved.verdict == "unchanged"


def test_the_verdict_needs_p_below_alpha_and_an_effect_of_at_least_min_effect() -> None:
    base, new = [100.0, 100.0], [110.0, 110.0]  # constant: p is 0, the effect exactly 10 %
    assert compare.judge("c", "mmtt_ms", new, base, "welch", 0.05, 0.10).verdict == "regressed"
    assert compare.judge("c", "mmtt_ms", new, base, "welch", 0.05, 0.1001).verdict == "unchanged"
    assert compare.judge("c", "mmtt_ms", new, base, "welch", 0.0, 0.10).verdict == "unchanged"  # p = 0 is not below 0


def test_the_direction_comes_from_the_metric_behind_an_association_column() -> None:
    base, more = [100.0, 100.0], [200.0, 200.0]
    assert compare.judge("c", "association.b.messages_delivered", more, base, "welch", 0.05, 0.1).verdict == "improved"
    assert compare.judge("c", "association.b.path_switches", more, base, "welch", 0.05, 0.1).verdict == "regressed"
    assert compare.judge("c", "messages_affected", more, base, "welch", 0.05, 0.1).verdict == "regressed"
    assert compare.judge("c", "messages_sent", more, base, "welch", 0.05, 0.1).verdict == "unchanged"  # the workload
    assert compare.judge("c", "unknown_figure", more, base, "welch", 0.05, 0.1).verdict == "regressed"  # up is worse
    kept = compare.judge("cfg", "mmtt_ms", more, base, "welch", 0.05, 0.1)
    assert (kept.config, kept.metric, kept.base, kept.new) == ("cfg", "mmtt_ms", base, more)


def test_statistics_and_budgets_at_their_limits() -> None:
    values = [float(v) for v in range(1, 101)]  # 1 … 100
    assert [compare.statistic(values, s) for s in ("mean", "median", "p50", "p90", "min", "max")] == [
        50.5, 50.5, 50.5, pytest.approx(90.1), 1.0, 100.0]
    assert compare.statistic([], "mean") is None
    at = {"stat": "max", "max": 100.0, "label": "max <= 100"}
    assert compare.check_budget("c", values, at) == BudgetCheck("c", "max <= 100", 100.0, 100, True)
    assert not compare.check_budget("c", values, at | {"max": 99.9}).ok
    floor = {"stat": "min", "min": 1.0, "label": "min >= 1"}
    assert compare.check_budget("c", values, floor).ok and not compare.check_budget("c", values, floor | {"min": 1.1}).ok
    assert not compare.check_budget("c", [], floor).ok


def test_only_ok_runs_with_a_figure_count() -> None:
    rows: list[dict[str, Any]] = [{"status": "ok", "m": 1.0}, {"status": "disturbed", "m": 2.0}, {"status": "failed", "m": 3.0},
            {"status": "ok", "m": None}, {"status": "ok", "m": float("nan")}, {"status": "ok"}, {"status": "ok", "m": 4}]
    assert compare._values(rows, "m") == [1.0, 4.0]


def _comparison() -> Comparison:
    c = Comparison("tonight", "last", "welch", 0.05, 0.1)
    c.changes = [Change("x=1", "failover_time_ms", [100.0, 102.0, 98.0], [300.0, 310.0, 290.0], 0.00012345, "regressed"),
                 Change("x=1", "mmtt_ms", [10.0, 10.0], [10.0, 10.0], 1.0, "unchanged"),
                 Change("x=22", "messages_delivered", [100.0, 100.0], [120.0, 121.0], 0.0421, "improved"),
                 Change("x=22", "mtt_mean_ms", [5.0], [], None, "insufficient"),
                 Change("x=22", "detection_time_ms", [0.0, 0.0], [1.0, 1.0], 0.0, "unchanged")]
    c.budgets = [BudgetCheck("x=1", "failover_time_ms p95 <= 250ms", 309.0, 3, False),
                 BudgetCheck("x=22", "mmtt_ms max <= 1s", None, 0, False), BudgetCheck("x=22", "delivered", 12.345, 2, True)]
    c.failed_runs = {"x=1": 2}
    c.disturbed_runs, c.disturbed_base = {"x=22": 1}, {"x=1": 3}
    c.only_new, c.only_base = ["x=3"], ["x=0"]
    return c


REGRESSED = "  x=1   failover_time_ms        100.0 ± 5.0 (n 3)     300.0 ± 24.8 (n 3)  +200.0%  0.0001  REGRESSED"
IMPROVED = "  x=22  messages_delivered      100.0 ± 0.0 (n 2)      120.5 ± 6.4 (n 2)   +20.5%  0.0421  improved"
INSUFFICIENT = "  x=22  mtt_mean_ms                     5.0 (n 1)                      -        -       -  insufficient"
UNCHANGED = ["  x=1   mmtt_ms                  10.0 ± 0.0 (n 2)       10.0 ± 0.0 (n 2)    +0.0%  1.0000  unchanged",
             "  x=22  detection_time_ms         0.0 ± 0.0 (n 2)        1.0 ± 0.0 (n 2)      inf  0.0000  unchanged"]
AFTER = ["  2 of 5 configuration × metric pairs unchanged",
         "  new configuration, no baseline: x=3",
         "  in the baseline only (not run now): x=0",
         "  FAILED RUNS: 2 run(s) of x=1 failed",
         "  disturbed runs left out of the statistics: x=1: 0 new, 3 baseline",
         "  disturbed runs left out of the statistics: x=22: 1 new, 0 baseline",
         "budgets (new campaign):",
         "  OVER  x=1: failover_time_ms p95 <= 250ms: 309.0 (n 3)",
         "  OVER  x=22: mmtt_ms max <= 1s: no value (n 0)",
         "  ok    x=22: delivered: 12.3 (n 2)",
         "regression: 1 metric(s) in 1 configuration(s), 2 budget(s) exceeded, failed runs",
         "  x=1: failover_time_ms"]


def test_the_report_shows_what_changed_or_could_not_be_tested_and_why_it_fails() -> None:
    c = _comparison()
    lines = compare.render(c).splitlines()
    assert lines[0] == "tonight (new) vs last (baseline): Welch's t-test, alpha 0.05, minimum effect 10%"
    assert lines[1].split() == ["configuration", "metric", "baseline", "new", "change", "p", "verdict"]
    assert lines[2:] == [REGRESSED, IMPROVED, INSUFFICIENT, *AFTER]
    everything = compare.render(c, everything=True).splitlines()
    assert everything[2:] == [REGRESSED, UNCHANGED[0], IMPROVED, INSUFFICIENT, UNCHANGED[1], *AFTER]
    assert compare.render(c).endswith("failover_time_ms\n")


def test_a_comparison_fails_on_a_regression_a_budget_or_a_failed_run_alone() -> None:
    quiet = Comparison("a", "b", "mannwhitney", 0.01, 0.25, changes=[Change("x", "mmtt_ms", [1.0, 1.0], [1.0, 1.0], 1.0, "unchanged")])
    assert not quiet.failed
    assert compare.render(quiet).splitlines() == ["a (new) vs b (baseline): Mann-Whitney U, alpha 0.01, minimum effect 25%",
                                                  "  1 of 1 configuration × metric pairs unchanged", "no regression"]
    regressed = Change("x", "mmtt_ms", [1.0, 1.0], [2.0, 2.0], 0.0, "regressed")
    assert Comparison("a", "b", "welch", 0.05, 0.1, changes=[regressed]).failed
    over = Comparison("a", "b", "welch", 0.05, 0.1, budgets=[BudgetCheck("x", "l", 1.0, 1, False)])
    assert over.failed and compare.render(over).splitlines()[-1] == "regression: 0 metric(s) in 0 configuration(s), 1 budget(s) exceeded"
    failed = Comparison("a", "b", "welch", 0.05, 0.1, failed_runs={"x": 1})
    assert failed.failed and compare.render(failed).splitlines()[-1] == "regression: 0 metric(s) in 0 configuration(s), failed runs"
    assert not Comparison("a", "b", "welch", 0.05, 0.1, budgets=[BudgetCheck("x", "l", 1.0, 1, True)]).failed


def test_junit_cases_name_each_check_and_its_figures() -> None:
    cases = compare.junit_cases(_comparison())
    got = [(k.classname, k.name, k.failure, k.skipped, k.details) for k in cases]
    figures = "(welch, alpha 0.05, min effect 10%)"
    disturbed = "disturbed runs left out of the statistics ({}): timing outside the self-check's tolerances"
    assert got == [
        ("tonight.x=1", "failover_time_ms", "failover_time_ms regressed +200.0% (p 0.0001234)", None,
         f"baseline 100.0 ± 5.0 (n 3), new 300.0 ± 24.8 (n 3), change +200.0%, p 0.0001234 {figures}"),
        ("tonight.x=1", "mmtt_ms", None, None, f"baseline 10.0 ± 0.0 (n 2), new 10.0 ± 0.0 (n 2), change +0.0%, p 1 {figures}"),
        ("tonight.x=22", "messages_delivered", None, None,
         f"baseline 100.0 ± 0.0 (n 2), new 120.5 ± 6.4 (n 2), change +20.5%, p 0.0421 {figures}"),
        ("tonight.x=22", "mtt_mean_ms", None, "too few runs to test", f"baseline 5.0 (n 1), new -, change -, p - {figures}"),
        ("tonight.x=22", "detection_time_ms", None, None, f"baseline 0.0 ± 0.0 (n 2), new 1.0 ± 0.0 (n 2), change inf, p 0 {figures}"),
        ("tonight.x=1", "budget failover_time_ms p95 <= 250ms", "over budget: 309.00", None, "failover_time_ms p95 <= 250ms: 309.00 (n 3)"),
        ("tonight.x=22", "budget mmtt_ms max <= 1s", "over budget: no value", None, "mmtt_ms max <= 1s: no value (n 0)"),
        ("tonight.x=22", "budget delivered", None, None, "delivered: 12.35 (n 2)"),
        ("tonight.x=1", "runs", "2 run(s) failed", None, ""),
        ("tonight.x=1", "disturbed runs", None, disturbed.format("0 new, 3 baseline"), disturbed.format("0 new, 3 baseline")),
        ("tonight.x=22", "disturbed runs", None, disturbed.format("1 new, 0 baseline"), disturbed.format("1 new, 0 baseline")),
        ("tonight.x=0", "configuration", None, "in the baseline only", ""),
    ]


def _folder(tmp_path: Path, name: str, rows: dict[str, list[tuple[str, float | None]]], budgets: list[dict[str, object]] | None = None) -> Path:
    """A campaign folder of tiny.yaml's runs: per configuration label, (status, failover time) of each repetition."""
    loaded = spec.load(TINY)
    runs = expand.runs(loaded)
    folder = tmp_path / name
    for run in runs:
        status, value = rows.get(run.config.label, [("ok", 100.0)] * 3)[run.repetition - 1]
        run_dir = folder / "runs" / run.run_key
        run_dir.mkdir(parents=True)
        (run_dir / "summary.json").write_text(json.dumps({"status": status, "error": None, "metrics": {"failover_time_ms": value}}))
    (folder / "campaign.json").write_text(json.dumps({"name": f"campaign {name}", "budgets": budgets or [], "swept": loaded.swept}))
    table.write(folder, runs, loaded.swept)
    return folder


def test_compare_counts_failed_and_disturbed_runs_per_side_and_checks_budgets_on_the_new_runs(tmp_path: Path) -> None:
    budget = {"metric": "failover_time_ms", "stat": "max", "max": 150.0, "label": "max <= 150ms"}
    new = _folder(tmp_path, "new", {"sctp.path_max_retrans=1": [("ok", 100.0), ("failed", None), ("disturbed", 900.0)]}, [budget])
    base = _folder(tmp_path, "base", {"sctp.path_max_retrans=2": [("ok", 100.0), ("disturbed", 100.0), ("disturbed", 1.0)]},
                   [budget | {"max": 1.0}])
    c = compare.compare(new, base, ["failover_time_ms"])
    assert (c.new_name, c.base_name, c.only_new, c.only_base) == ("campaign new", "campaign base", [], [])
    assert c.failed_runs == {"sctp.path_max_retrans=1": 1}
    assert (c.disturbed_runs, c.disturbed_base) == ({"sctp.path_max_retrans=1": 1}, {"sctp.path_max_retrans=2": 2})
    assert [(ch.config, ch.new, ch.base, ch.verdict) for ch in c.changes] == [
        ("sctp.path_max_retrans=1", [100.0], [100.0] * 3, "insufficient"),
        ("sctp.path_max_retrans=2", [100.0] * 3, [100.0], "insufficient")]
    assert [(b.config, b.value, b.n, b.ok) for b in c.budgets] == [("sctp.path_max_retrans=1", 100.0, 1, True),
                                                                   ("sctp.path_max_retrans=2", 100.0, 3, True)]
    assert (c.test, c.alpha, c.min_effect) == ("welch", 0.05, 0.10)


def test_compare_lists_configurations_on_one_side_only(tmp_path: Path) -> None:
    new = _folder(tmp_path, "new", {})
    rows = table.read(new)
    base = tmp_path / "base"
    base.mkdir()
    renamed = [r | {"config": "other" if r["config"] == "sctp.path_max_retrans=1" else r["config"]} for r in rows]
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_pylist(renamed), base / table.RUNS_FILE)
    c = compare.compare(new, base / table.RUNS_FILE, ["failover_time_ms"], "mannwhitney", 0.01, 0.5)
    assert (c.only_new, c.only_base, c.base_name) == (["sctp.path_max_retrans=1"], ["other"], "base")  # no campaign.json: the folder's
    assert [ch.config for ch in c.changes] == ["sctp.path_max_retrans=2"] and c.changes[0].verdict == "unchanged"
    assert (c.test, c.alpha, c.min_effect) == ("mannwhitney", 0.01, 0.5)


def test_compare_refuses_an_unknown_metric_and_a_folder_without_a_table(tmp_path: Path) -> None:
    new = _folder(tmp_path, "new", {})
    with pytest.raises(SpecError, match=r"^--metrics: nope: unknown metric; allowed: "):
        compare.compare(new, new, ["failover_time_ms", "nope"])
    with pytest.raises(SpecError, match=f"^{tmp_path}: no campaign.parquet; allowed: a campaign folder or its campaign.parquet$"):
        compare.load(tmp_path)
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(SpecError, match=f"^{tmp_path / 'bad.parquet'}: cannot read: "):
        compare.load(tmp_path / "bad.parquet")
    name, rows, info = compare.load(new / table.RUNS_FILE)
    assert (name, len(rows), info["name"]) == ("campaign new", 6, "campaign new")  # its name, not its folder's


def test_each_association_is_compared_only_when_both_campaigns_have_the_same_several() -> None:
    two = [{"association.a.mmtt_ms": 1.0, "association.b.mmtt_ms": 2.0}]
    assert compare._association_metrics(two, two, ["mmtt_ms", "failover_time_ms"]) == [
        "association.a.mmtt_ms", "association.a.failover_time_ms", "association.b.mmtt_ms", "association.b.failover_time_ms"]
    one = [{"association.a.mmtt_ms": 1.0}]
    assert compare._association_metrics(one, one, ["mmtt_ms"]) == []  # its metrics are the run's
    assert compare._association_metrics(two, [{"association.a.mmtt_ms": 1.0, "association.c.mmtt_ms": 2.0}], ["mmtt_ms"]) == []
    assert compare._association_metrics(two, one, ["mmtt_ms"]) == []


def test_the_test_asked_for_decides_the_p_value_behind_the_verdict() -> None:
    base, new = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]  # Welch: p 0.021; Mann-Whitney's exact U: p 0.1
    assert compare.judge("c", "mmtt_ms", new, base, "welch", 0.05, 0.1).verdict == "regressed"
    judged = compare.judge("c", "mmtt_ms", new, base, "mannwhitney", 0.05, 0.1)
    assert (judged.p_value, judged.verdict) == (pytest.approx(0.1, abs=1e-9), "unchanged")


def test_ranks_that_moved_with_the_mean_unchanged_are_no_regression() -> None:
    base, new = [9.0] * 10, [8.0] * 9 + [18.0]  # both means 9: Mann-Whitney's p 0.0008, the effect 0
    judged = compare.judge("c", "mmtt_ms", new, base, "mannwhitney", 0.05, 0.1)
    assert judged.p_value is not None and judged.p_value < 0.001 and (judged.relative, judged.verdict) == (0.0, "unchanged")


def test_the_report_lists_every_regressed_metric_of_a_configuration() -> None:
    c = Comparison("a", "b", "welch", 0.05, 0.1, changes=[Change("x", m, [1.0, 1.0], [2.0, 2.0], 0.0, "regressed")
                                                           for m in ("mmtt_ms", "failover_time_ms")])
    assert compare.render(c).splitlines()[-2:] == ["regression: 2 metric(s) in 1 configuration(s)", "  x: mmtt_ms, failover_time_ms"]


def test_p_value_of_small_and_two_valued_samples() -> None:
    # two values only: Mann-Whitney's U with ties (scipy's normal approximation), not the all-equal answer 1
    tied = stats.mannwhitneyu([2.0, 2.0], [1.0, 1.0], alternative="two-sided").pvalue
    assert compare.p_value([2.0, 2.0], [1.0, 1.0], "mannwhitney") == pytest.approx(tied, rel=1e-12) and tied < 0.2
    assert compare.p_value([1.0, 2.0, 3.0], [4.0, 5.0], "mannwhitney") == pytest.approx(0.2, abs=1e-9)  # 2 of 10
    # one side constant: still Welch's t (its variance alone), not the both-constant answer
    t, df = 3 / math.sqrt(1 / 3), 2
    assert compare.p_value([1.0, 2.0, 3.0], [5.0, 5.0, 5.0], "welch") == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9)


def test_compare_judges_each_configuration_with_the_test_and_thresholds_asked_for(tmp_path: Path) -> None:
    runs = {"sctp.path_max_retrans=1": [("ok", 200.0), ("ok", 201.0), ("ok", 203.0)]}
    new, base = _folder(tmp_path, "new", runs), _folder(tmp_path, "base", {"sctp.path_max_retrans=1": [("ok", 100.0)] * 2 + [("ok", 102.0)]})
    welch = compare.compare(new, base, ["failover_time_ms"], "welch", 0.05, 0.5)
    assert [(ch.config, ch.verdict) for ch in welch.changes] == [("sctp.path_max_retrans=1", "regressed"), ("sctp.path_max_retrans=2", "unchanged")]
    assert welch.changes[0].p_value == pytest.approx(compare.p_value([200.0, 201.0, 203.0], [100.0, 100.0, 102.0], "welch"))
    ranks = compare.compare(new, base, ["failover_time_ms"], "mannwhitney", 0.05, 0.5)
    u = stats.mannwhitneyu([200.0, 201.0, 203.0], [100.0, 100.0, 102.0], alternative="two-sided").pvalue  # 0.077: ties
    assert (ranks.changes[0].p_value, ranks.changes[0].verdict) == (pytest.approx(u, rel=1e-12), "unchanged")


def test_compare_without_a_campaign_json_has_no_budgets_and_several_associations_are_judged_each(tmp_path: Path) -> None:
    from tests.unit.test_campaign import _campaign_with_associations

    base, new = _campaign_with_associations(tmp_path, "base", 60.0), _campaign_with_associations(tmp_path, "new", 80.0)
    (new / "campaign.json").unlink()
    c = compare.compare(new, base, ["failover_time_ms"])
    assert c.budgets == [] and c.new_name == "new"
    assert [ch.metric for ch in c.changes if ch.config == "sctp.path_max_retrans=1"] == [
        "failover_time_ms", "association.a.failover_time_ms", "association.b.failover_time_ms"]
    assert {ch.metric for ch in c.regressions} == {"association.b.failover_time_ms"}


def test_an_unknown_metric_is_refused_with_every_metric_allowed(tmp_path: Path) -> None:
    from sctpbench.analysis import metrics

    with pytest.raises(SpecError) as refused:
        compare.compare(tmp_path, tmp_path, ["nope"])
    assert str(refused.value) == f"--metrics: nope: unknown metric; allowed: {', '.join(metrics.METRIC_KEYS)}"
