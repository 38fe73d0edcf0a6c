"""The timing self-check without a kernel: hand-made records, events and plans.

Each test states figures a real run could produce and the verdict they must get; the
figures sit on both sides of a tolerance so that a wrong comparison fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sctpbench.analysis import selfcheck, store
from sctpbench.campaign import compare, execute, expand, table
from sctpbench.campaign import spec as campaign_spec
from sctpbench.collectors import records
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.outputs.summary_text import print_summary
from sctpbench.plan import build as planning
from sctpbench.plan.data import Plan

ROOT = Path(__file__).resolve().parents[2]
MS = 1_000_000
T0 = 1_000_000_000_000
TOL = selfcheck.Tolerances()
PERIODIC = selfcheck.Workload("periodic", 50.0, 200, nagle=False)


# ---------------------------------------------------------------------------- sender lateness


def test_tx_records_with_and_without_t_sched_are_both_read() -> None:
    rec = records.parse(["tx\t100\t0\t0\t200\t150\t90\n", "tx\t200\t1\t0\t200\t250\t-\n", "tx\t300\t2\t0\t200\t350\n"])
    assert [t.t_sched_ns for t in rec.tx] == [90, None, None]
    assert rec.tx[2].t_sent_ns == 350


def test_periodic_schedule_is_the_agents_from_t0_each_time() -> None:
    assert selfcheck.periodic_schedule(0, T0, 50.0) == T0
    assert selfcheck.periodic_schedule(3, T0, 3.0) == T0 + 1_000_000_000
    assert selfcheck.periodic_schedule(1, T0, 3.0) == T0 + 333_333_333  # rounded, not accumulated


def test_lateness_quantiles_from_generation_against_schedule() -> None:
    # 99 messages 0.2 ms late and one 300 ms late: p50 0.2 ms, max 300 ms
    pairs = [(T0 + i * 20 * MS + MS // 5, T0 + i * 20 * MS) for i in range(99)] + [(T0 + 2300 * MS, T0 + 2000 * MS)]
    late = selfcheck.lateness(pairs)
    assert late is not None and late["n"] == 100
    assert late["p50_ms"] == 0.2 and late["max_ms"] == 300.0
    assert 0.2 < late["p99_ms"] < 300.0
    result = selfcheck.evaluate(TOL, pairs, [], [], [], PERIODIC)
    assert [r.check for r in result.reasons] == ["lateness_max"]  # p99 (3.2 ms) is within 5 ms
    assert result.disturbed


def test_poisson_lateness_uses_the_recorded_schedule(tmp_path: Path) -> None:
    """Irregular T_SCHED (a Poisson draw) is taken as recorded: no rate-based guess."""
    sched = [T0, T0 + 7 * MS, T0 + 61 * MS, T0 + 64 * MS, T0 + 150 * MS]
    lines = [f"tx\t{s + 30 * MS}\t{i}\t0\t200\t{s + 31 * MS}\t{s}\n" for i, s in enumerate(sched)]
    run = _run_folder(tmp_path, client_lines=[f"event\t{T0}\tstart\t{T0}\n", *lines], arrival="poisson")
    summary = store.collect(run)
    assert summary["selfcheck"]["lateness"] == {"n": 5, "p50_ms": 30.0, "p99_ms": 30.0, "max_ms": 30.0}
    assert summary["status"] == "disturbed"
    assert [r["check"] for r in summary["selfcheck"]["reasons"]] == ["lateness_p99"]


def test_old_periodic_records_get_their_schedule_from_t0(tmp_path: Path) -> None:
    lines = [f"tx\t{T0 + i * 20 * MS + 2 * MS}\t{i}\t0\t200\t{T0 + i * 20 * MS + 3 * MS}\n" for i in range(10)]
    summary = store.collect(_run_folder(tmp_path, client_lines=[f"event\t{T0}\tstart\t{T0}\n", *lines]))
    assert summary["selfcheck"]["lateness"]["max_ms"] == 2.0 and summary["status"] == "ok"


def test_saturate_has_no_schedule_and_no_delay_check() -> None:
    saturate = selfcheck.Workload("saturate", 0.0, 1000, nagle=False)
    path = selfcheck.PathDelay("wan", "forward", 10 * MS)
    slow = [selfcheck.Delivery("wan", T0 + i * MS, 900 * MS) for i in range(20)]
    result = selfcheck.evaluate(TOL, [], [], [path], slow, saturate)
    assert result.lateness is None and result.delay == [] and not result.reasons
    assert any("saturat" in s for s in result.skipped)


# ---------------------------------------------------------------------------- event lag


def _event(kind: str, at_ms: int, lag_ms: float) -> dict[str, Any]:
    scheduled = T0 + at_ms * MS
    return {"kind": kind, "target": "primary", "detail": "", "at_ns": at_ms * MS, "scheduled_ns": scheduled,
            "issued_ns": scheduled, "applied_ns": scheduled + int(lag_ms * MS), "lag_ns": int(lag_ms * MS)}


def test_event_lag_is_the_worst_timeline_action_but_not_the_start() -> None:
    events = [_event("start", 0, 5000), _event("fail", 2000, 12.5), _event("restore", 3000, 130.0)]
    lag = selfcheck.event_lag(events)
    assert lag == {"n": 2, "max_ms": 130.0, "worst": "t0+3.000s restore primary"}
    result = selfcheck.evaluate(TOL, [], events, [], [], PERIODIC)
    assert [(r.check, r.measured_ms, r.tolerance_ms) for r in result.reasons] == [("event_lag", 130.0, 20.0)]
    within = selfcheck.evaluate(TOL, [], events[:2], [], [], PERIODIC)
    assert within.event_lag is not None and within.event_lag["max_ms"] == 12.5 and not within.reasons


# ---------------------------------------------------------------------------- delay


def _deliveries(path: str, mtts_ms: list[float], start_ms: int = 0) -> list[selfcheck.Delivery]:
    return [selfcheck.Delivery(path, T0 + (start_ms + 20 * i) * MS, int(m * MS)) for i, m in enumerate(mtts_ms)]


def test_delay_within_over_and_under_the_configured_one_way_delay() -> None:
    path = selfcheck.PathDelay("primary", "forward", 10 * MS)
    ok = selfcheck.evaluate(TOL, [], [], [path], _deliveries("primary", [10.3] * 20), PERIODIC)
    assert not ok.reasons and ok.delay[0]["achieved_ms"] == 10.3 and ok.delay[0]["high_ms"] == 15.0
    slow = selfcheck.evaluate(TOL, [], [], [path], _deliveries("primary", [40.0] * 20), PERIODIC)
    assert [(r.check, r.path) for r in slow.reasons] == [("delay_over", "primary")]
    fast = selfcheck.evaluate(TOL, [], [], [path], _deliveries("primary", [2.0] * 20), PERIODIC)
    assert [r.check for r in fast.reasons] == ["delay_under"]


def test_delay_allowance_is_relative_for_long_paths() -> None:
    path = selfcheck.PathDelay("sat", "forward", 300 * MS)
    within = selfcheck.evaluate(TOL, [], [], [path], _deliveries("sat", [370.0] * 20), PERIODIC)
    assert not within.reasons and within.delay[0]["high_ms"] == 375.0  # 25 % of 300 ms, not 5 ms
    over = selfcheck.evaluate(TOL, [], [], [path], _deliveries("sat", [380.0] * 20), PERIODIC)
    assert [r.check for r in over.reasons] == ["delay_over"]


def test_rate_adds_serialisation_to_the_upper_side_only() -> None:
    # 1000 B + 62 B of headers at 1 Mbit/s: 8.496 ms on the wire
    path = selfcheck.PathDelay("dsl", "forward", 20 * MS, rate_bps=1_000_000)
    w = selfcheck.Workload("periodic", 10.0, 1000, nagle=False)
    figures = selfcheck.evaluate(TOL, [], [], [path], _deliveries("dsl", [33.0] * 20), w)
    assert figures.delay[0]["serialisation_ms"] == 8.496 and figures.delay[0]["expected_ms"] == 28.496
    assert not figures.reasons  # 33 ≤ 28.496 + 7.124
    without_rate = selfcheck.evaluate(TOL, [], [], [selfcheck.PathDelay("dsl", "forward", 20 * MS)],
                                      _deliveries("dsl", [33.0] * 20), w)
    assert [r.check for r in without_rate.reasons] == ["delay_over"]
    # a lone message may pass a full token bucket at once: the lower side stays the delay
    lone = selfcheck.evaluate(TOL, [], [], [path], _deliveries("dsl", [20.1] * 20), w)
    assert not lone.reasons


def test_a_path_its_senders_fill_together_is_not_judged() -> None:
    # 50 messages/s of 250 B is 0.12 Mbit/s of 1 Mbit/s; with 0.8 Mbit/s beside it the queue is the load's.
    w = selfcheck.Workload("poisson", 50.0, 250, nagle=False)
    alone = selfcheck.PathDelay("one", "forward", 10 * MS, rate_bps=1_000_000)
    judged = selfcheck.evaluate(TOL, [], [], [alone], _deliveries("one", [40.0] * 20), w)
    assert [r.check for r in judged.reasons] == ["delay_over"]
    for shared in (800_000.0, float("inf")):
        busy = selfcheck.PathDelay("one", "forward", 10 * MS, rate_bps=1_000_000, shared_bps=shared)
        result = selfcheck.evaluate(TOL, [], [], [busy], _deliveries("one", [40.0] * 20), w)
        assert not result.reasons and not result.delay and any(s.startswith("delay: one:") for s in result.skipped), shared
    light = selfcheck.PathDelay("one", "forward", 10 * MS, rate_bps=1_000_000, shared_bps=300_000.0)
    assert [r.check for r in selfcheck.evaluate(TOL, [], [], [light], _deliveries("one", [40.0] * 20), w).reasons] == ["delay_over"]


def test_jitter_widens_both_sides() -> None:
    path = selfcheck.PathDelay("wlan", "forward", 20 * MS, jitter_ns=5 * MS)
    low = selfcheck.evaluate(TOL, [], [], [path], _deliveries("wlan", [12.0] * 20), PERIODIC)
    assert not low.reasons and low.delay[0]["low_ms"] == 9.0
    still_low = selfcheck.evaluate(TOL, [], [], [selfcheck.PathDelay("wlan", "forward", 20 * MS)],
                                   _deliveries("wlan", [12.0] * 20), PERIODIC)
    assert [r.check for r in still_low.reasons] == ["delay_under"]


def test_delay_uses_only_messages_delivered_before_the_first_event() -> None:
    path = selfcheck.PathDelay("primary", "forward", 10 * MS)
    before = _deliveries("primary", [10.2] * 10)
    after = _deliveries("primary", [1500.0] * 50, start_ms=5000)  # the failure's retransmissions
    events = [_event("fail", 4000, 10.0)]
    result = selfcheck.evaluate(TOL, [], events, [path], before + after, PERIODIC)
    assert result.delay[0]["n"] == 10 and not result.reasons
    first_at_zero = [_event("degrade", 0, 1.0)]
    none_before = selfcheck.evaluate(TOL, [], first_at_zero, [path], before + after, PERIODIC)
    assert none_before.delay == [] and any("before the first event" in s for s in none_before.skipped)


def test_a_path_that_carried_only_retransmissions_is_not_judged() -> None:
    # Drops on the primary: their retransmissions go to the secondary, an RTO late.
    primary = selfcheck.PathDelay("primary", "forward", 10 * MS)
    secondary = selfcheck.PathDelay("secondary", "forward", 10 * MS)
    deliveries = _deliveries("primary", [10.0] * 40) + _deliveries("secondary", [210.0] * 6)
    result = selfcheck.evaluate(TOL, [], [], [primary, secondary], deliveries, PERIODIC)
    assert not result.reasons and [d["path"] for d in result.delay] == ["primary"]
    assert any("secondary: 6 of 46" in s for s in result.skipped)
    shared = _deliveries("primary", [10.0] * 20) + _deliveries("secondary", [210.0] * 20)
    assert [r.path for r in selfcheck.evaluate(TOL, [], [], [primary, secondary], shared, PERIODIC).reasons] == ["secondary"]


def test_nagle_takes_the_fastest_message_not_the_low_quantile() -> None:
    # Nagle with delayed SACK: one message in eleven crosses in the path's time
    mtts = ([10.2] + [60.0] * 10) * 3
    path = selfcheck.PathDelay("primary", "forward", 10 * MS)
    nagle = selfcheck.evaluate(TOL, [], [], [path], _deliveries("primary", mtts), selfcheck.Workload("periodic", 50.0, 200, nagle=True))
    assert nagle.delay[0]["quantile"] == 0.0 and not nagle.reasons
    nodelay = selfcheck.evaluate(TOL, [], [], [path], _deliveries("primary", mtts), PERIODIC)
    assert [r.check for r in nodelay.reasons] == ["delay_over"]


# ---------------------------------------------------------------------------- tolerances and status


def _experiment(tmp_path: Path, measure: str = "") -> Path:
    text = (ROOT / "examples/failover.yaml").read_text().replace("topology: dual-homed", f"topology: {ROOT}/sctpbench/topologies/dual-homed.yaml")
    path = tmp_path / "x.yaml"
    path.write_text(text + measure)
    return path


def test_tolerances_default_and_override_from_the_experiment_file(tmp_path: Path) -> None:
    default = spec.load(_experiment(tmp_path)).measure.selfcheck.tolerances()
    assert default == selfcheck.Tolerances()
    tight = spec.load(_experiment(tmp_path, "measure:\n  selfcheck: {lateness_p99: 5ms, event_lag: 20ms, delay: 10%}\n"))
    tol = tight.measure.selfcheck.tolerances()
    assert (tol.lateness_p99_ns, tol.event_lag_ns, tol.delay_over_pct) == (5 * MS, 20 * MS, 10.0)
    assert tol.lateness_max_ns == default.lateness_max_ns
    over = spec.load(_experiment(tmp_path), ["measure.selfcheck.enabled=false"]).measure.selfcheck.tolerances()
    assert over.enabled is False


def test_tolerances_travel_in_the_plan_but_leave_the_run_id_alone(tmp_path: Path) -> None:
    a = planning.build(spec.load(_experiment(tmp_path)), 1, "agent")
    b = planning.build(spec.load(_experiment(tmp_path), ["measure.selfcheck.event_lag=1s"]), 1, "agent")
    assert a.run_id == b.run_id
    assert selfcheck.Tolerances.from_dict(Plan.from_json(b.to_json()).selfcheck).event_lag_ns == 1_000_000_000


def test_bad_tolerance_is_one_message_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"measure\.selfcheck\.event_lag: 'soon' is not a duration"):
        spec.load(_experiment(tmp_path, "measure:\n  selfcheck: {event_lag: soon}\n"))
    with pytest.raises(SpecError, match=r"measure\.selfcheck\.lateness: unknown key; allowed: enabled, lateness_p99"):
        spec.load(_experiment(tmp_path, "measure:\n  selfcheck: {lateness: 5ms}\n"))


def test_status_failed_beats_disturbed_beats_ok() -> None:
    late = selfcheck.evaluate(TOL, [(T0 + 500 * MS, T0)], [], [], [], PERIODIC)
    calm = selfcheck.evaluate(TOL, [(T0 + MS, T0)], [], [], [], PERIODIC)
    assert selfcheck.status(True, late) == "disturbed"
    assert selfcheck.status(True, calm) == "ok"
    assert selfcheck.status(False, late) == "failed"
    off = selfcheck.evaluate(selfcheck.Tolerances(enabled=False), [(T0 + 500 * MS, T0)], [], [], [], PERIODIC)
    assert selfcheck.status(True, off) == "ok" and off.reasons  # figures and reasons kept, not judged


def test_run_fields_for_telemetry() -> None:
    result = selfcheck.evaluate(TOL, [(T0 + 3 * MS, T0)], [_event("fail", 1000, 150.0)],
                                [selfcheck.PathDelay("primary", "forward", 10 * MS)], _deliveries("primary", [10.5] * 10), PERIODIC)
    fields = selfcheck.run_fields(result.to_dict())
    assert fields == {"selfcheck_lateness_p50_ms": 3.0, "selfcheck_lateness_p99_ms": 3.0, "selfcheck_lateness_max_ms": 3.0,
                      "selfcheck_event_lag_max_ms": 150.0, "selfcheck_delay_excess_ms": 0.5, "selfcheck_reasons": 1.0}


# ---------------------------------------------------------------------------- a run folder, collected


def _run_folder(tmp_path: Path, client_lines: list[str], arrival: str = "periodic", mtt_ms: float = 10.3,
                events: list[dict[str, Any]] | None = None, backend_ok: bool = True) -> Path:
    experiment = spec.load(_experiment(tmp_path), [f"workload.arrival={arrival}"])
    p = planning.build(experiment, 1, "agent")
    run = tmp_path / "run-001"
    (run / "records").mkdir(parents=True)
    (run / "plan.json").write_text(p.to_json())
    (run / "backend.json").write_text(json.dumps({"ok": backend_ok, "t0_ns": T0, "t0_realtime_ns": T0}))
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events or []))
    (run / p.associations[0].client_records).write_text("".join(client_lines))
    rx = []
    for line in client_lines:
        f = line.rstrip("\n").split("\t")
        if f[0] == "tx":
            rx.append(f"rx\t{int(f[1]) + int(mtt_ms * MS)}\t{f[2]}\t0\t200\t{f[1]}\t{p.associations[0].paths[0].client_address}\n")
    (run / p.associations[0].server_records).write_text("".join(rx))
    return run


def test_collected_summary_and_printed_run_line_say_disturbed_with_the_reason(tmp_path: Path) -> None:
    lines = [f"event\t{T0}\tstart\t{T0}\n"]
    lines += [f"tx\t{T0 + i * 20 * MS + MS}\t{i}\t0\t200\t{T0 + i * 20 * MS + MS}\t{T0 + i * 20 * MS}\n" for i in range(20)]
    run = _run_folder(tmp_path, lines, events=[_event("fail", 5000, 1200.0)])
    summary = store.collect(run)
    check = summary["selfcheck"]
    assert summary["status"] == "disturbed"
    assert check["reasons"][0]["check"] == "event_lag" and check["reasons"][0]["measured_ms"] == 1200.0
    assert check["lateness"]["max_ms"] == 1.0
    assert check["delay"][0]["path"] == "primary" and check["delay"][0]["achieved_ms"] == 10.3
    document: dict[str, Any] = {"directory": str(tmp_path), "runs": [{
        "run": "run-001", "directory": str(run), "status": summary["status"], "error": None, "params": {"seed": 1},
        "metrics": summary["metrics"], "selfcheck": check, "events": [], "paths_used": ["primary"]}],
        "summary": {}, "error": None, "disturbed": ["run-001"]}
    from io import StringIO
    out = StringIO()
    print_summary(document, out)
    text = out.getvalue()
    assert "run-001  disturbed  seed 1" in text
    assert "  disturbed event lag 1200.00 ms > 20 ms (t0+5.000s fail primary)" in text
    assert "primary MTT p10 10.30 ms (configured 10.021, allowed 9–15.021)" in text  # 100 Mbit/s: +0.021 ms


def test_a_failed_run_stays_failed_with_its_figures(tmp_path: Path) -> None:
    lines = [f"event\t{T0}\tstart\t{T0}\n", f"tx\t{T0 + 900 * MS}\t0\t0\t200\t{T0 + 901 * MS}\t{T0}\n"]
    summary = store.collect(_run_folder(tmp_path, lines, backend_ok=False))
    assert summary["status"] == "failed" and summary["selfcheck"]["lateness"]["max_ms"] == 900.0


# ---------------------------------------------------------------------------- campaigns


TINY = ROOT / "tests/data/campaigns/tiny.yaml"


def _campaign(tmp_path: Path, name: str, statuses: dict[tuple[str, int], str], failover: float = 100.0) -> Path:
    loaded = campaign_spec.load(TINY)
    runs = expand.runs(loaded)
    folder = tmp_path / name
    for run in runs:
        status = statuses.get((run.config.label, run.repetition), "ok")
        (folder / "runs" / run.run_key).mkdir(parents=True)
        value = 5000.0 if status == "disturbed" else failover + run.repetition
        check = {"reasons": [{"check": "lateness_p99", "detail": "sender lateness p99 80.00 ms > 20 ms"}]} if status == "disturbed" else {}
        (folder / "runs" / run.run_key / "summary.json").write_text(json.dumps(
            {"status": status, "error": None, "selfcheck": check,
             "metrics": {"failover_time_ms": value, "detection_time_ms": 700.0 + run.repetition, "mtt_p50_ms": 10.0, "mmtt_ms": 400.0}}))
    (folder / "campaign.json").write_text(json.dumps({"name": name, "budgets": [], "swept": loaded.swept}))
    table.write(folder, runs, loaded.swept)
    return folder


def test_compare_leaves_disturbed_runs_out_and_says_so(tmp_path: Path) -> None:
    config = "sctp.path_max_retrans=2"
    base = _campaign(tmp_path, "base", {})
    # the disturbed run's failover of 5000 ms would be a regression if it counted
    new = _campaign(tmp_path, "new", {(config, 1): "disturbed"})
    result = compare.compare(new, base)
    change = next(c for c in result.changes if c.config == config and c.metric == "failover_time_ms")
    assert change.new == [102.0, 103.0] and change.verdict != "regressed"
    assert result.disturbed_runs == {config: 1} and not result.failed_runs and not result.failed
    assert f"disturbed runs left out of the statistics: {config}: 1 new, 0 baseline" in compare.render(result)
    cases = compare.junit_cases(result)
    case = next(c for c in cases if c.name == "disturbed runs")
    assert case.classname == f"new.{config}" and case.failure is None and case.skipped and "1 new" in case.skipped
    configs = {r["config"]: r for r in pq.read_table(new / table.CONFIGS_FILE).to_pylist()}
    assert (configs[config]["runs_ok"], configs[config]["runs_disturbed"], configs[config]["runs_failed"]) == (2, 1, 0)
    assert configs[config]["failover_time_ms_n"] == 2


def test_retry_bookkeeping_counts_disturbed_attempts_and_stops_at_the_limit(tmp_path: Path) -> None:
    outcome = execute.Outcome()
    assert execute.retry_disturbed(outcome, "k", "disturbed", 2)
    assert execute.retry_disturbed(outcome, "k", "disturbed", 2)
    assert not execute.retry_disturbed(outcome, "k", "disturbed", 2)
    assert not execute.retry_disturbed(outcome, "j", "ok", 2) and not execute.retry_disturbed(outcome, "f", "failed", 2)
    assert not execute.retry_disturbed(outcome, "z", "disturbed", 0)
    assert outcome.retried == {"k": 2}


def test_a_retried_run_keeps_its_disturbed_attempts_aside_and_counts_them(tmp_path: Path) -> None:
    config = "sctp.path_max_retrans=1"
    folder = _campaign(tmp_path, "c", {(config, 1): "disturbed"})
    loaded = campaign_spec.load(TINY)
    runs = expand.runs(loaded)
    run = next(r for r in runs if r.config.label == config and r.repetition == 1)
    execute.make_room(folder, run)  # what execute does before starting it again
    assert (folder / "attempts" / f"{run.run_key}-1" / "summary.json").exists()
    (folder / "runs" / run.run_key).mkdir(parents=True)
    (folder / "runs" / run.run_key / "summary.json").write_text(json.dumps({"status": "ok", "metrics": {"failover_time_ms": 99.0}}))
    rows = {(r["config"], r["repetition"]): r for r in table.write(folder, runs, loaded.swept)}
    assert rows[(config, 1)]["status"] == "ok" and rows[(config, 1)]["retries"] == 1
    assert rows[(config, 2)]["retries"] == 0


def test_campaign_file_takes_disturbed_retries(tmp_path: Path) -> None:
    assert campaign_spec.load(TINY).campaign.disturbed_retries == 2
    path = TINY.parent / "tiny-no-retries.yaml.tmp"
    try:
        path.write_text(TINY.read_text() + "disturbed_retries: 0\n")
        assert campaign_spec.load(path).campaign.disturbed_retries == 0
        path.write_text(TINY.read_text() + "disturbed_retries: -1\n")
        with pytest.raises(SpecError, match="disturbed_retries"):
            campaign_spec.load(path)
    finally:
        path.unlink()


def test_html_report_shows_the_disturbed_reason_and_every_figure(tmp_path: Path) -> None:
    from sctpbench.outputs import report

    lines = [f"event\t{T0}\tstart\t{T0}\n"]
    lines += [f"tx\t{T0 + i * 20 * MS + 300 * MS}\t{i}\t0\t200\t{T0 + i * 20 * MS + 301 * MS}\t{T0 + i * 20 * MS}\n" for i in range(20)]
    run = _run_folder(tmp_path, lines, events=[_event("fail", 5000, 12.0)])
    store.collect(run)
    text = report.page(report.build(run, report.Options(draw_figures=False)))
    assert "status <b class=warn>disturbed</b>" in text
    assert "disturbed: sender lateness p99 300.00 ms &gt; 5 ms" in text
    assert "<td>event lag max (ms), t0+5.000s fail primary</td><td class=num>12.000</td><td class=num>≤ 20.0</td><td class=num>ok</td>" in text
    assert "OUTSIDE" in text
