"""The live view's parts that need no browser: filling Grafana's variables, running a panel's
queries against a real influxd, the check the browser test makes of each panel (shown able to
fail with a broken query), and the messages for a refused or absent InfluxDB."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sctpbench import cli
from sctpbench.dashboards import catalog, evaluate, live, watch
from sctpbench.dashboards.model import Query
from sctpbench.telemetry import influx, server, stream
from tests.support import live_view, telemetry
from tests.support.telemetry import live_points, local_influxd

ALL = evaluate.Selection({v.name: evaluate.ALL for v in catalog.RUNS.variables})
PANELS = [p for row in catalog.RUNS.rows for p in row.panels]
R1_T0 = time.time_ns() - 5_000_000_000
# The panels of what only some runs have (their data comes from the real run, PANELS_RUN).
RUN_ONLY = ("Cumulative TSN acknowledged per association", "Handover delay per path switch",
            "Policy decisions and their inputs", "Competing flows' throughput")


@pytest.fixture(scope="module")
def influxd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path_factory.mktemp("influx"))


@pytest.fixture(scope="module")
def panels_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real run with a policy, handovers, a competing flow and captures, its t0 0.3 s after
    r1's: inside r1's time range, and ending before it (r1 stays the newest run)."""
    return telemetry.panels_run(tmp_path_factory.mktemp("panels"), R1_T0 + 300_000_000)


@pytest.fixture(scope="module")
def target(influxd: server.LocalServer, panels_run: Path) -> influx.Target:
    target = influxd.target()
    influx.ensure_database(target)
    influx.writer(target).write(live_points("r1", R1_T0, range(0, 200)))
    pushed = stream.push(panels_run, target)  # points from the real point builder
    assert pushed["not_sent"] == 0, pushed["errors"]
    return target


def _only(run: str) -> evaluate.Selection:
    return evaluate.Selection(ALL.values | {"run": run})


def test_every_query_is_filled_in() -> None:
    span = evaluate.Window(1, 2)
    for where, q in catalog.RUNS.queries():
        assert not re.search(r"\$\w", ALL.fill(q, span)), where
    one = evaluate.Selection({"run": "a.b", "association": "ops"}).fill('"run" =~ /^$run$/ AND "association" =~ /^$association$/')
    assert one == '"run" =~ /^a\\.b$/ AND "association" =~ /^ops$/'


def test_every_panel_has_data_and_the_window_follows_the_newest_run(target: influx.Target) -> None:
    span = evaluate.window(target, ALL, time.time_ns())
    assert span.end_ns - span.start_ns == 199 * 20_000_000 + 2 * evaluate.MARGIN_NS
    data = evaluate.dashboard_data(target, catalog.RUNS, ALL, span)
    assert evaluate.panels_without_data(data) == []
    marks = [m for a in catalog.RUNS.annotations for m in evaluate.marks(target, a, _only("r1"), span)]
    assert {m.text for m in marks} == {"timeline: fail primary", "client: ADDR_UNREACHABLE"}
    assert evaluate.variable_options(target, catalog.RUNS.variables[3], _only("r1")) == ["main", "ops"]


def test_the_real_runs_policy_handovers_flow_and_cumulative_tsn_are_drawn(target: influx.Target, panels_run: Path) -> None:
    run = json.loads((panels_run / "plan.json").read_text())["run_id"]
    summary = json.loads((panels_run / "summary.json").read_text())
    span = evaluate.window(target, ALL, time.time_ns())
    data = {d.panel.title: d for d in evaluate.dashboard_data(target, catalog.RUNS, _only(run), span)}
    switches = summary["handover"]["switches"]
    delays = sorted(row[1] for s in data["Handover delay per path switch"].series for row in s.rows)
    assert delays == sorted(s["delay_ms"] for s in switches) and len(delays) == 4
    policy = [dict(zip(s.columns, row, strict=True)) for s in data["Policy decisions and their inputs"].series for row in s.rows]
    assert len(policy) == 2 * 4 and {r["path"] for r in policy} == {"primary", "secondary"}  # 4 switches, 2 paths weighed each
    assert {r["title"].split(":")[0] for r in policy if r["chosen"]} == {"switch primary -> secondary", "switch secondary -> primary"}
    assert [s.label.split()[0] for s in data["Competing flows' throughput"].series] == ["bulk"]
    last = max(row[1] for s in data["Cumulative TSN acknowledged per association"].series for row in s.rows if row[1] is not None)
    assert last == summary["cum_tsn"]["associations"]["main"]["last_cum_tsn_ack"] == 150
    marks = evaluate.marks(target, catalog.RUNS.annotations[2], _only(run), span)
    assert [m.text for m in marks] == [f"main: {s['from']} -> {s['to']} (policy), {s['delay_ms']:.1f} ms" for s in switches]


def test_a_run_is_one_row_per_association_and_one_per_run(target: influx.Target, panels_run: Path) -> None:
    """A run writes its sctp_run point across associations (`all`) and one per association: the
    campaign row lists each association once (the Runs table showed a one-association run as
    `all` and `main`), and what belongs to the run (its timing self-check) once."""
    run = json.loads((panels_run / "plan.json").read_text())["run_id"]
    associations = sorted(json.loads((panels_run / "summary.json").read_text())["associations"])
    span = evaluate.window(target, ALL, time.time_ns())
    data = {d.panel.title: d for d in evaluate.dashboard_data(target, catalog.RUNS, ALL, span)}

    def rows(title: str, of_run: str) -> list[dict[str, str]]:
        return [s.tags for s in data[title].series if s.tags.get("run") == of_run for _ in s.rows]

    for of_run, names in ((run, associations), ("r1", ["main", "ops"])):
        assert sorted(r["association"] for r in rows("Runs", of_run)) == names, (of_run, rows("Runs", of_run))
        assert len(rows("Timing self-check per run", of_run)) == 1, rows("Timing self-check per run", of_run)
    # The real run failed no path (its policy switched): only r1 has failover times to draw.
    assert sorted(r["association"] for r in rows("Failover and detection time per run", "r1")) == ["main", "ops"]


def test_every_query_of_sctp_run_names_the_points_it_reads() -> None:
    """The rule behind one row per association: a run's `all` point and its associations' are
    never read together (each would be a row, or a count, of its own)."""
    for where, q in catalog.RUNS.queries():
        if '"sctp_run"' in q:
            assert "\"association\" = 'all'" in q or "\"association\" != 'all'" in q, where


def _page_statuses(data: list[evaluate.PanelData]) -> dict[str, dict[str, object]]:
    """The status lines as the browser test reads them from the page (tests/support/live_view.py's script)."""
    out: dict[str, dict[str, object]] = {}
    for d in data:
        html = live._status(d.panel, live._shown(d))
        attrs = dict(re.findall(r'data-(\w+)="([^"]*)"', html))
        error = re.sub(r"<[^>]+>", "", html) if "sb-error" in html else ""
        out[attrs["panel"].replace("&#x27;", "'")] = {"points": int(attrs["points"]), "error": error}
    return out


def test_a_broken_panel_query_fails_the_check(target: influx.Target) -> None:
    span = evaluate.window(target, ALL, time.time_ns())
    mtt = PANELS[0]
    misspelt = dataclasses.replace(mtt, queries=(Query(mtt.queries[0].influxql.replace('"mtt_ms"', '"mtt_msx"')),))
    invalid = dataclasses.replace(PANELS[1], queries=(Query("SELECT count( FROM sctp_message"),))
    data = [evaluate.panel_data(target, p, ALL, span) for p in (misspelt, invalid, *PANELS[2:])]
    lacking = evaluate.panels_without_data(data)
    assert lacking[0] == f"{mtt.title}: no data" and lacking[1].startswith(f"{PANELS[1].title}: ") and len(lacking) == 2
    titles = [p.title for p in PANELS]
    assert [t.split(":")[0] for t in live_view.panels_lacking_data(_page_statuses(data), titles)] == titles[:2]
    good = [evaluate.panel_data(target, p, ALL, span) for p in PANELS]
    assert live_view.panels_lacking_data(_page_statuses(good), titles) == []


@pytest.mark.parametrize("title", [*RUN_ONLY, "Headline metrics per configuration", "Failover time per configuration"])
def test_a_broken_query_of_a_new_panel_fails_the_check(target: influx.Target, title: str) -> None:
    span = evaluate.window(target, ALL, time.time_ns())
    panel = next(p for p in PANELS if p.title == title)
    # The measurement misspelt: a query that runs and finds nothing.
    broken = dataclasses.replace(panel, queries=tuple(Query(re.sub(r'FROM "(\w+)"', r'FROM "\1x"', q.influxql), q.alias,
                                                                q.result_format) for q in panel.queries))
    data = [evaluate.panel_data(target, p, ALL, span) for p in (broken if p is panel else p for p in PANELS)]
    assert evaluate.panels_without_data(data) == [f"{title}: no data"]
    assert live_view.panels_lacking_data(_page_statuses(data), [p.title for p in PANELS]) == [f"{title}: no data"]


def test_a_read_of_new_points_is_what_a_whole_read_finds(target: influx.Target) -> None:
    """The tick's one request (evaluate.tail) gives each panel what its own queries give over
    the same window, and names the newest run."""
    span = evaluate.window(target, _only("r1"), time.time_ns())
    live_panels = [p for p in PANELS if "$timeFilter" in p.queries[0].influxql]
    tail = evaluate.tail(target, [(p, span) for p in live_panels], catalog.RUNS.annotations, _only("r1"), span)
    assert tail.newest is not None and tail.newest[1:] == ("session", "r1")
    assert tail.newest[0] == R1_T0 + 199 * 20_000_000
    assert tail.data == [evaluate.panel_data(target, p, _only("r1"), span) for p in live_panels]
    assert tail.marks == [m for a in catalog.RUNS.annotations for m in evaluate.marks(target, a, _only("r1"), span)]


def test_refused_credentials_and_no_server_are_said_plainly(influxd: server.LocalServer, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no default server folder to fall back on
    for name in ("SCTPBENCH_INFLUX_DIR", "SCTPBENCH_INFLUX_TOKEN", "SCTPBENCH_INFLUX_USERNAME", "SCTPBENCH_INFLUX_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    refused = live.check(influx.Target(url=influxd.url))
    assert "refused the credentials (HTTP 401)" in refused and "--influx-dir" in refused
    absent = live.check(influx.Target(url=f"http://127.0.0.1:{server.free_port()}", timeout_s=2))
    assert "no InfluxDB answers there" in absent
    assert live.check(influxd.target()) == ""


def test_refresh_intervals() -> None:
    assert [live.refresh_seconds(r) for r in ("5s", "500ms", "1m")] == [5.0, 0.5, 60.0]
    with pytest.raises(ValueError):
        live.refresh_seconds("soon")


def test_every_panel_kind_has_a_view() -> None:
    assert {p.kind for p in PANELS} <= set(live.VIEWS)


def test_grafana_reads_the_annotation_columns_from_the_target() -> None:
    for a in catalog.RUNS.to_json()["annotations"]["list"]:
        assert a["target"]["textColumn"] == a["textColumn"] == "title"
        assert a["target"]["tagsColumn"] == a["tagsColumn"] == "kind"


def test_dashboards_stop_ends_the_view_and_the_influxdb_that_watch_started(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What --watch starts (watch.prepare: influxd and the view, real processes) and
    `sctpbench dashboards stop` ends: both processes gone, their ports free, no pid file left;
    the data stays. A view.pid naming a process that is not this folder's view is left alone."""
    telemetry.require_influxd()
    directory, port = tmp_path / "influx", server.free_port()
    watched = watch.prepare(directory, port)
    assert watched.started == ("InfluxDB", "the live view")
    assert f"sctpbench dashboards stop --influx-dir {directory}" in watch.message(watched)
    view = watch.view_process(directory)
    influxd_pid = int((directory / "influxd.pid").read_text().split()[0])
    assert view is not None and view[1] == port
    try:
        assert cli.main(["dashboards", "stop", "--influx-dir", str(directory)]) == 0
        said = capsys.readouterr().out
        assert said.startswith(f"stopped the live view (pid {view[0]}, {watched.view_url}) and InfluxDB ({watched.influx.url}"), said
        for pid in (view[0], influxd_pid):
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        assert not watch.view_answers(watched.view_url) and server.port_free(port) and server.port_free(watched.influx.port)
        assert not (directory / watch.VIEW_PID).exists() and not (directory / "influxd.pid").exists()
        assert (directory / "credentials.json").exists()  # the server's folder and data stay
        assert cli.main(["dashboards", "stop", "--influx-dir", str(directory)]) == 0
        assert "nothing to stop" in capsys.readouterr().out
        (directory / watch.VIEW_PID).write_text(f"{os.getpid()} {port}\n")  # a pid that is no view of ours
        assert watch.stop(directory) == []  # and this test is still alive to say so
    finally:
        watch.stop(directory)


def test_the_window_is_the_newest_attempt_of_the_newest_run(influxd: server.LocalServer) -> None:
    """The same run id in another campaign, and the same run again under the same campaign (a
    retry, the campaign again elsewhere), are runs of their own: the window spans the newest
    attempt alone, not everything since the first."""
    target = influxd.target("attempts")
    influx.ensure_database(target)
    w = influx.writer(target)
    now = time.time_ns()
    w.write(live_points("r9", now - 60_000_000_000, range(0, 200)))  # the first attempt, a minute ago
    w.write([line.replace("campaign=session", "campaign=other") for line in live_points("r9", now - 30_000_000_000, range(0, 50))])
    w.write(live_points("r9", now - 10_000_000_000, range(0, 100)))  # done again
    span = evaluate.window(target, ALL, now)
    assert (span.start_ns, span.end_ns) == (now - 10_000_000_000 - evaluate.MARGIN_NS,
                                            now - 10_000_000_000 + 99 * 20_000_000 + evaluate.MARGIN_NS)


def test_new_points_are_read_as_they_come_not_at_the_next_tick(influxd: server.LocalServer) -> None:
    """While a run streams, a look between reads (every 0.05 s) finds a batch the writer has
    just sent and reads it then, rather than at the next read of every panel (0.2 s on); a look
    that finds nothing new sends the browser nothing; none goes while the browser is still
    drawing the last message."""
    target = influxd.target("pacing")
    influx.ensure_database(target)
    w = influx.writer(target)
    t0 = time.time_ns() - 5_000_000_000
    w.write(live_points("r5", t0, range(0, 100)))
    dash = live.LiveDashboard(catalog.RUNS, live.Source(target, refresh_s=3600), lambda _: None)
    dash.refresh()
    dash.follow()
    mtt = next(v for v in dash.views if v.panel.title == "MTT distribution")
    assert _newest_drawn(mtt) == t0 + 99 * 20_000_000
    dash.drawn.seen = dash.drawn.sent  # the browser has drawn it
    never = float("inf")

    def look() -> None:  # a look between two reads of every panel, the run streaming
        dash.resume, dash.due, dash.came = 0.0, never, time.monotonic()
        dash.tick()

    sent = dash.drawn.sent
    look()
    assert dash.drawn.sent == sent  # nothing new: nothing sent
    w.write(live_points("r5", t0, range(100, 150)))
    dash.drawn.sent += 1  # a message the browser has not drawn yet
    look()
    assert _newest_drawn(mtt) == t0 + 99 * 20_000_000
    dash.drawn.seen = dash.drawn.sent
    look()
    assert _newest_drawn(mtt) == t0 + 149 * 20_000_000 and dash.drawn.sent == sent + 2


def _newest_drawn(view: Any) -> int:
    return int(view.box.status.html.split('data-newest="')[1].split('"')[0])


def test_a_panel_without_data_says_whether_its_points_come_at_a_runs_end() -> None:
    """In the middle of a run, the campaign row and the panels written at a run's end say that
    their points come then, not that the run recorded none (as they did)."""
    by_title = {p.title: live.why_empty(p) for p in PANELS}
    for title in ("Runs", "Timing self-check per run", "Handover delay per path switch",
                  "Cumulative TSN acknowledged per association", "Competing flows' throughput"):
        assert "written when a run ends" in by_title[title] and "recorded none" not in by_title[title], by_title[title]
    for title in ("Policy decisions and their inputs", "MTT distribution"):
        assert by_title[title].endswith("(the run recorded none of these)"), by_title[title]
    assert all(len(why) <= 160 and why.startswith("no data: ") for why in by_title.values())
