"""End to end in the guest: handover metrics of a run that switches primaries twice.

A dual-homed association (10 ms each way on both paths, 50 messages/s for 6 s, captured on
both paths) whose client starts bound to the primary path only. At 0.5 s it sets the primary
it already has (no switch: the initial primary is not one), at 1 s adds its secondary address
(ASCONF ADD-IP), at 2 s makes the secondary path the primary at both ends and at 4 s the
primary path again. One run, on virtual time, serves every assertion: two switches, each
delivered over its new path one one-way delay after the next message left (at most one
message interval later), 4 s on the primary and 2 s on the secondary, the cumulative TSN
acknowledged climbing to the 300 messages sent, and all of it in the run's line and report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sctpbench.outputs import report

ROOT = Path(__file__).resolve().parents[2]
ONE_WAY_MS = 10.0  # dual-homed.yaml: 10 ms each way on both paths
INTERVAL_MS = 20.0  # 50 messages/s
DURATION_S = 6.0

EXPERIMENT = f"""\
name: handover-metrics
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{nodelay: true, sack_delay: 10ms}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 6s}}
measure: {{capture: true}}
events:
  - {{at: 500ms, primary: primary}}
  - {{at: 1s, add_address: secondary}}
  - {{at: 2s, set_primary: secondary, peer: true}}
  - {{at: 4s, set_primary: primary, peer: true}}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("handover-metrics")
    experiment = tmp / "handover-metrics.yaml"
    experiment.write_text(EXPERIMENT)
    argv = [sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--out", str(tmp / "out")]
    r = subprocess.run([*argv, "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    document = json.loads(r.stdout)
    run_dir = Path(document["runs"][0]["directory"])
    return {"dir": run_dir, "document": document, "summary": json.loads((run_dir / "summary.json").read_text())}


def test_each_primary_change_is_a_switch_and_the_initial_primary_is_not(run: dict[str, Any]) -> None:
    s = run["summary"]
    assert s["status"] == "ok", s.get("error")
    switches = s["handover"]["switches"]
    assert [(w["association"], w["from"], w["to"], w["cause"]) for w in switches] == [
        ("main", "primary", "secondary", "set_primary"), ("main", "secondary", "primary", "set_primary")]
    for w, at in zip(switches, (2.0, 4.0), strict=True):
        assert at <= w["t_rel_s"] <= at + 0.001, w  # virtual clock: within 1 ms of its time
    assert s["metrics"]["path_switches"] == s["associations"]["main"]["metrics"]["path_switches"] == 2
    assert s["handover"]["window_s"] == [-1.0, 2.0]


def test_handover_delay_is_one_way_delay_after_the_next_message(run: dict[str, Any]) -> None:
    s = run["summary"]
    delays = [w["delay_ms"] for w in s["handover"]["switches"]]
    for delay in delays:
        # The next message leaves within one interval of the decision, then crosses in one one-way delay.
        assert ONE_WAY_MS <= delay <= ONE_WAY_MS + INTERVAL_MS + 1.0, delays
    m = s["metrics"]
    assert m["handover_delay_ms"] == pytest.approx(sum(delays) / 2)
    assert m["handover_delay_max_ms"] == pytest.approx(max(delays))
    # Nothing is lost or held around a switch: every message of the windows at the path's delay.
    for w in s["handover"]["switches"]:
        # 3 s of 50 messages/s; the window's start, 1 s before a decision applied µs after a
        # message's slot, falls on a message sent exactly on time, which it leaves out.
        assert w["messages"] in (149, 150) and w["undelivered"] == 0, w
        assert ONE_WAY_MS <= w["mmtt_ms"] <= ONE_WAY_MS + 1.0, w
    assert ONE_WAY_MS <= m["handover_mtt_mean_ms"] <= m["handover_mmtt_ms"] <= ONE_WAY_MS + 1.0


def test_time_on_each_path_adds_up_to_the_duration_and_deliveries_follow_it(run: dict[str, Any]) -> None:
    h = run["summary"]["associations"]["main"]["handover"]
    seconds = h["primary_seconds"]
    assert sum(seconds.values()) == pytest.approx(DURATION_S, abs=1e-6)
    assert seconds["primary"] == pytest.approx(4.0, abs=0.002) and seconds["secondary"] == pytest.approx(2.0, abs=0.002)
    # 100 of the 300 messages were generated while the secondary was the primary (2 s … 4 s).
    assert h["delivered_share"]["secondary"] == pytest.approx(100 / 300, abs=1 / 300)
    assert sum(h["delivered_share"].values()) == pytest.approx(1.0)


def test_cumulative_tsn_climbs_to_the_chunks_sent(run: dict[str, Any]) -> None:
    rows = pq.read_table(run["dir"] / "cum_tsn.parquet").to_pylist()
    acked = [r["cum_tsn_ack"] for r in rows]
    assert acked == sorted(acked) and acked[-1] == 300  # 200 B messages: one DATA chunk each
    assert {r["association"] for r in rows} == {"main"} and {r["path"] for r in rows} == {"primary", "secondary"}
    times = [r["t_rel_ns"] for r in rows]
    assert times == sorted(times) and 0 < times[0] < 0.1e9 and times[-1] < (DURATION_S + 1) * 1e9
    # While the secondary is the primary the SACKs come back over it, the rest over the primary.
    assert {r["path"] for r in rows if 2.1e9 < r["t_rel_ns"] < 3.9e9} == {"secondary"}
    assert {r["path"] for r in rows if r["t_rel_ns"] < 1.9e9 or r["t_rel_ns"] > 4.1e9} == {"primary"}
    assert run["summary"]["cum_tsn"] == {"associations": {"main": {"sacks": len(rows), "last_cum_tsn_ack": 300}}, "error": None}


def test_the_run_line_json_and_report_carry_the_handovers(run: dict[str, Any], tmp_path: Path) -> None:
    document = run["document"]["runs"][0]
    assert document["metrics"]["path_switches"] == 2 and len(document["handover"]["switches"]) == 2
    r = subprocess.run([sys.executable, "-c", "import json, sys; from sctpbench.outputs import summary_text; "
                        "summary_text.print_summary(json.load(sys.stdin), sys.stdout)"],
                       input=json.dumps(run["document"]), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if x.strip().startswith("handover")]
    assert "2 switch(es), primary changed 2 time(s)" in line and "2 of 2 delivered on the new path" in line
    page = report.page(report.build(run["dir"], report.Options(draw_figures=False)))
    assert "<h2>Handovers</h2>" in page and 'id="run-001-cum-tsn"' in page
    assert page.count("set_primary") >= 2
