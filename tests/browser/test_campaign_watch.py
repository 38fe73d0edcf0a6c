"""`sctpbench campaign run --watch` on the guest, watched in a real browser as its runs land.

A tiny campaign (tests/data/campaigns/tiny.yaml: paced 2.5 s failover runs, two
configurations), three runs one at a time, with --watch starting the local InfluxDB and the
live view. Headless chromium keeps the view open while the campaign runs and reads the
campaign row at every moment: the runs landed (by status) rise one run at a time while the
campaign is still going, and at the end the view's counts are exactly the landings the
campaign's own log (runs.jsonl) holds, per status and per configuration (tag `config`).
Then `sctpbench dashboards stop` ends the view and influxd that --watch started.
"""

from __future__ import annotations

import collections
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from sctpbench.dashboards import watch
from sctpbench.telemetry import server
from tests.support import live_view
from tests.support.telemetry import require_influxd

CAMPAIGN = Path(__file__).resolve().parents[1] / "data" / "campaigns" / "tiny.yaml"
LANDED = "Runs landed, by status"
PER_CONFIG = "Headline metrics per configuration"
RUNS = 3
DEADLINE_S = 600


def _landed(driver: object) -> dict[str, int]:
    """The "runs landed" panel as drawn: status → runs."""
    statuses = live_view.statuses(driver).get(LANDED, {}).get("series", [])
    shown = live_view.stats(driver)
    return {s: int(shown[s]) for s in statuses if s in shown}


def _per_config(driver: object) -> dict[str, int]:
    return {r["config"]: int(r["runs"]) for r in live_view.table(driver, PER_CONFIG) or []}


def test_campaign_watch_shows_each_run_as_it_lands(tmp_path: Path) -> None:
    live_view.require_browser()
    require_influxd()
    influx_dir, port, out = tmp_path / "influx", server.free_port(), tmp_path / "results"
    stderr = tmp_path / "campaign.stderr"
    proc = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "campaign", "run", str(CAMPAIGN), "--watch",
                             "--influx-dir", str(influx_dir), "--view-port", str(port), "--out", str(out),
                             "--parallel", "1", "--max-runs", str(RUNS)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr.open("w"), text=True)
    try:
        said = live_view.wait_for(lambda: re.search(r"watch it live: (\S+)", stderr.read_text()), 120, "the view's URL")
        url = said.group(1)
        assert url == f"http://127.0.0.1:{port}/" and "started InfluxDB and the live view" in stderr.read_text()
        seen: list[tuple[int, bool]] = []  # (runs landed as drawn, the campaign still running) at each change
        with live_view.browser(tmp_path / "profile") as driver:
            driver.get(url)
            deadline = time.monotonic() + DEADLINE_S
            while time.monotonic() < deadline:
                going = proc.poll() is None
                total = sum(_landed(driver).values())
                if not seen or seen[-1][0] != total:
                    seen.append((total, going))
                if not going and total >= RUNS:
                    break
                time.sleep(0.3)
            assert proc.wait(timeout=60) == 0, stderr.read_text()
            log = [json.loads(line) for line in (out / "tiny" / "runs.jsonl").read_text().splitlines()]
            ends = [e for e in log if e["event"] == "end"]
            config = {e["run_key"]: e["config"] for e in log if e["event"] == "start"}
            by_status = collections.Counter(e["status"] for e in ends)
            by_config = collections.Counter(config[e["run_key"]] for e in ends)
            live_view.wait_for(lambda: _landed(driver) == dict(by_status), 30,
                               f"the view's runs by status {_landed(driver)} to be the log's {dict(by_status)}")
            live_view.wait_for(lambda: _per_config(driver) == dict(by_config), 30,
                               f"runs per configuration {_per_config(driver)} to be the log's {dict(by_config)}")
            driver.save_screenshot(str(tmp_path / "campaign-view.png"))
        assert sum(by_status.values()) >= RUNS and set(by_config) == {"sctp.path_max_retrans=1", "sctp.path_max_retrans=2"}
        # As they land: the count only grows, and runs are drawn while the campaign still runs.
        # Not one at a time: the campaign panels are read at the dashboard's refresh (5 s), and
        # a run of this campaign now takes about 3 s, so two may land within one refresh.
        totals = [t for t, _ in seen]
        assert totals == sorted(totals) and totals[-1] >= RUNS, seen
        assert any(0 < t < RUNS for t, going in seen if going) or (RUNS, True) in seen, seen
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=120)
        stopped = subprocess.run([sys.executable, "-m", "sctpbench.cli", "dashboards", "stop", "--influx-dir", str(influx_dir)],
                                 capture_output=True, text=True, timeout=60)
    assert stopped.returncode == 0 and stopped.stdout.startswith("stopped the live view"), stopped.stdout + stopped.stderr
    assert "and InfluxDB" in stopped.stdout
    assert not watch.view_answers(f"http://127.0.0.1:{port}/") and server.running(influx_dir) is None
    assert watch.view_process(influx_dir) is None and server.port_free(port)
