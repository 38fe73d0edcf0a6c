"""The report's tables list only the metrics the runs produced (no row with n 0), grouped:
delivery, latency, failure, handover, multipath, bulk, competing traffic, models. The
figures are the stored session of examples/failover.yaml (tests/data/run-summaries)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sctpbench.analysis import metrics as analysis_metrics
from sctpbench.model import spec
from sctpbench.outputs import report
from sctpbench.plan import build
from sctpbench.results.summary import METRICS, RunMetrics

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "tests/data/run-summaries/failover-session.json"


def _rows(html: str) -> list[list[str]]:
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", html)]
    return [c for c in cells if c]  # the header's cells are <th>


def _across_runs() -> dict[str, Any]:
    """The session summary `run` writes for the stored run: every metric, most with n 0."""
    run = json.loads(SESSION.read_text())["runs"][0]
    return analysis_metrics.summarize([run["metrics"]])


def test_every_metric_has_a_group() -> None:
    grouped = [k for _, keys in report.METRIC_GROUPS for k in keys]
    assert sorted(grouped) == sorted(METRICS) and len(grouped) == len(set(grouped))
    assert [g for g, _ in report.METRIC_GROUPS] == ["delivery", "latency", "failure", "handover", "multipath", "bulk",
                                                   "competing traffic", "models"]


def test_across_runs_lists_only_metrics_with_values_by_group() -> None:
    summary = _across_runs()
    assert any(s["n"] == 0 for s in summary.values())  # what the table had listed as "–" with n 0
    rows = _rows(report.summary_table(summary))
    listed = [r[1] for r in rows]
    assert listed and all(summary[k]["n"] > 0 for k in listed)
    assert set(listed) == {k for k, s in summary.items() if s["n"]}
    groups = [r[0] for r in rows if r[0]]
    assert groups == ["delivery", "latency", "failure", "handover"]  # a failover: no multipath, bulk, traffic or model
    assert "startup_mtt_mean_ms" not in listed and "holb_mean_ms" not in listed


def test_a_metric_of_another_version_is_listed_under_other() -> None:
    rows = _rows(report.summary_table({"mtt_p50_ms": {"mean": 10.0, "ci95": None, "n": 1},
                                       "some_future_ms": {"mean": 1.0, "ci95": None, "n": 1}}))
    assert [r[:2] for r in rows] == [["latency", "mtt_p50_ms"], ["other", "some_future_ms"]]


def test_a_run_without_a_failure_has_no_failure_rows() -> None:
    plain = RunMetrics(messages_sent=10, messages_delivered=10, mtt_mean_ms=10.0, mtt_p50_ms=10.0, mtt_p99_ms=10.0, mmtt_ms=10.0)
    table = report.metrics_table({"paths_used": ["primary"]}, plain)
    assert "detection time" not in table and "failover time" not in table and "affected" not in table
    run = json.loads(SESSION.read_text())["runs"][0]
    failed = report.metrics_table(run, RunMetrics.from_dict(run["metrics"], "summary.json"))
    assert "detection time (ms)" in failed and "failover time (ms)" in failed and "RFC timer model" in failed


def _failover_plan() -> dict[str, Any]:
    """plan.json of examples/failover.yaml: two paths, primary and secondary, 100 Mbit/s each way."""
    return dict(json.loads(build.build(spec.load(ROOT / "examples" / "failover.yaml"), 1, "agent").to_json()))


def test_a_one_association_run_says_so_instead_of_repeating_its_metrics() -> None:
    run = json.loads(SESSION.read_text())["runs"][0]
    assert list(run["associations"]) == ["main"]
    said = report.associations_table(run)
    assert "<table" not in said and "MTT p50" not in said, said  # the Metrics table's figures, not again
    assert "One association, <b>main</b>: client → server over primary, secondary" in said
    assert "the table above" in said
    two = run | {"associations": {"main": run["associations"]["main"], "ops": run["associations"]["main"]}}
    assert [r[0] for r in _rows(report.associations_table(two))] == ["main", "ops"]


def test_offered_load_lists_every_path_with_0_where_none_was_offered() -> None:
    """A failover run's association is counted on the primary it started on: the secondary is
    listed too, with nothing offered (it was missing from the table)."""
    run = json.loads(SESSION.read_text())["runs"][0] | {"load": [
        {"path": "primary", "direction": "forward", "capacity_bps": 100_000_000, "offered_bps": 104_800.0,
         "utilisation": 0.001048, "sources": ["main"]}]}
    rows = _rows(report.load_table(run, _failover_plan()))
    assert rows == [["primary", "forward", "main", "0.105", "100.000", "0.001"],
                    ["secondary", "forward", "–", "0.000", "100.000", "0.000"]], rows
    # A run folder without plan.json: the paths its associations name, capacity unknown.
    assert [r[:4] for r in _rows(report.load_table(run, {}))] == [["primary", "forward", "main", "0.105"],
                                                                 ["secondary", "forward", "–", "0.000"]]
    assert report.load_table(run | {"load": []}, _failover_plan()) == ""
