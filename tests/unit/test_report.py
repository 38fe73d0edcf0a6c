"""The report's figure data and page, from small hand-made tables (no guest)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from sctpbench import cli
from sctpbench.outputs import folders, report, series
from sctpbench.results import tables

MS = 1_000_000
S = 1_000_000_000


def sample(t_ms: int, endpoint: str, path: str, state: str, primary: bool = False, rto: int = 200) -> dict:
    return {"t_ns": t_ms * MS, "t_rel_ns": t_ms * MS, "endpoint": endpoint, "path": path, "addr": "198.18.0.2",
            "state": state, "cwnd": 4380, "srtt_ms": 20.0, "rto_ms": rto, "mtu": 1500, "primary": primary}


def event(t_ms: int, source: str, kind: str, path: str | None) -> dict:
    return {"t_ns": t_ms * MS, "t_rel_ns": t_ms * MS, "source": source, "kind": kind, "path": path, "addr": None, "detail": ""}


def message(seq: int, gen_ms: int, mtt_ms: int | None, path: str | None, size: int = 200, t0_ns: int = 5 * S) -> dict:
    gen = t0_ns + gen_ms * MS
    rx = None if mtt_ms is None else gen + mtt_ms * MS
    return {"seq": seq, "stream": 0, "size": size, "t_gen_ns": gen, "t_sent_ns": gen, "t_rx_ns": rx,
            "mtt_ns": None if mtt_ms is None else mtt_ms * MS, "path": path, "from_addr": None, "t_rel_ns": gen_ms * MS}


# ---------------------------------------------------------------------------- series


def test_path_states_are_runs_of_equal_samples_refined_by_notifications() -> None:
    samples = [sample(0, "client", "primary", "ACTIVE", True), sample(100, "client", "primary", "PF", True),
               sample(200, "client", "primary", "PF", True), sample(300, "client", "primary", "INACTIVE", True),
               sample(400, "client", "primary", "INACTIVE", False)]
    # the kernel said unreachable at 260 ms, before the 300 ms sample saw it
    events = [event(50, "timeline", "fail", "primary"), event(260, "client", "ADDR_UNREACHABLE", "primary"),
              event(270, "server", "ADDR_UNREACHABLE", "primary")]
    (track,) = series.path_tracks(samples, events)
    assert track.label == "client → primary"
    assert [(i.start_s, i.end_s, i.state) for i in track.intervals] == [
        (0.0, 0.1, "ACTIVE"), (0.1, 0.26, "PF"), (0.26, 0.4, "INACTIVE")]
    assert track.primary == [(0.0, 0.4)]  # primary until the last True sample's run ends at the next observation


def test_path_states_one_track_per_endpoint_and_path() -> None:
    samples = [sample(0, "server", "secondary", "UNCONFIRMED"), sample(20, "server", "secondary", "ACTIVE"),
               sample(0, "client", "primary", "ACTIVE", True)]
    tracks = series.path_tracks(samples, [])
    assert [t.label for t in tracks] == ["client → primary", "server → secondary"]
    assert [i.state for i in tracks[1].intervals] == ["UNCONFIRMED", "ACTIVE"]


def test_cdf_points() -> None:
    pts = series.cdf([30.0, 10.0, 20.0, 10.0])
    assert pts.x.tolist() == [10.0, 10.0, 20.0, 30.0]
    assert pts.y.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert series.cdf([]).x.size == 0


def test_mtt_cdf_skips_undelivered() -> None:
    msgs = [message(0, 0, 10, "primary"), message(1, 20, None, None), message(2, 40, 30, "secondary")]
    assert series.mtt_cdf(msgs).x.tolist() == [10.0, 30.0]
    assert series.undelivered_times(msgs).tolist() == [0.02]


def test_delivered_bytes_cumulative_in_delivery_order() -> None:
    # message 1 is generated later but arrives first: order is by delivery time
    msgs = [message(0, 0, 100, "primary", size=200), message(1, 20, 10, "secondary", size=300),
            message(2, 40, None, None, size=999), message(3, 60, 10, "primary", size=100)]
    total = series.delivered_bytes(msgs)
    assert total.x.tolist() == pytest.approx([0.03, 0.07, 0.1])
    assert total.y.tolist() == [300.0, 400.0, 600.0]
    assert series.delivered_bytes(msgs, "primary").y.tolist() == [100.0, 300.0]


def test_thin_keeps_ends_and_bounds_size() -> None:
    pts = series.Points(np.arange(10_000.0), np.arange(10_000.0))
    thin = series.thin(pts, 100)
    assert thin.x.size <= 101 and thin.x[0] == 0 and thin.x[-1] == 9_999


def test_markers_keep_actions_and_notifications_not_start() -> None:
    events = [event(0, "timeline", "start", None), event(5000, "timeline", "fail", "primary"),
              event(6400, "client", "ADDR_UNREACHABLE", "primary")]
    labels = [(m.t_s, m.label) for m in series.markers(events)]
    assert labels == [(5.0, "fail primary"), (6.4, "client: primary UNREACHABLE")]


def test_mtt_by_path_groups_by_arrival_path() -> None:
    msgs = [message(0, 0, 10, "primary"), message(1, 20, 200, "secondary"), message(2, 40, 12, "primary")]
    by = series.mtt_by_path(msgs)
    assert by["primary"].y.tolist() == [10.0, 12.0] and by["secondary"].x.tolist() == [0.02]


@pytest.mark.parametrize("text, number, unit", [
    ("200ms", 200.0, "ms"), ("1.5s", 1500.0, "ms"), ("6mbit", 6.0, "Mbit/s"), ("200B", 200.0, "B"),
    ("1%", 1.0, "%"), ("96.15/s", 96.15, "/s"), ("3", 3.0, ""), ("0.5", 0.5, ""), ("cubic", None, ""), ("true", None, ""),
])
def test_parse_param(text: str, number: float | None, unit: str) -> None:
    v = series.parse_param(text)
    assert (v.number, v.unit) == (number, unit)


def test_sweep_orders_numeric_values_and_groups_other_keys() -> None:
    configs = [
        {"param.sctp.rto_min": "400ms", "param.sctp.path_max_retrans": "2", "failover_time_ms_mean": 420.0,
         "failover_time_ms_ci95": 5.0, "failover_time_ms_n": 3},
        {"param.sctp.rto_min": "200ms", "param.sctp.path_max_retrans": "2", "failover_time_ms_mean": 210.0,
         "failover_time_ms_ci95": None, "failover_time_ms_n": 1},
        {"param.sctp.rto_min": "200ms", "param.sctp.path_max_retrans": "4", "failover_time_ms_mean": None,
         "failover_time_ms_ci95": None, "failover_time_ms_n": 0},
    ]
    runs = [{"param.sctp.rto_min": "200ms", "param.sctp.path_max_retrans": "2", "failover_time_ms": 210.0, "status": "ok"},
            {"param.sctp.rto_min": "400ms", "param.sctp.path_max_retrans": "2", "failover_time_ms": float("nan"), "status": "ok"}]
    sw = series.sweep(configs, runs, "sctp.rto_min", ["sctp.path_max_retrans"], "failover_time_ms")
    assert sw.unit == "ms" and sw.ticks == []
    (s,) = sw.series  # the PMR 4 configuration has no value: no line
    assert s.label == "sctp.path_max_retrans=2"
    assert (s.x, s.mean, s.ci95, s.n) == ([200.0, 400.0], [210.0, 420.0], [0.0, 5.0], [1, 3])
    assert (s.runs_x, s.runs_y) == ([200.0], [210.0])


def test_sweep_categorical_values_get_tick_labels() -> None:
    configs = [{"param.sctp.cc": v, "mtt_p50_ms_mean": m} for v, m in (("reno", 1.0), ("cubic", 2.0))]
    sw = series.sweep(configs, [], "sctp.cc", [], "mtt_p50_ms")
    assert sw.ticks == ["cubic", "reno"] and sw.series[0].x == [0.0, 1.0] and sw.series[0].mean == [2.0, 1.0]


# ---------------------------------------------------------------------------- page, from a hand-made run folder


def write_run(run_dir: Path) -> Path:
    run_dir.mkdir(parents=True)
    (run_dir / "plan.json").write_text(json.dumps({"association": [{"path": "primary"}, {"path": "secondary"}]}))
    msgs = [message(i, 20 * i, 10 if i < 50 else (400 - 4 * (i - 50) if i < 100 else 10),
                    "primary" if i < 50 else "secondary") for i in range(150)]
    msgs[120] = message(120, 2400, None, None)
    samples = [sample(20 * i, ep, p, "INACTIVE" if (p == "primary" and i > 80 and ep == "client") else "ACTIVE",
                      p == "primary", 200 if i < 60 else 400) for i in range(150) for ep in ("client", "server")
               for p in ("primary", "secondary")]
    events = [event(0, "timeline", "start", None), event(1000, "timeline", "fail", "primary"),
              event(1610, "client", "ADDR_UNREACHABLE", "primary")]
    tables.write(run_dir, tables.MESSAGES, msgs)
    tables.write(run_dir, tables.PATH_SAMPLES, samples)
    tables.write(run_dir, tables.PATH_EVENTS, events)
    (run_dir / "summary.json").write_text(json.dumps({
        "run_id": "abc", "repetition": 1, "seed": 1, "status": "ok", "error": None,
        "metrics": {"mtt_p50_ms": 10.0, "detection_time_ms": 610.0, "failover_time_ms": 210.0},
        "detection_model": {"rto_at_failure_ms": 200, "rto_max_ms": 800, "path_max_retrans": 2, "model_ms": 1400.0,
                            "bound_ms": 1630.0},
        "events": [{"kind": "fail", "target": "primary", "detail": "", "at_ns": S, "lag_ns": 9 * MS}],
        "paths_used": ["primary", "secondary"]}))
    (run_dir / "params.json").write_text(json.dumps({
        "requested": {"rto_min_ms": 200, "sack_delay_ms": 10, "pf_retrans": None},
        "sysctl": {"client": {"rto_min": "200", "sack_timeout": "10", "pf_retrans": "0"}},
        "association": {"client": {"rto_min_ms": "200", "sack_delay_ms": "10", "primary": "198.18.0.2"}}}))
    (run_dir / "versions.json").write_text(json.dumps({"kernel_release": "6.1.176"}))
    (run_dir / "host.json").write_text(json.dumps({"backend": "uml"}))
    return run_dir


EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


def test_run_page_has_every_figure_inline_and_nothing_external(tmp_path: Path) -> None:
    run = write_run(tmp_path / "s" / "run-001")
    text = report.page(report.build(run))
    assert text.count("<svg") == 5
    assert not EXTERNAL.search(text)
    assert "<?xml" not in text
    for expected in ("failover time (ms)", "RFC timer model", "unset (kernel default)", "sysctl client",
                     "6.1.176", "client: primary UNREACHABLE", "message generation time from t0 (s)"):
        assert expected in text


def test_pages_without_figures_keep_frames(tmp_path: Path) -> None:
    run = write_run(tmp_path / "s" / "run-001")
    text = report.page(report.build(run, report.Options(draw_figures=False)))
    assert text.count("<svg") == 0 and text.count('class="placeholder"') == 5


def test_params_table_pairs_requested_with_read_back() -> None:
    text = report.params_table({"requested": {"sack_delay_ms": 10}, "sysctl": {"client": {"sack_timeout": "10"}},
                                "association": {"client": {"sack_delay_ms": "10", "primary": "198.18.0.2"}}})
    rows = re.findall(r"<tr>(.*?)</tr>", text)
    assert re.findall(r"<td[^>]*>(.*?)</td>", rows[1]) == ["sack_delay_ms", "10", "10", "10"]
    assert "198.18.0.2" in rows[2]


def test_cli_report_writes_page_and_pngs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "s" / "run-001")
    assert cli.main(["report", str(tmp_path / "s"), "--png", str(tmp_path / "png")]) == 0
    assert (tmp_path / "s" / "report.html").exists()
    pngs = sorted(p.name for p in (tmp_path / "png").iterdir())
    assert pngs == [f"run-001-{n}.png" for n in ("delivered", "mtt-cdf", "mtt-time", "path-samples", "path-states")]
    for p in (tmp_path / "png").iterdir():
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000
    assert cli.main(["report", str(run), "--out", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").read_text().count("<svg") == 5


def test_cli_report_refuses_other_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a run (plan.json), session (run-*/ folders) or campaign (campaign.json) folder" in err
    with pytest.raises(folders.NotAResultsFolder):
        folders.kind(tmp_path / "missing")
