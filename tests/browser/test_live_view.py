"""The live view (`sctpbench dashboards serve`) in a real browser while points arrive.

A real influxd, the view as the command starts it (a subprocess, the server's credentials
folder), and Debian's chromium driven headless through chromium-driver: every panel of the
dashboard draws data, the delivered count grows without a reload as the second half of the
run is written, choosing one association changes the series, nothing is requested from
beyond 127.0.0.1, and a screenshot is kept in the test's folder. An unreachable InfluxDB is
one message in the page and on stderr.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sctpbench.dashboards import catalog
from sctpbench.telemetry import influx, server, stream
from tests.support import live_view
from tests.support.telemetry import live_points, local_influxd, panels_run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "failover.yaml"
MTT_POINTS = "MTT distribution"  # every message's MTT, no grouping
PANELS = [p.title for row in catalog.RUNS.rows for p in row.panels]
# Panels of what only some runs have: a policy's decisions, handovers, competing flows, captures.
RUN_ONLY = ["Cumulative TSN acknowledged per association", "Handover delay per path switch",
            "Policy decisions and their inputs", "Competing flows' throughput"]


@pytest.fixture
def influxd(tmp_path: Path) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path / "influx")


def start_view(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """`sctpbench dashboards serve` on a free port; its URL once it listens."""
    port = server.free_port()
    log = (tmp_path / "view.stderr").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "dashboards", "serve", "--port", str(port),
                             "--refresh", "1s", *args], stdout=subprocess.PIPE, stderr=log, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    assert f"http://127.0.0.1:{port}/" in line, line + (tmp_path / "view.stderr").read_text()
    return proc, f"http://127.0.0.1:{port}/"


def stop_view(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def watching_a_paced_failover_run(tmp_path: Path, influxd: server.LocalServer
                                  ) -> Iterator[tuple[Any, subprocess.Popen[bytes], influx.Target]]:
    """The page open on the view at the dashboard's 5 s refresh, then `sctpbench run
    examples/failover.yaml --set clock=paced` (the guest) streaming to it: (the browser, the
    run, InfluxDB). Afterwards the run is ended if it still goes, the view stopped, and its log
    holds no traceback."""
    live_view.require_browser()
    proc, url = start_view(tmp_path, "--influx-dir", str(influxd.directory), "--refresh", "5s")
    run = None
    try:
        with live_view.browser(tmp_path / "profile") as driver:
            driver.get(url)
            live_view.wait_for(lambda: live_view.statuses(driver), 30, "the page")
            run = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "run", str(EXAMPLE), "--set", "clock=paced",
                                    "--influx-dir", str(influxd.directory), "--out", str(tmp_path / "results")],
                                   stdout=subprocess.DEVNULL, stderr=(tmp_path / "run.stderr").open("w"))
            yield driver, run, influxd.target()
    finally:
        if run is not None and run.poll() is None:
            run.terminate()
            run.wait(timeout=120)
        stop_view(proc)
    assert "Traceback" not in (tmp_path / "view.stderr").read_text(), (tmp_path / "view.stderr").read_text()


def test_live_view_draws_every_panel_and_follows_the_run(tmp_path: Path, influxd: server.LocalServer) -> None:
    live_view.require_browser()
    target = influxd.target()
    influx.ensure_database(target)
    t0 = time.time_ns() - 4_000_000_000
    writer = influx.writer(target)
    writer.write(live_points("r1", t0, range(0, 120)))
    proc, url = start_view(tmp_path, "--influx-dir", str(influxd.directory))
    try:
        with live_view.browser(tmp_path / "profile") as driver:
            driver.get(url)
            fed = [t for t in PANELS if t not in RUN_ONLY]
            live_view.wait_for(lambda: not live_view.panels_lacking_data(live_view.statuses(driver), fed), 60,
                               f"every panel r1 feeds to show data: {live_view.panels_lacking_data(live_view.statuses(driver), fed)}")
            first = live_view.stats(driver)["delivered"]
            assert first == 240, first  # 120 messages of each association
            assert live_view.same_styles(driver) == ["true"]

            live_view.watch_style_writes(driver)
            writer.write(live_points("r1", t0, range(120, 200)))  # the run goes on; no reload
            live_view.wait_for(lambda: live_view.stats(driver)["delivered"] > first, 30, "the delivered count to grow")
            live_view.wait_for(lambda: live_view.stats(driver)["delivered"] == 400, 10, "all 400 messages counted")
            # Each plot repainted with the new points; no axis, grid or glyph wrote its position
            # again (at most once: a glyph's first data places its element).
            assert live_view.style_writes(driver)[:1] in ([], [1]), live_view.style_writes(driver)[:10]

            mtt = "MTT per message (max per interval)"
            # The annotations: the timeline's failure, and each association's ADDR_UNREACHABLE.
            live_view.wait_for(lambda: live_view.statuses(driver)[mtt]["marks"] == 3, 10, "3 annotations")
            both = live_view.statuses(driver)[mtt]["series"]
            assert {s.split()[0] for s in both} == {"main", "ops"}, both
            live_view.choose(driver, "association", "ops")
            live_view.wait_for(lambda: {s.split()[0] for s in live_view.statuses(driver)[mtt]["series"]} == {"ops"}, 30,
                               "only the ops association's series")
            # The same refresh redraws every panel; the browser may apply its changes one by one.
            live_view.wait_for(lambda: live_view.stats(driver)["delivered"] == 200, 10, "ops's 200 messages counted")
            live_view.wait_for(lambda: live_view.statuses(driver)[mtt]["marks"] == 2, 10,
                               "2 annotations: ops's own path change, and the timeline's")
            assert not live_view.panels_lacking_data(live_view.statuses(driver), fed)
            # What r1 does not have folds its panel to one line that says so.
            shown = live_view.statuses(driver)
            assert all(shown[t]["points"] == 0 and shown[t]["text"].startswith("no data: ") for t in RUN_ONLY), \
                {t: shown[t]["text"] for t in RUN_ONLY}

            # A real run lands inside r1's time range (its t0 0.3 s after r1's): the points the
            # real point builder makes of its records, its store and its summary.
            live_view.choose(driver, "association", "All")
            run = panels_run(tmp_path / "panels", t0 + 300_000_000)
            assert stream.push(run, target)["not_sent"] == 0
            live_view.wait_for(lambda: not live_view.panels_lacking_data(live_view.statuses(driver), PANELS), 30,
                               f"every panel to show data: {live_view.panels_lacking_data(live_view.statuses(driver), PANELS)}")
            # r1's 3 marks, and the real run's: 4 timeline events (start, go, degrade both ways),
            # 8 client records (PRIMARY_SET and POLICY per switch), 4 handovers.
            live_view.wait_for(lambda: live_view.statuses(driver)[mtt]["marks"] == 3 + 4 + 8 + 4, 10, "19 annotations")

            driver.save_screenshot(str(tmp_path / "live-view.png"))
            assert (tmp_path / "live-view.png").stat().st_size > 10_000
            hosts = live_view.requested_hosts(driver)
            assert hosts == {"127.0.0.1"}, hosts
        # The browser leaves first, as a person closes it: the view goes on serving others
        # and logs no closed websocket.
        time.sleep(3)
        assert proc.poll() is None
    finally:
        stop_view(proc)
    assert "Traceback" not in (tmp_path / "view.stderr").read_text(), (tmp_path / "view.stderr").read_text()


def test_counts_and_plots_agree_at_every_poll_of_a_paced_failover_run(tmp_path: Path, influxd: server.LocalServer) -> None:
    """A real failover run on the paced clock (the guest), the page open at the dashboard's own
    refresh (5 s): read about five times a second, every panel's status line counts exactly the
    points its glyph holds in the browser (read at one instant). That points come as they
    arrive, not at the refreshes, tests/unit/test_live_view_stream.py shows without a browser:
    the page's pace here is the browser's share of a shared machine's CPU.
    At the end the page draws every message InfluxDB holds, and each panel the run does not
    feed is folded with its reason."""
    with watching_a_paced_failover_run(tmp_path, influxd) as (driver, run, target):
        polls, disagree = 0, []
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            going = run.poll() is None
            statuses, drawn = live_view.shown(driver)
            polls += 1
            disagree += [(polls, t, statuses[t]["points"], n) for t, n in drawn.items() if statuses[t]["points"] != n]
            if not going and drawn.get(MTT_POINTS) == _delivered(target) > 0:
                break
            time.sleep(0.2)
        assert run.wait(timeout=60) == 0, (tmp_path / "run.stderr").read_text()
        assert not disagree, disagree[:10]
        plotted = {p.title for row in catalog.RUNS.rows for p in row.panels if p.kind in ("timeseries", "histogram",
                                                                                          "state-timeline")}
        assert set(drawn) == plotted, set(drawn) ^ plotted  # every plot's glyph was compared
        assert drawn[MTT_POINTS] == _delivered(target) > 400, (drawn, _delivered(target))
        assert polls >= 20, polls
        fed = [t for t in PANELS if t not in RUN_ONLY]
        # The campaign row (the run's summary, written at its end) is read at the refreshes.
        shown = live_view.wait_for(lambda: _all_showing(driver, fed), 30, "every panel the run feeds to show data")
        assert all(shown[t]["points"] == 0 and shown[t]["text"].startswith("no data: ") for t in RUN_ONLY), \
            {t: shown[t]["text"] for t in RUN_ONLY}
        # Drawn where it has data, folded (no height) where it has none.
        heights = {t: shown[t]["height"] for t in PANELS}
        assert all(heights[t] > 20 for t in fed) and all(heights[t] == 0 for t in RUN_ONLY), heights
        # One row for the run's one association, not `all` beside it.
        runs = live_view.table(driver, "Runs")
        assert runs is not None and [r["association"] for r in runs] == ["main"], runs
        driver.save_screenshot(str(tmp_path / "paced-failover.png"))


def test_a_paced_run_is_drawn_while_it_runs(tmp_path: Path, influxd: server.LocalServer) -> None:
    """A real failover run on the paced clock (the guest), the page open at the dashboard's 5 s
    refresh: while the run still goes, the page draws its messages as they arrive. Read
    between the run's start and its end, the MTT distribution's plot holds a part of the run
    (more than none, fewer than it ends with) at two or more different counts: the drawing
    grew at least twice (from nothing, then again) before the run ended. No time limit: the run's own end is the mark.
    (The view used to draw such a run only at or near its end: each change of a status line
    laid out the whole page again in the browser, and a run's first drawing held the server
    for seconds, so the page fell behind for the length of the run.)"""
    with watching_a_paced_failover_run(tmp_path, influxd) as (driver, run, target):
        while_running = []  # (points drawn, messages InfluxDB held just before that reading)
        while run.poll() is None:
            stored = _delivered(target)
            while_running.append((live_view.shown(driver)[1].get(MTT_POINTS, 0), stored))
            time.sleep(0.1)
        assert run.wait() == 0, (tmp_path / "run.stderr").read_text()
        final = _delivered(target)
        assert final > 400, final
        live_view.wait_for(lambda: live_view.shown(driver)[1].get(MTT_POINTS) == final, 120, "the whole run drawn")
    partial = sorted({drawn for drawn, _ in while_running if 0 < drawn < final})
    assert len(partial) >= 2, (partial, final, _changes(while_running))


def _all_showing(driver: Any, panels: list[str]) -> dict[str, dict[str, Any]] | None:
    """The page's status lines once every one of the panels shows data, else None."""
    shown = live_view.statuses(driver)
    return None if live_view.panels_lacking_data(shown, panels) else shown


def _changes(readings: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The readings where the drawing or InfluxDB changed: what a failure shows."""
    return [r for i, r in enumerate(readings) if i == 0 or r != readings[i - 1]]


def _delivered(target: influx.Target) -> int:
    answer = influx.query(target, 'SELECT count("mtt_ms") FROM "sctp_message"')
    return int(answer[0]["values"][0][1]) if answer else 0


def test_an_unreachable_influxdb_is_one_message_in_the_page_and_on_stderr(tmp_path: Path) -> None:
    live_view.require_browser()
    nowhere = f"http://127.0.0.1:{server.free_port()}"
    proc, url = start_view(tmp_path, "--url", nowhere)
    try:
        with live_view.browser(tmp_path / "profile") as driver:
            driver.get(url)
            shown = live_view.wait_for(lambda: live_view.alerts(driver), 30, "the page's message")
            assert len(shown) == 1 and nowhere in shown[0] and "no InfluxDB answers there" in shown[0], shown
    finally:
        stop_view(proc)
    said = [line for line in (tmp_path / "view.stderr").read_text().splitlines() if nowhere in line]
    assert len(said) == 1 and "no InfluxDB answers there" in said[0], said
