"""The report's tables list only the metrics the runs produced (no row with n 0), grouped:
delivery, latency, failure, handover, multipath, bulk, competing traffic, models. The
figures are the stored session of examples/failover.yaml (tests/data/run-summaries)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sctpbench.analysis import metrics as analysis_metrics
from sctpbench.outputs import report
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
