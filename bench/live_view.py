"""The live view during a real paced failover run: its lag from a message's delivery to the
point on screen, its CPU cost, and screenshots.

    .venv/bin/python bench/live_view.py [--out DIR] [--refresh 5s] [--busy 2] [--every 0.05] [--experiment examples/failover.yaml]

Starts Debian's influxd (a temp folder), `sctpbench dashboards serve` on it, Debian's chromium
headless on the view (selenium + chromium-driver), then `sctpbench run FILE --set clock=paced
--influx-dir …` (the guest; the run streams live). While the run goes, the page is read as often as
it can be (about every 100-200 ms; the output says): the newest point the "MTT distribution" panel draws (raw points, no grouping) and the
delivered count; with --screenshots, three are taken (150 messages shown: before the failure
at message 250; 330 shown: after it; and at the end).
Afterwards every message of the run is read back from InfluxDB: its delivery (wall clock) is
its point's time (generation) plus its MTT, and it is "on screen" at the first page reading
whose newest drawn point is at or after its own. Lag = on screen - delivery: the stream's
lag (records to InfluxDB, the run's telemetry ledger) plus the view's refresh and drawing.
The view's own share: from the first moment InfluxDB answers with a point (polled
beside the page) to the first page reading that draws it.
"Drawn" is also taken by the page itself (tests/support/live_view.py's watch_drawn: a
MutationObserver on the panel's status line, the time read the frame after each change):
delivery → drawn from those times ("drawn_lag_ms") has no reading's spacing in it, which the
readings' lag ("lag_ms") has (half of 100-250 ms on average, and the reading's own time).
CPU: utime + stime of the view's process (/proc/PID/stat) from the run's start to its end.
Every reading also compares each panel's status line with the points its glyph holds in the
browser (read at the same instant): "disagreements" counts the readings where they differ.
--busy N runs N busy loops (Python, nice 0) beside it all, from before the view starts to the
end: the load the figures are measured under; the load average is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sctpbench.telemetry import influx, server  # noqa: E402
from tests.support import live_view  # noqa: E402

MTT_POINTS = "MTT distribution"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="live-view-bench-"))
    try:
        measure(work)
    finally:  # also when the output's reader goes away: no influxd left behind
        server.stop(work / "influx")


def measure(work: Path) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("bench-live-view"))
    ap.add_argument("--refresh", default="5s", help="the view's whole refresh; new points come every tick (0.2 s)")
    ap.add_argument("--busy", type=int, default=2, help="busy loops beside the run")
    ap.add_argument("--screenshots", action="store_true",
                    help="also during the run (each stops the page readings for a second or so: measure without)")
    ap.add_argument("--experiment", default=str(ROOT / "examples" / "failover.yaml"))
    ap.add_argument("--every", type=float, default=0.05,
                    help="seconds between page readings: each runs a script in the page (tens of ms of its main "
                         "thread), delaying its drawing; the page's own record of its drawings needs none")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        _measure(work, args)
    finally:
        for loop in busy:
            loop.kill()
            loop.wait()


def _measure(work: Path, args: argparse.Namespace) -> None:
    s = server.start(work / "influx", server.free_port())
    port = server.free_port()
    view = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "dashboards", "serve", "--influx-dir", str(s.directory),
                             "--port", str(port), "--refresh", args.refresh], stdout=subprocess.PIPE,
                            stderr=(work / "view.log").open("w"), text=True)
    url = view.stdout.readline().split()[-1] if view.stdout else ""
    readings: list[tuple[int, int, float]] = []  # (wall ns, newest drawn point ns, delivered)
    disagreements: list[tuple[str, int, int]] = []  # (panel, its status line's count, points in its glyph)
    loads: list[float] = []
    stored: list[tuple[int, int]] = []  # (wall ns, newest point InfluxDB answers with)
    shots = []
    try:
        with live_view.browser(work / "profile") as driver:
            driver.get(url)
            live_view.wait_for(lambda: live_view.statuses(driver), 30, "the page")
            watching = [live_view.watch_drawn(driver, MTT_POINTS)]
            cpu0, t0 = cpu_seconds(view.pid), time.monotonic()
            run = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "run", args.experiment, "--set", "clock=paced",
                                    "--influx-dir", str(s.directory), "--out", str(work / "results"), "--json"],
                                   stdout=subprocess.PIPE, stderr=(work / "run.log").open("w"), text=True)
            while run.poll() is None:
                time.sleep(args.every)
                newest = influx.query(s.target(), 'SELECT last("mtt_ms") FROM "sctp_message"')
                stored.append((time.time_ns(), int(newest[0]["values"][0][0]) if newest else 0))
                statuses, drawn = live_view.shown(driver)
                disagreements += [(t, statuses[t]["points"], n) for t, n in drawn.items() if statuses[t]["points"] != n]
                shown = statuses.get(MTT_POINTS, {})
                stats = live_view.stats(driver)
                readings.append((time.time_ns(), int(shown.get("newest") or 0), stats.get("delivered", 0)))
                loads.append(os.getloadavg()[0])
                watching.append(live_view.watch_drawn(driver, MTT_POINTS))
                # By what the page shows, not by the clock: a loaded machine boots the guest late.
                for at, name in ((150, "before-failure"), (330, "after-failure")):
                    if args.screenshots and stats.get("delivered", 0) >= at and name not in shots:
                        driver.save_screenshot(str(args.out / f"{name}.png"))
                        shots.append(name)
            cpu1, t1 = cpu_seconds(view.pid), time.monotonic()
            # The last points arrive after the run's end; on a loaded machine the live writer (at
            # nice 10) may be far behind, and the page with it: read on until the page draws the
            # newest point InfluxDB holds (three refreshes at least, two minutes at most).
            least, end = time.monotonic() + 3 * live_view_refresh(args.refresh), time.monotonic() + 120
            while time.monotonic() < end:
                shown = live_view.statuses(driver).get(MTT_POINTS, {})
                readings.append((time.time_ns(), int(shown.get("newest") or 0), live_view.stats(driver).get("delivered", 0)))
                newest = influx.query(s.target(), 'SELECT last("mtt_ms") FROM "sctp_message"')
                stored.append((time.time_ns(), int(newest[0]["values"][0][0]) if newest else 0))
                if time.monotonic() > least and readings[-1][1] >= stored[-1][1] > 0:
                    break
                time.sleep(0.1)
            driver.save_screenshot(str(args.out / "end.png"))
            drawings = live_view.drawn_times(driver)  # (wall ms, newest drawn ns), by the page
            document = json.loads(run.stdout.read() if run.stdout else "{}")
    finally:
        view.terminate()
        view.wait()
    run_dir = Path(document["directory"]) / "run-001"
    run_id = json.loads((run_dir / "plan.json").read_text())["run_id"]
    series = influx.query(s.target(), f'SELECT "mtt_ms" FROM "sctp_message" WHERE "run" = \'{run_id}\'')
    lags, view_lags, drawn_lags = [], [], []
    # The readings' spacing is the figures' resolution.
    spacing = [(wall - before) / 1e6 for (wall, _, _), (before, _, _) in zip(readings[1:], readings, strict=False)]
    for t, mtt in series[0]["values"] if series else []:
        if mtt is None:
            continue
        delivered = t + int(mtt * 1e6)
        seen = next((wall for wall, newest, _ in readings if newest >= t), None)
        if seen is not None:
            lags.append((seen - delivered) / 1e6)
        drawn = next((wall_ms for wall_ms, newest in drawings if newest >= t), None)
        if drawn is not None:
            drawn_lags.append(drawn - delivered / 1e6)
        queryable = next((wall for wall, newest in stored if newest >= t), None)
        if seen is not None and queryable is not None:
            view_lags.append((seen - queryable) / 1e6)
    telemetry = json.loads((run_dir / "telemetry.json").read_text()) if (run_dir / "telemetry.json").exists() else {}
    result = {
        "messages": len(series[0]["values"]) if series else 0, "seen": len(lags), "reading_every_ms_p50": round(quantile(spacing, 0.5), 1),
        "lag_ms_p50": round(quantile(lags, 0.5), 1), "lag_ms_p99": round(quantile(lags, 0.99), 1),
        "lag_ms_max": round(max(lags), 1), "refresh": args.refresh,
        "drawn_seen": len(drawn_lags), "drawn_lag_ms_p50": round(quantile(drawn_lags, 0.5), 1) if drawn_lags else None,
        "drawn_lag_ms_p99": round(quantile(drawn_lags, 0.99), 1) if drawn_lags else None,
        "drawings": len(drawings), "watch_installed": watching.count("installed"), "every_s": args.every,
        "view_lag_ms_p50": round(quantile(view_lags, 0.5), 1), "view_lag_ms_p99": round(quantile(view_lags, 0.99), 1),
        "stream_written_lag_ms_p50": telemetry.get("lag_ms", {}).get("p50"),
        "view_cpu_s": round(cpu1 - cpu0, 2), "run_wall_s": round(t1 - t0, 1),
        "view_cpu_percent": round(100 * (cpu1 - cpu0) / (t1 - t0), 1),
        "disagreements": len(disagreements), "disagreeing": disagreements[:5], "busy_loops": args.busy,
        "load_average_1min": [round(min(loads), 1), round(max(loads), 1)] if loads else None,
        "screenshots": [str(args.out / f"{n}.png") for n in (*shots, "end")], "run": str(run_dir),
    }
    print(json.dumps(result, indent=2))
    (args.out / "readings.json").write_text(json.dumps({"page": readings, "influxdb": stored, "drawn": drawings,
                                                         "messages": series[0]["values"] if series else []}))


def live_view_refresh(refresh: str) -> float:
    from sctpbench.dashboards.live import refresh_seconds

    return refresh_seconds(refresh)


if __name__ == "__main__":
    main()
