"""Telemetry without a kernel: points, identities, the live reader, push, dashboards.

The InfluxDB tests use a real influxd (Debian's 1.6.7) started on loopback.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sctpbench import cli
from sctpbench.analysis import store
from sctpbench.collectors import records
from sctpbench.dashboards import export
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.telemetry import influx, points, server, stream
from sctpbench.telemetry.source import RunSource
from tests.support.telemetry import (
    EXAMPLES,
    assert_every_dashboard_query_has_data,
    counts,
    local_influxd,
    panels_run,
    synthetic_run,
)

REPO = Path(__file__).resolve().parents[2]
COMMITTED_PROVIDER_PATH = "/var/lib/grafana/dashboards/sctpbench"


def test_line_protocol_escapes_names_and_types() -> None:
    p = points.Point("sctp message", {"b": "x y,z=1", "a": "plain", "empty": ""},
                     {"mtt_ms": 10.5, "seq": 3, "delivered": True, "detail": 'say "hi" \\ there', "none": None}, 42)
    assert p.line() == ('sctp\\ message,a=plain,b=x\\ y\\,z\\=1 mtt_ms=10.5,seq=3i,delivered=true,'
                        'detail="say \\"hi\\" \\\\ there" 42')


def test_stamper_keeps_points_of_one_series_apart() -> None:
    s = points.Stamper()
    assert [s.stamp(("a",), t) for t in (5, 5, 5, 9)] == [5, 6, 7, 9]
    assert s.stamp(("b",), 5) == 5  # another series may share the time


def _lines(pts: list[points.Point]) -> list[str]:
    return sorted(p.line() for p in pts)


def test_live_reading_gives_the_same_points_as_reading_afterwards(tmp_path: Path) -> None:
    """Files read while they grow (cut anywhere, even mid-line) give exactly the points of
    one pass over the finished files: live writes and a later push land on the same points."""
    done = tmp_path / "camp" / "run-001"
    written = synthetic_run(done, t0_realtime_ns=1_795_000_000_000_000_000)
    once = RunSource(done)
    expected = _lines(once.poll() + once.finish())

    live_dir = tmp_path / "live" / "run-001"
    synthetic_run(live_dir, t0_realtime_ns=1_795_000_000_000_000_000)
    files = {"client": live_dir / "records" / "main.client.rec", "server": live_dir / "records" / "main.server.rec",
             "events": live_dir / "events.jsonl"}
    texts = {k: "".join(v) for k, v in written.items()}
    for f in files.values():
        f.write_text("")
    live = RunSource(live_dir)
    got: list[points.Point] = []
    for step in range(1, 8):
        for name, f in files.items():
            f.write_text(texts[name][: len(texts[name]) * step // 7 - (3 if step < 7 else 0)])
        got += live.poll()
    got += live.finish()
    # the campaign tag is the folder name; everything else must match
    assert _lines(got) == [line.replace("campaign=camp", "campaign=live") for line in expected]


def test_points_per_measurement_equal_the_stores_rows(tmp_path: Path) -> None:
    run_dir = tmp_path / "s" / "run-001"
    synthetic_run(run_dir, messages=150, lost=(120,), fail_at=110)
    store.collect(run_dir)
    source = RunSource(run_dir)
    pts = source.poll() + source.finish()
    import pyarrow.parquet as pq

    rows = {m: pq.read_table(run_dir / f"{t}.parquet").num_rows
            for m, t in (("sctp_message", "messages"), ("sctp_path", "path_samples"), ("sctp_event", "path_events"))}
    assert source.counts == rows | {"sctp_run": 2}  # the run's, and its one association's
    assert len(pts) == sum(source.counts.values())
    lost = [p for p in pts if p.measurement == "sctp_message" and not p.fields["delivered"]]
    assert [p.fields["seq"] for p in lost] == [120] and lost[0].tags["path"] == "none"


def test_influx_section_is_checked_and_keeps_the_run_identity(tmp_path: Path) -> None:
    base = spec.load(EXAMPLES / "failover.yaml", [])
    streamed = spec.load(EXAMPLES / "failover.yaml", ["influx.url=http://127.0.0.1:8086", "influx.api=v2", "influx.org=lab"])
    from sctpbench.plan import build as planning

    assert planning.build(base, 1, "a").run_id == planning.build(streamed, 1, "a").run_id
    target = influx.Target.from_spec(streamed.influx)
    assert target and target.api == "v2" and target.bucket_name == "sctpbench" and target.flush_interval_s == 0.2
    with pytest.raises(SpecError, match="influx: api: v2 needs org"):
        spec.load(EXAMPLES / "failover.yaml", ["influx.url=http://127.0.0.1:8086", "influx.api=v2"])
    with pytest.raises(SpecError, match="influx.token: unknown key"):
        spec.load(EXAMPLES / "failover.yaml", ["influx.token=secret"])
    with pytest.raises(SpecError, match="influx.url"):
        spec.load(EXAMPLES / "failover.yaml", ["influx.url=127.0.0.1:8086"])


class _Capture(http.server.BaseHTTPRequestHandler):
    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_v2_write_request_carries_org_bucket_precision_and_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian has no InfluxDB 2: check the v2 request itself against a loopback listener."""
    monkeypatch.setenv(influx.TOKEN_ENV, "s3cret")
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Capture)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        target = influx.Target(url=f"http://127.0.0.1:{httpd.server_port}", api="v2", org="lab", bucket="nightly")
        w = influx.writer(target)
        w.write(["m,a=b v=1i 1", "m,a=b v=2i 2"])
        w.close()
    finally:
        httpd.shutdown()
    request = _Capture.seen[-1]
    assert request["path"].startswith("/api/v2/write?")
    assert {"org=lab", "bucket=nightly", "precision=ns"} <= set(request["path"].split("?")[1].split("&"))
    assert request["auth"] == "Token s3cret"
    assert request["body"].decode().splitlines() == ["m,a=b v=1i 1", "m,a=b v=2i 2"]


# ------------------------------------------------------------------ with a real InfluxDB


@pytest.fixture(scope="module")
def influxd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path_factory.mktemp("influxd"))


def _run_id(run_dir: Path) -> str:
    return json.loads((run_dir / "plan.json").read_text())["run_id"]


def test_push_brings_influx_to_the_stores_counts_and_twice_changes_nothing(tmp_path: Path, influxd: server.LocalServer) -> None:
    run_dir = tmp_path / "session" / "run-001"
    synthetic_run(run_dir)
    store.collect(run_dir)
    url = influxd.url
    assert cli.main(["push", str(run_dir.parent), "--influx", url, "--influx-dir", str(influxd.directory)]) == 0
    first = counts(influxd.target(), _run_id(run_dir), run_dir.parent.name)
    ledger = json.loads((run_dir / "telemetry.json").read_text())
    assert first == ledger["points"] and ledger["not_sent"] == 0
    assert json.loads((run_dir / "summary.json").read_text())["telemetry"]["not_sent"] == 0
    mtt_sum = influx.query(influxd.target(), f'SELECT sum("mtt_ms") FROM "sctp_message" WHERE "run" = \'{_run_id(run_dir)}\'')
    assert cli.main(["push", str(run_dir)]) == 0  # the target (and credentials folder) recorded by the first push
    assert counts(influxd.target(), _run_id(run_dir), run_dir.parent.name) == first
    assert influx.query(influxd.target(), f'SELECT sum("mtt_ms") FROM "sctp_message" WHERE "run" = \'{_run_id(run_dir)}\'') == mtt_sum


def test_a_down_influx_costs_points_not_the_run_and_push_recovers_them(tmp_path: Path, influxd: server.LocalServer) -> None:
    run_dir = tmp_path / "other" / "run-001"
    synthetic_run(run_dir, messages=120)
    store.collect(run_dir)
    down = influx.Target(url=f"http://127.0.0.1:{server.free_port()}", timeout_s=1.0)
    ledger = stream.follow(run_dir, down, lambda wait: True)
    assert ledger["not_sent"] == sum(ledger["points"].values()) > 0
    assert "Connection refused" in ledger["errors"][0]
    stream.record(run_dir, ledger)
    assert json.loads((run_dir / "summary.json").read_text())["telemetry"]["not_sent"] > 0
    assert cli.main(["push", str(run_dir), "--influx", influxd.url, "--influx-dir", str(influxd.directory)]) == 0
    assert counts(influxd.target(), _run_id(run_dir), run_dir.parent.name) == ledger["points"]


def test_every_dashboard_query_returns_data_for_a_run(tmp_path: Path, influxd: server.LocalServer) -> None:
    run_dir = tmp_path / "dash" / "run-001"
    synthetic_run(run_dir)
    store.collect(run_dir)
    assert stream.push(run_dir, influxd.target())["not_sent"] == 0
    assert_every_dashboard_query_has_data(influxd.target(), run_dir)


def test_committed_dashboards_are_what_the_generator_writes(tmp_path: Path) -> None:
    export.export(tmp_path, dashboards_path=COMMITTED_PROVIDER_PATH)
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(REPO / "dashboards") for p in (REPO / "dashboards").rglob("*") if p.is_file())
    assert generated == [p for p in committed if p.name != "README.md"]
    for rel in generated:
        assert (tmp_path / rel).read_text() == (REPO / "dashboards" / rel).read_text(), (
            f"dashboards/{rel} is stale: run sctpbench dashboards export dashboards --dashboards-path {COMMITTED_PROVIDER_PATH}")


def test_influx_start_stop_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not server.shutil.which("influxd"):
        pytest.skip("influxd not installed")
    port = server.free_port()
    assert cli.main(["influx", "start", "--dir", str(tmp_path), "--port", str(port)]) == 0
    try:
        assert "bind-address = \"127.0.0.1:" in (tmp_path / "influxdb.conf").read_text()
        assert cli.main(["influx", "status", "--dir", str(tmp_path)]) == 0
        assert cli.main(["influx", "start", "--dir", str(tmp_path), "--port", str(port)]) == 1  # already running
    finally:
        assert cli.main(["influx", "stop", "--dir", str(tmp_path)]) == 0
    assert cli.main(["influx", "status", "--dir", str(tmp_path)]) == 1
    assert "stopped" in capsys.readouterr().out


def test_a_bad_influx_url_on_the_command_line_stops_before_anything_is_built(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", str(EXAMPLES / "failover.yaml"), "--influx", "ftp://127.0.0.1:8086"]) == 2
    assert "influx.url" in capsys.readouterr().err


def test_a_v1_database_dropped_or_never_created_is_created_on_write(influxd: server.LocalServer) -> None:
    target = influxd.target("made_on_write")
    influx.writer(target).write(["m,a=b v=1i 1000000000"])
    assert influx.query(target, 'SELECT count("v") FROM "m"')[0]["values"][0][1] == 1


def _points(run_dir: Path) -> list[points.Point]:
    source = RunSource(run_dir)
    return source.poll() + source.finish()


def test_a_real_runs_policy_handovers_flow_and_cumulative_tsn_become_points(tmp_path: Path) -> None:
    """tests/data/live-view's run: every SACK of cum_tsn.parquet, every handover of summary.json,
    every policy decision (one point per path it weighed) and every iperf3 interval is a point."""
    run_dir = panels_run(tmp_path, 1_795_000_000_000_000_000)
    pts = _points(run_dir)
    by = {m: [p for p in pts if p.measurement == m] for m in (points.CUM_TSN, points.HANDOVER, points.POLICY, points.TCP_THROUGHPUT)}
    cum = pq.read_table(run_dir / "cum_tsn.parquet").to_pylist()
    assert [(p.tags["path"], p.fields["cum_tsn_ack"], p.time_ns) for p in by[points.CUM_TSN]] == \
        [(r["path"], r["cum_tsn_ack"], 1_795_000_000_000_000_000 + r["t_rel_ns"]) for r in cum]
    assert max(p.fields["cum_tsn_ack"] for p in by[points.CUM_TSN]) == 150  # every message acknowledged
    switches = json.loads((run_dir / "summary.json").read_text())["handover"]["switches"]
    assert [(p.tags["cause"], p.fields["from_path"], p.tags["path"], p.fields["delay_ms"]) for p in by[points.HANDOVER]] == \
        [(s["cause"], s["from"], s["to"], s["delay_ms"]) for s in switches]
    decisions = records.read(run_dir / "records/main.client.rec").policy
    assert len(by[points.POLICY]) == sum(len(d.paths) for d in decisions) == 8
    first = [p for p in by[points.POLICY] if p.time_ns == by[points.POLICY][0].time_ns]
    assert {p.tags["path"]: (p.fields["srtt_ms"], p.fields["chosen"]) for p in first} == \
        {"primary": (49.0, False), "secondary": (30.0, True)}  # the record: 198.18.0.2,ACTIVE,49.0,… 198.18.1.2,ACTIVE,30.0,…
    assert len(by[points.TCP_THROUGHPUT]) == pq.read_table(run_dir / "tcp_throughput.parquet").num_rows == 3
    assert all("config" not in p.tags for p in pts)  # a session's run: no configuration
    # Live (poll as the records grow, then finish) and afterwards give the same identities.
    assert {p.line() for p in pts} == {p.line() for p in _points(run_dir)}


def test_a_campaign_runs_points_carry_its_configuration(tmp_path: Path) -> None:
    """The config tag comes from the campaign's runs.jsonl (its `start` line for the run's key):
    nothing about the run itself (its id, its plan) changes."""
    copy = panels_run(tmp_path / "copy", 1_795_000_000_000_000_000)
    campaign = tmp_path / "nightly"
    run_dir = campaign / "runs" / "abc123"
    run_dir.parent.mkdir(parents=True)
    copy.rename(run_dir)
    label = "sctp.path_max_retrans=2 workload.rate=50/s"
    for key, config in (("other", "sctp.path_max_retrans=1"), ("abc123", "stale"), ("abc123", label)):
        (campaign / "runs.jsonl").open("a").write(json.dumps({"time": "t", "invocation": "i", "event": "start",
                                                              "run_key": key, "config": config}) + "\n")
    pts = _points(run_dir)
    assert {p.tags["config"] for p in pts} == {label} and {p.tags["campaign"] for p in pts} == {"nightly"}
    assert "config=sctp.path_max_retrans\\=2\\ workload.rate\\=50/s" in pts[0].line()
    assert {p.tags["run"] for p in pts} == {json.loads((run_dir / "plan.json").read_text())["run_id"]}
