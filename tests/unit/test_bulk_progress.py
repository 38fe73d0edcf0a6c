"""Bulk progress at fixed times of a run (acked_at_10s, …; analysis/cumtsn.py, analysis/store.py)
on a real guest run: tests/data/seed002-bulk is seed 002's reproduction cut to 12 s of bulk data
at 64 kbit/s with one move of the terminal (its experiment.yaml; UML guest, virtual clock), the
client's two captures, records, plan and the summary the guest run wrote. The analysis is run
again here with the real tshark, and the figures are checked against a count made from the
SACKs directly and against what the guest run wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sctpbench.analysis import cumtsn, store
from sctpbench.plan.data import Plan
from sctpbench.results import summary

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "seed002-bulk" / "run-001"
S = 1_000_000_000


def _workload_start_rel_ns(run_dir: Path, t0_ns: int) -> int:
    """The client agent's `start` record (the moment its workload began), from t0."""
    for line in (run_dir / "records" / "main.client.rec").read_text().splitlines():
        kind, _, name, *args = line.split("\t")
        if kind == "event" and name == "start":
            return int(args[0]) - t0_ns
    raise AssertionError("no start record")


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    run_dir = tmp_path_factory.mktemp("seed002") / "run-001"
    shutil.copytree(FIXTURE, run_dir)
    return run_dir, store.collect(run_dir)


def test_chunks_acknowledged_10s_in_are_the_highest_cumulative_tsn_by_then(analysed: tuple[Path, dict[str, Any]]) -> None:
    run_dir, written = analysed
    plan = Plan.from_json((run_dir / "plan.json").read_text())
    backend = json.loads((run_dir / "backend.json").read_text())
    assoc = plan.associations[0]
    start = _workload_start_rel_ns(run_dir, backend["t0_ns"])
    sacks = cumtsn.rows(assoc.name, cumtsn.Ends.of(assoc), cumtsn.client_packets(run_dir, assoc, cumtsn.INIT_OR_SACK),
                        backend["t0_realtime_ns"])
    by_10s = max(r["cum_tsn_ack"] for r in sacks if r["t_rel_ns"] <= start + 10 * S)
    metrics = written["metrics"]
    assert metrics["acked_at_10s"] == by_10s == 59  # what the guest run wrote, too
    # 30, 60 and 120 s are past the 12 s workload: not measured, not the last value carried on.
    assert (metrics["acked_at_30s"], metrics["acked_at_60s"], metrics["acked_at_120s"]) == (None, None, None)
    # The association's own figures are the run's (one association).
    per = written["associations"]
    assert {k: per["main"]["metrics"][k] for k in cumtsn.ACKED_AT_METRICS} == {k: metrics[k] for k in cumtsn.ACKED_AT_METRICS}


def test_the_guest_runs_summary_has_the_same_figures() -> None:
    guest = summary.read(FIXTURE)
    assert guest is not None and guest.status == "ok"
    assert (guest.metrics.acked_at_10s, guest.metrics.acked_at_30s) == (59, None)


def test_progress_never_falls_and_counts_only_what_was_sent(analysed: tuple[Path, dict[str, Any]]) -> None:
    run_dir, written = analysed
    table = pq.read_table(run_dir / "cum_tsn.parquet").to_pylist()
    curve = cumtsn.held(table, "main")
    at = cumtsn.acked_at(curve, 0, 12 * S, (2.0, 4.0, 6.0, 8.0, 10.0, 12.0))
    assert all(v is not None for v in at)
    values = [v for v in at if v is not None]
    metrics = written["metrics"]
    assert values == sorted(values) and 0 < values[0] and values[-1] <= metrics["messages_sent"]
    # A SACK that crossed the slower path and arrived after a newer one is a dip in the
    # table, never in what the sender holds.
    assert [c for _, c in curve] == sorted(c for _, c in curve)


def test_without_captures_the_figures_are_none(tmp_path: Path) -> None:
    run_dir = tmp_path / "run-001"
    shutil.copytree(FIXTURE, run_dir, ignore=shutil.ignore_patterns("captures"))
    # The same records with captures off in the plan: what a run without `capture: true` is.
    plan = json.loads((run_dir / "plan.json").read_text())
    plan["processes"] = [p for p in plan["processes"] if p["role"] != "capture"]
    (run_dir / "plan.json").write_text(json.dumps(plan))
    written = store.collect(run_dir)
    metrics = summary.RunMetrics.from_dict(written["metrics"], run_dir)
    assert metrics.messages_sent == 95
    assert all(metrics.get(k) is None for k in cumtsn.ACKED_AT_METRICS)
    # Every association has every metric, None where no capture says it.
    assert {k: written["associations"]["main"]["metrics"][k] for k in cumtsn.ACKED_AT_METRICS} == dict.fromkeys(cumtsn.ACKED_AT_METRICS)
