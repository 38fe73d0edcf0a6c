"""Competing traffic without a kernel: the spec's flows, their plan, iperf3's JSON (a real one,
captured on loopback) and udpgen's records made into rows, summaries and points."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sctpbench.analysis import store
from sctpbench.analysis import traffic as analysis
from sctpbench.backends.netns import render as netns_render
from sctpbench.collectors import traffic as collectors
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as planning
from sctpbench.plan.data import Plan
from sctpbench.telemetry import points
from sctpbench.telemetry.source import RunSource

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "competing-tcp.yaml"
# `iperf3 -s -1 -B 127.0.0.1` and `iperf3 -c 127.0.0.1 -t 2 -i 0.5 -C reno -J` (iperf 3.12).
IPERF3_JSON = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "iperf3-loopback.json"
# The client's report of seed 001's lc2x1 cell alone (two reno connections, 6 Mbit/s, RTT 300 ms,
# 12 s) in the guest on virtual time: reproductions/001-initial-window/experiment.yaml with
# events=[], traffic.0.name=lc2x1, the target path at 6mbit/150ms, traffic.0.parallel=2, workload.count=1.
IPERF3_GUEST_LC2X1 = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "iperf3-guest-lc2x1.json"

TOPOLOGY = """
topology:
  hosts: [a, b, c]
  paths:
    ab: {between: [a, b], delay: 10ms, rate: 10mbit}
    ba: {between: [b, a], delay: 10ms, forward: {rate: 2mbit}}
    ac: {between: [a, c], delay: 10ms}
workload: {client: a, server: b, duration: 5s}
"""


def _load(tmp_path: Path, traffic: str) -> spec.Experiment:
    path = tmp_path / "x.yaml"
    path.write_text(TOPOLOGY + "traffic:\n" + traffic)
    return spec.load(path)


def _plan(overrides: list[str] = ()) -> Plan:  # type: ignore[assignment]
    return planning.build(spec.load(EXAMPLE, list(overrides)), 1, "/opt/sctpbench-agent", "/opt/sctpbench-udpgen")


# ---------------------------------------------------------------------------- spec


def test_defaults_and_the_first_path_joining_the_hosts(tmp_path: Path) -> None:
    exp = _load(tmp_path, "  - {kind: tcp, name: t, client: a, server: b, duration: 3s}\n"
                          "  - {kind: udp, name: u, client: b, server: a, rate: 100/s, duration: 2s}\n")
    tcp, udp = exp.traffic
    assert (tcp.congestion, tcp.sample_interval, tcp.port, tcp.start) == ("cubic", 1_000_000_000, 5201, 0)
    assert (udp.size, udp.arrival, udp.port) == (250, "poisson", 9000)
    p = planning.build(exp, 1, "agent")
    assert [f.path for f in p.traffic] == ["ab", "ab"]
    assert p.traffic[1].client_address == "198.18.0.2" and p.traffic[1].server_address == "198.18.0.1"


def test_a_share_is_of_the_direction_from_client_to_server_with_headers(tmp_path: Path) -> None:
    # Path ba's forward direction (b → a) is 2 Mbit/s; a → b over it is its reverse (no rate).
    exp = _load(tmp_path, "  - {kind: udp, name: u, client: b, server: a, path: ba, share: 40%, size: 222B, duration: 2s}\n")
    flow = planning.build(exp, 1, "agent").traffic[0]
    assert flow.params["rate"] == pytest.approx(0.4 * 2e6 / (264 * 8))
    assert flow.params["offered_bps"] == pytest.approx(0.4 * 2e6)
    with pytest.raises(SpecError, match=r"traffic\.0\.share: a share needs the path's rate, and its reverse direction has none"):
        _load(tmp_path, "  - {kind: udp, name: u, client: a, server: b, path: ba, share: 40%, duration: 2s}\n")


@pytest.mark.parametrize("flow, message", [
    ("{kind: tcp, name: t, client: a, server: c, path: ab, duration: 1s}", "path ab does not join a and c; allowed: ac"),
    ("{kind: tcp, name: t, client: b, server: c, duration: 1s}", "traffic.0.server: no path joins b and c"),
    ("{kind: tcp, name: t, client: a, server: b, duration: 500ms}", "traffic.0.duration: '500ms' is out of range; allowed: at least 1s"),
    ("{kind: tcp, name: t, client: a, server: b, duration: 1s, sample_interval: 50ms}",
     "traffic.0.sample_interval: '50ms' is out of range; allowed: at least 100ms"),
    ("{kind: tcp, name: t, client: a, server: b, duration: 1s, congestion: bbr}", "'bbr' is not allowed; allowed: 'cubic' or 'reno'"),
    ("{kind: udp, name: u, client: a, server: b, duration: 1s}", "give rate (datagrams/s) or share"),
    ("{kind: udp, name: u, client: a, server: b, rate: 10/s, size: 20B, duration: 1s}",
     "traffic.0.size: '20B' is out of range; allowed: at least 28"),
    ("{name: u, client: a, server: b, rate: 10/s, duration: 1s}", "traffic.0: kind missing is not a flow kind; allowed: tcp, udp"),
])
def test_bad_flows_get_one_line(tmp_path: Path, flow: str, message: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, f"  - {flow}\n")
    assert message in str(e.value) and "x.yaml:" in str(e.value) and "\n" not in str(e.value)


def test_two_flows_may_not_listen_on_one_port_of_a_host(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"x.yaml:\d+: traffic.1.port: 9000 on host b is already the port of flow u"):
        _load(tmp_path, "  - {kind: udp, name: u, client: a, server: b, rate: 1/s, duration: 1s}\n"
                        "  - {kind: udp, name: v, client: a, server: b, rate: 1/s, duration: 1s}\n")


def test_traffic_changes_the_run_id_and_its_absence_does_not() -> None:
    without = _plan(["traffic=[]"])
    with_traffic = _plan()
    assert without.run_id != with_traffic.run_id
    # the run id of an experiment without traffic: the same with the key written empty as left out
    plain = spec.load(ROOT / "examples" / "failover.yaml")
    assert planning.build(plain, 1, "a").run_id == planning.build(spec.load(ROOT / "examples" / "failover.yaml", ["traffic=[]"]), 1, "a").run_id
    assert '"traffic"' not in without.to_json() and '"traffic"' in with_traffic.to_json()


# ---------------------------------------------------------------------------- plan


def test_receivers_then_senders_after_the_agents_and_when_each_goes() -> None:
    p = _plan()
    names = [(x.name, x.role) for x in p.processes]
    assert names == [("main.server", "server"), ("main.client", "client"),
                     ("bulk1.server", "traffic-server"), ("bulk2.server", "traffic-server"), ("noise.server", "traffic-server"),
                     ("bulk1.client", "traffic-client"), ("bulk2.client", "traffic-client"), ("noise.client", "traffic-client")]
    procs = {x.name: x for x in p.processes}
    assert procs["bulk2.server"].argv == ["iperf3", "-s", "-1", "-B", "198.18.0.2", "-p", "5202", "--forceflush"]
    assert procs["bulk1.client"].argv[:4] == ["sh", "-c", 'echo ready; read _; exec "$@"', "sh"]
    assert procs["bulk1.client"].argv[4:] == ["iperf3", "-c", "198.18.0.2", "-B", "198.18.0.1", "-p", "5201", "-t", "10", "-i", "1",
                                             "-C", "cubic", "-J", "--logfile", "{run}/traffic/bulk1.json"]
    noise = procs["noise.client"].argv
    assert noise[:2] == ["/opt/sctpbench-udpgen", "send"] and noise[noise.index("--peer") + 1] == "198.18.1.2"
    assert noise[noise.index("--rate") + 1] == "1712.33" and noise[noise.index("--duration") + 1] == "10000"
    go = [(t.kind, t.target, t.control, t.agents) for t in p.timeline if t.target != "main"]
    assert go == [("go", "bulk1", "go", ["bulk1.client"]), ("go", "bulk2", "go", ["bulk2.client"]),
                  ("start", "noise", "start {t}", ["noise.client"])]


def test_plan_json_round_trip_keeps_the_flows() -> None:
    p = _plan(["traffic.0.start=2s", "vary.start=10ms"])
    again = Plan.from_json(p.to_json())
    assert again.traffic == p.traffic and again.to_json() == p.to_json()
    # vary: start moves the flows with the associations, so they keep their relative timing
    assert p.traffic[0].start_ns - p.associations[0].workload["start_ns"] == 2_000_000_000


def test_the_rendered_plan_shows_every_flow() -> None:
    text = netns_render.render(_plan())
    assert "mkdir -p $RUN/records $RUN/captures $RUN/traffic" in text
    assert "# t0+0.000s go bulk1 iperf3 cubic a → b over bottleneck for 10s: write 'go' to the stdin of bulk1.client" in text
    assert "#   noise: udp a → b over side, t0+0.000s to t0+10.000s, output traffic/noise.client.rec, traffic/noise.server.rec" in text


# ---------------------------------------------------------------------------- results


def test_iperf3_json_from_a_real_loopback_run() -> None:
    result = collectors.parse_iperf3(IPERF3_JSON.read_text())
    assert len(result.intervals) == 4 and result.congestion == "reno" and result.error is None
    first = result.intervals[0]
    assert first.start_s == 0 and first.end_s == pytest.approx(0.5, abs=0.01) and first.snd_cwnd and first.rtt_ms
    doc = json.loads(IPERF3_JSON.read_text())
    assert analysis.mean_throughput_bps(result) == doc["end"]["sum_received"]["bits_per_second"]
    assert result.received_bps and result.sent_bps


def test_a_flows_throughput_is_what_its_receiver_got_not_what_its_sender_wrote() -> None:
    """Seed 001's lc2x1 cell in the guest: two reno connections on a 6 Mbit/s path. The sender's
    intervals (bytes written into the socket) add up to 6.40 Mbit/s, more than the path carries;
    5.32 Mbit/s reached the receiver, and that is the flow's throughput."""
    doc = json.loads(IPERF3_GUEST_LC2X1.read_text())
    result = collectors.parse_iperf3(IPERF3_GUEST_LC2X1.read_text())
    written = sum(i.bytes for i in result.intervals[1:]) * 8 / sum(i.end_s - i.start_s for i in result.intervals[1:])
    assert written > 6e6  # the sender's rate: above the path's
    assert analysis.mean_throughput_bps(result) == pytest.approx(5.3189e6, rel=1e-4)  # below the path's 6
    per = analysis.connection_throughputs_bps(result)
    assert per == [s["receiver"]["bits_per_second"] for s in doc["end"]["streams"]] and len(per) == 2


def test_a_cut_or_missing_iperf3_report_says_so(tmp_path: Path) -> None:
    assert collectors.parse_iperf3('{"start": {').error == "iperf3 left no complete JSON document"
    assert "missing" in (collectors.read_iperf3(tmp_path / "none.json").error or "")
    assert analysis.mean_throughput_bps(collectors.TcpResult()) is None


def test_udpgen_records_make_counts_loss_and_rates_with_headers() -> None:
    sent = collectors.parse_udpgen(["tx 100 101 0 250 ok", "tx 200 201 1 250 ok", "tx 300 301 2 250 ENOBUFS", "tx 400 40", "end 3"])
    got = collectors.parse_udpgen(["rx 150 0 100 250", "rx 151 0 100 250", "end 2"])
    assert [d.seq for d in sent.datagrams] == [0, 1, 2] and sent.end == 3 and got.end == 2
    flow = _plan().traffic[2]
    summary = analysis.udp_summary(flow, sent, got)
    assert (summary["sent"], summary["refused"], summary["received"], summary["loss"]) == (2, 1, 1, 0.5)
    assert summary["offered_bps"] == pytest.approx(2 * 292 * 8 / 10) and summary["achieved_bps"] == pytest.approx(292 * 8 / 10)
    assert summary["complete"] is True


def _fake_run(run_dir: Path) -> Plan:
    """A run folder with the example's plan, a go line per TCP flow and the loopback report as each's."""
    p = _plan()
    (run_dir / "traffic").mkdir(parents=True)
    (run_dir / "plan.json").write_text(p.to_json())
    t0 = 5_000_000_000
    (run_dir / "backend.json").write_text(json.dumps({"ok": True, "t0_ns": t0, "t0_realtime_ns": 1_700_000_000_000_000_000}))
    events = [{"kind": t.kind, "target": t.target, "detail": t.detail, "direction": None, "at_ns": t.at_ns,
               "scheduled_ns": t0, "issued_ns": t0, "applied_ns": t0 + 1000, "lag_ns": 1000} for t in p.timeline]
    (run_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    for f in p.traffic:
        if f.kind == "tcp":
            (run_dir / f.outputs["client"]).write_text(IPERF3_JSON.read_text())
    (run_dir / "traffic/noise.client.rec").write_text("tx 1 2 0 250 ok\nend 1\n")
    (run_dir / "traffic/noise.server.rec").write_text("rx 3 0 1 250\nend 1\n")
    return p


def test_the_store_keeps_tcp_samples_on_the_runs_clock_and_each_flows_summary(tmp_path: Path) -> None:
    _fake_run(tmp_path)
    summary = store.collect(tmp_path)
    rows = pq.read_table(tmp_path / "tcp_throughput.parquet").to_pylist()
    assert [r["flow"] for r in rows] == ["bulk1"] * 4 + ["bulk2"] * 4
    # stamped at the interval's end, from the moment the flow went (t0 + 1 µs here)
    assert rows[0]["t_rel_ns"] == 1000 + round(collectors.parse_iperf3(IPERF3_JSON.read_text()).intervals[0].end_s * 1e9)
    assert [r["t_s"] for r in rows[:4]] == sorted(r["t_s"] for r in rows[:4]) and rows[3]["t_s"] == pytest.approx(2.0, abs=0.01)
    assert summary["traffic"]["bulk1"]["mean_throughput_bps"] > 0 and summary["traffic"]["noise"]["loss"] == 0
    assert json.loads((tmp_path / "summary.json").read_text())["traffic"] == summary["traffic"]


def test_tcp_samples_become_points_tagged_by_flow(tmp_path: Path) -> None:
    run_dir = tmp_path / "camp" / "run-001"
    _fake_run(run_dir)
    store.collect(run_dir)
    source = RunSource(run_dir)
    pts = [p for p in source.poll() + source.finish() if p.measurement == points.TCP_THROUGHPUT]
    assert len(pts) == 8 == source.counts[points.TCP_THROUGHPUT]
    assert {p.tags["flow"] for p in pts} == {"bulk1", "bulk2"} and pts[0].tags["association"] == "all"
    assert pts[0].time_ns == 1_700_000_000_000_000_000 + pq.read_table(run_dir / "tcp_throughput.parquet").to_pylist()[0]["t_rel_ns"]
    assert "bits_per_second=" in pts[0].line()
