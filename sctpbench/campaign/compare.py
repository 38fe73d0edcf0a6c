"""A campaign against a baseline: per configuration and metric, did it get worse?

Configurations are matched by label (their swept values as written), so tonight's
campaign of a file matches last night's. A metric has regressed when the two samples
differ by a statistical test (Welch's t-test by default, or Mann-Whitney U) at `alpha`
AND the mean moved by at least `min_effect` (relative) in the bad direction: the test
alone flags tiny but consistent shifts, the effect size alone flags noise. Budgets from
the new campaign's file are checked per configuration on the new runs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from sctpbench.analysis import metrics
from sctpbench.campaign import junit, table
from sctpbench.model.errors import SpecError
from sctpbench.results import campaign as campaign_files
from sctpbench.results import summary

DEFAULT_METRICS = list(summary.HEADLINE_METRICS)
# Which way is worse: times and affected messages up, deliveries down; sent is the workload.
# More primary switches is worse: a policy that flaps between paths.
WORSE = {k: (+1 if k.endswith("_ms") or k in ("messages_affected", "path_switches") else -1) for k in metrics.METRIC_KEYS}
WORSE["messages_sent"] = 0
Test = Literal["welch", "mannwhitney"]
Verdict = Literal["regressed", "improved", "unchanged", "insufficient"]


@dataclass(frozen=True)
class Change:
    config: str
    metric: str
    base: list[float]
    new: list[float]
    p_value: float | None
    verdict: Verdict

    @property
    def base_mean(self) -> float | None:
        return float(np.mean(self.base)) if self.base else None

    @property
    def new_mean(self) -> float | None:
        return float(np.mean(self.new)) if self.new else None

    @property
    def relative(self) -> float | None:
        if self.base_mean is None or self.new_mean is None:
            return None
        if self.base_mean == 0:
            return 0.0 if self.new_mean == 0 else math.copysign(math.inf, self.new_mean)
        return (self.new_mean - self.base_mean) / abs(self.base_mean)


@dataclass(frozen=True)
class BudgetCheck:
    config: str
    label: str
    value: float | None
    n: int
    ok: bool


@dataclass
class Comparison:
    new_name: str
    base_name: str
    test: Test
    alpha: float
    min_effect: float
    changes: list[Change] = field(default_factory=list)
    budgets: list[BudgetCheck] = field(default_factory=list)
    failed_runs: dict[str, int] = field(default_factory=dict)  # config → failed runs in the new campaign
    # config → disturbed runs left out of the statistics, per side: their timing was the host's
    disturbed_runs: dict[str, int] = field(default_factory=dict)
    disturbed_base: dict[str, int] = field(default_factory=dict)
    only_new: list[str] = field(default_factory=list)
    only_base: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.verdict == "regressed"]

    @property
    def over_budget(self) -> list[BudgetCheck]:
        return [b for b in self.budgets if not b.ok]

    @property
    def failed(self) -> bool:
        return bool(self.regressions or self.over_budget or self.failed_runs)


def p_value(new: list[float], base: list[float], test: Test) -> float | None:
    """Two-sided p; None when a side has too few runs to test."""
    from scipy import stats  # scipy.stats takes about 1.6 CPU-s to import (a 2-CPU build machine): only `campaign compare` needs it

    if test == "mannwhitney":
        if len(new) < 2 or len(base) < 2:
            return None
        if len(set(new) | set(base)) == 1:
            return 1.0
        return float(stats.mannwhitneyu(new, base, alternative="two-sided").pvalue)
    if len(new) < 2 or len(base) < 2:
        return None
    if np.std(new) == 0 and np.std(base) == 0:  # the t statistic is undefined; the answer is not
        return 1.0 if np.mean(new) == np.mean(base) else 0.0
    with warnings.catch_warnings():  # near-identical samples warn about precision; the p-value is still right
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.ttest_ind(new, base, equal_var=False).pvalue)


def judge(config: str, metric: str, new: list[float], base: list[float], test: Test, alpha: float, min_effect: float) -> Change:
    p = p_value(new, base, test)
    change = Change(config, metric, base, new, p, "insufficient")
    if p is None:
        return change
    rel = change.relative or 0.0
    direction = WORSE.get(metric.rsplit(".", 1)[-1], +1)  # association.<name>.<metric>: the metric's direction
    verdict: Verdict = "unchanged"
    # A distribution that moved with its mean unchanged has no direction (Mann-Whitney can say
    # it moved; at --min-effect 0 it read "improved").
    if p < alpha and rel != 0 and abs(rel) >= min_effect and direction != 0:
        verdict = "regressed" if rel * direction > 0 else "improved"
    return Change(config, metric, base, new, p, verdict)


def statistic(values: list[float], stat: str) -> float | None:
    if not values:
        return None
    if stat == "mean":
        return float(np.mean(values))
    if stat in ("median", "p50"):
        return float(np.percentile(values, 50))
    if stat.startswith("p"):
        return float(np.percentile(values, float(stat[1:])))
    return float(min(values) if stat == "min" else max(values))


def check_budget(config: str, values: list[float], budget: dict[str, Any]) -> BudgetCheck:
    value = statistic(values, budget["stat"])
    ok = value is not None and (value <= budget["max"] if "max" in budget else value >= budget["min"])
    return BudgetCheck(config, budget["label"], value, len(values), ok)


def _values(rows: list[dict[str, Any]], metric: str) -> list[float]:
    """Only ok runs: a disturbed run's figures are the host's load, a failed one's incomplete."""
    return [float(r[metric]) for r in rows if r["status"] == "ok" and r.get(metric) is not None and not math.isnan(r[metric])]


def _count(rows: list[dict[str, Any]], status: str) -> int:
    return sum(r["status"] == status for r in rows)


def _by_config(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["config"], []).append(r)
    return out


def load(path: Path) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """A campaign folder (or its campaign.parquet): name, run rows, campaign.json."""
    folder = path if path.is_dir() else path.parent
    file = folder / table.RUNS_FILE if path.is_dir() else path
    if not file.is_file():
        raise SpecError(f"{path}: no {table.RUNS_FILE}; allowed: a campaign folder or its {table.RUNS_FILE}")
    try:
        rows = table.read(file)
    except Exception as e:  # pyarrow's errors have no common base worth naming
        raise SpecError(f"{file}: cannot read: {e}") from None
    info = campaign_files.read_info(folder) or {}  # a campaign.parquet given alone has none beside it
    return info.get("name", folder.name), rows, info


def compare(new: Path, base: Path, metric_names: list[str] = DEFAULT_METRICS, test: Test = "welch",
            alpha: float = 0.05, min_effect: float = 0.10) -> Comparison:
    unknown = [m for m in metric_names if m not in metrics.METRIC_KEYS]
    if unknown:
        raise SpecError(f"--metrics: {unknown[0]}: unknown metric; allowed: {', '.join(metrics.METRIC_KEYS)}")
    new_name, new_rows, info = load(new)
    base_name, base_rows, _ = load(base)
    result = Comparison(new_name, base_name, test, alpha, min_effect)
    new_configs, base_configs = _by_config(new_rows), _by_config(base_rows)
    result.only_new = sorted(set(new_configs) - set(base_configs))
    result.only_base = sorted(set(base_configs) - set(new_configs))
    for config in sorted(new_configs):
        rows = new_configs[config]
        failed = sum(r["status"] not in ("ok", "disturbed") for r in rows)
        if failed:
            result.failed_runs[config] = failed
        if _count(rows, "disturbed"):
            result.disturbed_runs[config] = _count(rows, "disturbed")
        if _count(base_configs.get(config, []), "disturbed"):
            result.disturbed_base[config] = _count(base_configs[config], "disturbed")
        if config in base_configs:
            for metric in metric_names + _association_metrics(new_rows, base_rows, metric_names):
                result.changes.append(judge(config, metric, _values(rows, metric), _values(base_configs[config], metric),
                                            test, alpha, min_effect))
        for budget in info.get("budgets", []):
            result.budgets.append(check_budget(config, _values(rows, budget["metric"]), budget))
    return result


def _association_metrics(new_rows: list[dict[str, Any]], base_rows: list[dict[str, Any]], metric_names: list[str]) -> list[str]:
    """Each association's own metrics, when both campaigns have the same several associations
    (with one, its metrics are the run's, already compared)."""
    names = table.association_names(new_rows)
    if len(names) < 2 or names != table.association_names(base_rows):
        return []
    return [table.association_column(a, m) for a in names for m in metric_names]


def _summary(values: list[float]) -> str:
    s = metrics.mean_ci95(values)
    if s["mean"] is None:
        return "-"
    ci = f" ± {s['ci95']:.1f}" if s["ci95"] is not None else ""
    return f"{s['mean']:.1f}{ci} (n {s['n']})"


def _percent(x: float | None) -> str:
    return "-" if x is None else ("inf" if math.isinf(x) else f"{x:+.1%}")


def render(c: Comparison, everything: bool = False) -> str:
    test = "Welch's t-test" if c.test == "welch" else "Mann-Whitney U"
    out = [f"{c.new_name} (new) vs {c.base_name} (baseline): {test}, alpha {c.alpha:g}, minimum effect {c.min_effect:.0%}"]
    shown = [ch for ch in c.changes if everything or ch.verdict in ("regressed", "improved", "insufficient")]
    if shown:
        width = max(len(ch.config) for ch in shown)
        out.append(f"  {'configuration':<{width}}  {'metric':<18} {'baseline':>22} {'new':>22} {'change':>8} {'p':>7}  verdict")
        for ch in shown:
            p = "-" if ch.p_value is None else f"{ch.p_value:.4f}"
            out.append(f"  {ch.config:<{width}}  {ch.metric:<18} {_summary(ch.base):>22} {_summary(ch.new):>22}"
                       f" {_percent(ch.relative):>8} {p:>7}  {ch.verdict.upper() if ch.verdict == 'regressed' else ch.verdict}")
    unchanged = sum(ch.verdict == "unchanged" for ch in c.changes)
    out.append(f"  {unchanged} of {len(c.changes)} configuration × metric pairs unchanged")
    for config in c.only_new:
        out.append(f"  new configuration, no baseline: {config}")
    for config in c.only_base:
        out.append(f"  in the baseline only (not run now): {config}")
    for config, n in c.failed_runs.items():
        out.append(f"  FAILED RUNS: {n} run(s) of {config} failed")
    for config in sorted(set(c.disturbed_runs) | set(c.disturbed_base)):
        out.append(f"  disturbed runs left out of the statistics: {config}: {_disturbed_counts(c, config)}")
    if c.budgets:
        out.append("budgets (new campaign):")
        for b in c.budgets:
            value = "no value" if b.value is None else f"{b.value:.1f}"
            out.append(f"  {'ok  ' if b.ok else 'OVER'}  {b.config}: {b.label}: {value} (n {b.n})")
    regressed = sorted({ch.config for ch in c.regressions})
    if c.failed:
        out.append(f"regression: {len(c.regressions)} metric(s) in {len(regressed)} configuration(s)"
                   f"{', ' + str(len(c.over_budget)) + ' budget(s) exceeded' if c.over_budget else ''}"
                   f"{', failed runs' if c.failed_runs else ''}")
        out += [f"  {config}: {', '.join(ch.metric for ch in c.regressions if ch.config == config)}" for config in regressed]
    else:
        out.append("no regression")
    return "\n".join(out) + "\n"


def _disturbed_counts(c: Comparison, config: str) -> str:
    return f"{c.disturbed_runs.get(config, 0)} new, {c.disturbed_base.get(config, 0)} baseline"


def junit_cases(c: Comparison) -> list[junit.Case]:
    cases = []
    for ch in c.changes:
        details = (f"baseline {_summary(ch.base)}, new {_summary(ch.new)}, change {_percent(ch.relative)}, "
                   f"p {'-' if ch.p_value is None else f'{ch.p_value:.4g}'} ({c.test}, alpha {c.alpha:g}, min effect {c.min_effect:.0%})")
        failure = f"{ch.metric} regressed {_percent(ch.relative)} (p {ch.p_value:.4g})" if ch.verdict == "regressed" else None
        skipped = "too few runs to test" if ch.verdict == "insufficient" else None
        cases.append(junit.Case(f"{c.new_name}.{ch.config}", ch.metric, failure, skipped, details))
    for b in c.budgets:
        value = "no value" if b.value is None else f"{b.value:.2f}"
        cases.append(junit.Case(f"{c.new_name}.{b.config}", f"budget {b.label}",
                                None if b.ok else f"over budget: {value}", None, f"{b.label}: {value} (n {b.n})"))
    for config, n in c.failed_runs.items():
        cases.append(junit.Case(f"{c.new_name}.{config}", "runs", f"{n} run(s) failed"))
    for config in sorted(set(c.disturbed_runs) | set(c.disturbed_base)):
        why = f"disturbed runs left out of the statistics ({_disturbed_counts(c, config)}): timing outside the self-check's tolerances"
        cases.append(junit.Case(f"{c.new_name}.{config}", "disturbed runs", None, why, why))
    for config in c.only_base:
        cases.append(junit.Case(f"{c.new_name}.{config}", "configuration", None, "in the baseline only"))
    return cases
