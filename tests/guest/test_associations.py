"""End to end in the guest: three associations between hosts hq, edge and lab, one failure.

One run of examples/associations.yaml with live telemetry into a real InfluxDB serves the
assertions: ops (hq → edge) and back (edge → hq) use wan1, which fails at t=3 s; sync
(lab → hq, three paths) never touches it. Every per-association metric, telemetry point
and report figure must be there, and the failure must hit exactly ops and back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sctpbench.analysis import metrics
from sctpbench.telemetry import influx, server
from tests.support.telemetry import EXAMPLES, assert_every_dashboard_query_has_data, local_influxd

NAMES = ["ops", "back", "sync"]
HIT = {"ops", "back"}  # the associations whose primary path is wan1


@pytest.fixture(scope="module")
def influxd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path_factory.mktemp("influxd"))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, influxd: server.LocalServer) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("results")
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(EXAMPLES / "associations.yaml"), "--json", "--out", str(out),
         "--influx", influxd.url, "--influx-dir", str(influxd.directory)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)["runs"][0]
    run["dir"] = Path(run["directory"])
    run["summary"] = json.loads((run["dir"] / "summary.json").read_text())
    return run


def test_the_run_is_ok_and_every_association_has_every_metric(run: dict[str, Any]) -> None:
    assert run["status"] == "ok", run["error"]
    per = run["summary"]["associations"]
    assert list(per) == NAMES and list(run["associations"]) == NAMES
    for name, a in per.items():
        assert set(metrics.METRIC_KEYS) <= set(a["metrics"]), name
        m = a["metrics"]
        assert m["messages_sent"] == m["messages_delivered"] > 0, name
        assert m["mtt_p50_ms"] is not None and m["mmtt_ms"] is not None, name
    assert {(n, a["client"], a["server"], len(a["paths"])) for n, a in per.items()} == {
        ("ops", "hq", "edge", 2), ("back", "edge", "hq", 2), ("sync", "lab", "hq", 3)}


def test_the_failure_hits_exactly_the_associations_using_the_path(run: dict[str, Any]) -> None:
    per = run["summary"]["associations"]
    for name in HIT:
        a = per[name]
        m, model = a["metrics"], a["detection_model"]
        assert a["failure"] == "wan1" and a["paths_used"] == ["wan1", "wan2"], name
        assert model is not None and model["model_ms"] <= m["detection_time_ms"] <= model["bound_ms"], (name, m, model)
        assert 0 < m["failover_time_ms"] <= m["detection_time_ms"], name
        assert m["messages_affected"] > 0 and m["mmtt_ms"] > 1000, name
    sync = per["sync"]
    assert sync["failure"] is None and sync["detection_model"] is None and sync["paths_used"] == ["lab1"]
    assert all(sync["metrics"][k] is None for k in metrics.EVENT_KEYS + ("messages_affected",))
    assert sync["metrics"]["mmtt_ms"] < 6.0  # 5 ms one way, undisturbed throughout
    events = pq.read_table(run["dir"] / "path_events.parquet").to_pylist()
    unreachable = {(e["association"], e["source"], e["path"]) for e in events if e["kind"] == "ADDR_UNREACHABLE"}
    assert {(n, "client", "wan1") for n in HIT} <= unreachable and not [u for u in unreachable if u[0] == "sync"]


def test_run_metrics_summarise_the_associations(run: dict[str, Any]) -> None:
    per = {n: a["metrics"] for n, a in run["summary"]["associations"].items()}
    m = run["metrics"]
    assert m["messages_sent"] == sum(a["messages_sent"] for a in per.values())
    assert m["detection_time_ms"] == max(per[n]["detection_time_ms"] for n in HIT)
    assert m["failover_time_ms"] == max(per[n]["failover_time_ms"] for n in HIT)
    assert m["mmtt_ms"] == max(a["mmtt_ms"] for a in per.values())
    messages = pq.read_table(run["dir"] / "messages.parquet").to_pylist()
    assert {n: sum(r["association"] == n for r in messages) for n in NAMES} == {n: per[n]["messages_sent"] for n in NAMES}


def test_every_association_is_in_influx_under_its_tag(run: dict[str, Any], influxd: server.LocalServer) -> None:
    target, run_id, campaign = influxd.target(), run["params"]["run_id"], run["dir"].parent.name
    assert run["telemetry"]["not_sent"] == 0
    where = f"\"run\" = '{run_id}' AND \"campaign\" = '{campaign}'"

    def per_tag(measurement: str, field: str) -> dict[str, int]:
        series = influx.query(target, f'SELECT count("{field}") FROM "{measurement}" WHERE {where} GROUP BY "association"')
        return {s["tags"]["association"]: s["values"][0][1] for s in series}

    sent = {n: a["metrics"]["messages_sent"] for n, a in run["summary"]["associations"].items()}
    assert per_tag("sctp_message", "seq") == sent
    assert set(per_tag("sctp_path", "cwnd")) == set(NAMES)
    assert set(per_tag("sctp_run", "seed")) == {"all", *NAMES}
    series = influx.query(target, f'SELECT "detection_time_ms" FROM "sctp_run" WHERE {where} GROUP BY "association"')
    detection = {s["tags"]["association"]: s["values"][0][1] for s in series}
    assert set(detection) == HIT | {"all"}  # sync has no detection time: no field, no value
    assert_every_dashboard_query_has_data(target, run["dir"])
    assert_every_dashboard_query_has_data(target, run["dir"], association="ops")


def test_the_report_has_a_line_and_a_figure_per_association(run: dict[str, Any], tmp_path: Path) -> None:
    page, png = tmp_path / "report.html", tmp_path / "png"
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "report", str(run["dir"]), "--out", str(page), "--png", str(png)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    assert "<h2>Associations</h2>" in html
    for name, hosts in (("ops", "hq → edge"), ("back", "edge → hq"), ("sync", "lab → hq")):
        assert f"<td>{name}</td><td>{hosts}</td>" in html, name
    figures = {p.name.removeprefix(f"{run['dir'].name}-") for p in png.glob("*.png")}
    assert figures >= {"mtt-associations.png", "mtt-time.png", "path-states.png", "path-samples.png"}
