"""Where the handover metrics go, from hand-made summaries and tables (no guest): the
cumulative-TSN curve, the report's handover table and figure, the run line, campaign
columns and the comparison's direction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sctpbench.analysis import metrics
from sctpbench.campaign import compare, table
from sctpbench.outputs import figures, folders, report, series, summary_text
from sctpbench.results.summary import RunMetrics

MS = 1_000_000

SWITCHES = [
    {"association": "main", "t_rel_s": 4.0, "from": "secondary", "to": "primary", "cause": "policy", "delay_ms": None,
     "mtt_mean_ms": 12.5, "mmtt_ms": 40.0, "messages": 150, "undelivered": 2},
    {"association": "main", "t_rel_s": 2.0, "from": "primary", "to": "secondary", "cause": "handover", "delay_ms": 10.0,
     "mtt_mean_ms": 10.0, "mmtt_ms": 10.0, "messages": 150, "undelivered": 0},
]
SUMMARY: dict[str, Any] = {
    "metrics": {"path_switches": 2, "handover_delay_ms": 10.0, "handover_delay_max_ms": 10.0,
                "handover_mtt_mean_ms": 11.2, "handover_mmtt_ms": 40.0},
    "handover": {"window_s": [-1.0, 2.0], "switches": SWITCHES},
    "associations": {"main": {"handover": {"primary_seconds": {"primary": 4.0, "secondary": 2.0},
                                           "delivered_share": {"primary": 0.75, "secondary": 0.25}}}},
}


def test_the_cumulative_tsn_curve_is_the_highest_acknowledged_so_far_per_association() -> None:
    rows = [{"association": "main", "t_rel_ns": t * MS, "cum_tsn_ack": c, "path": p}
            for t, c, p in ((10, 1, "a"), (30, 5, "b"), (40, 3, "a"), (50, 6, "b"))]
    rows.append({"association": "other", "t_rel_ns": 20 * MS, "cum_tsn_ack": 2, "path": "a"})
    curves = series.cum_tsn(rows)
    assert list(curves) == ["main", "other"]
    assert np.allclose(curves["main"].x, [0.01, 0.03, 0.04, 0.05])
    assert list(curves["main"].y) == [1, 5, 5, 6]  # the stale SACK (3 after 5) does not pull the curve down


def test_the_report_lists_each_switch_in_time_order_and_time_on_each_path() -> None:
    page = report.handover_table(SUMMARY)
    assert page.index("handover") < page.index("policy")  # 2 s before 4 s
    assert "Primary changed 2 time(s)" in page and "from -1 s to +2 s" in page
    assert "150 (2 not delivered)" in page
    assert "4.000" in page and "75.0" in page and "25.0" in page
    assert report.handover_table({"metrics": {}, "handover": {"switches": []}}) == ""


def test_a_run_with_cum_tsn_rows_gets_the_figure_and_one_without_does_not(tmp_path: Path) -> None:
    run = folders.RunData(tmp_path, SUMMARY, {}, {}, {}, {"associations": []}, [], [], [])
    assert "cum-tsn" not in [f.name for f in figures.run_figures(run)]
    run.cum_tsn = [{"association": "main", "t_rel_ns": 10 * MS, "cum_tsn_ack": 1, "path": "primary"}]
    assert [f.name for f in figures.run_figures(run)][-1] == "cum-tsn"


def test_the_run_line_sums_up_the_switches_and_is_absent_without_any() -> None:
    line = summary_text.handover_line(RunMetrics.from_dict(SUMMARY["metrics"], "summary.json"), SUMMARY["handover"])
    assert line == ("handover  2 switch(es), primary changed 2 time(s); delay mean 10.00 max 10.00 ms (1 of 2 delivered "
                    "on the new path); messages from -1 s to +2 s: MTT mean 11.20 ms MMTT 40.00 ms")
    assert summary_text.handover_line(RunMetrics(path_switches=0), {"switches": []}) is None


@pytest.mark.parametrize("key", ["handover_delay_ms", "handover_delay_max_ms", "handover_mtt_mean_ms", "handover_mmtt_ms",
                                 "path_switches"])
def test_campaign_tables_have_every_handover_metric_and_more_is_worse(key: str) -> None:
    assert key in metrics.METRIC_KEYS and key in table.metric_columns(["a"])
    assert table.association_column("a", key) in table.metric_columns(["a"])
    assert compare.WORSE[key] == +1


def test_across_associations_takes_the_pooled_handover_metrics() -> None:
    own = {"messages_sent": 1, "handover_delay_ms": 5.0, "path_switches": 1}
    run = metrics.across_associations({"a": own, "b": own | {"handover_delay_ms": 15.0}}, [],
                                      handover={"handover_delay_ms": 10.0, "path_switches": 2})
    assert run == {"messages_sent": 2, "handover_delay_ms": 10.0, "path_switches": 2}
