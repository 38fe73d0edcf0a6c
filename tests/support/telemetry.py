"""Shared by the telemetry tests: a real influxd on loopback, and a run folder written the
way the backend and the agents write one (for tests that need no kernel)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sctpbench.dashboards import catalog, evaluate
from sctpbench.model import spec
from sctpbench.plan import build as planning
from sctpbench.telemetry import influx, points, server

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def require_influxd() -> None:
    """Skip where influxd is missing; fail under SCTPBENCH_REQUIRE_GUEST=1."""
    if shutil.which("influxd") is None:
        if os.environ.get("SCTPBENCH_REQUIRE_GUEST") == "1":
            pytest.fail("influxd is required (Debian package influxdb, installed by scripts/install)")
        pytest.skip("influxd not installed (Debian package influxdb)")


def local_influxd(directory: Path) -> Iterator[server.LocalServer]:
    """A fixture body: influxd on a free loopback port, stopped afterwards."""
    require_influxd()
    s = server.start(directory, server.free_port())
    try:
        yield s
    finally:
        server.stop(directory)


def counts(target: influx.Target, run_id: str, campaign: str) -> dict[str, int]:
    """Points per measurement for one run of a campaign (or session), as InfluxDB holds them."""
    field = {"sctp_message": "seq", "sctp_path": "cwnd", "sctp_event": "detail", "sctp_run": "seed"}
    out = {}
    for m in points.MEASUREMENTS:
        series = influx.query(target, f'SELECT count("{field[m]}") FROM "{m}" WHERE "run" = \'{run_id}\' AND "campaign" = \'{campaign}\'')
        out[m] = series[0]["values"][0][1] if series else 0
    return out


CLIENT_ADDRS = ("198.18.0.1", "198.18.1.1")
SERVER_ADDRS = ("198.18.0.2", "198.18.1.2")


def synthetic_run(run_dir: Path, messages: int = 200, lost: tuple[int, ...] = (100, 101), fail_at: int = 100,
                  t0_realtime_ns: int | None = None) -> dict[str, list[str]]:
    """A finished run folder like the backend leaves it; returns the record lines it wrote.

    50 messages/s from t0; the primary path fails before message `fail_at`, after which
    messages arrive on the secondary; `lost` never arrive; path samples every 100 ms.
    """
    experiment = spec.load(EXAMPLES / "failover.yaml", [])
    p = planning.build(experiment, 1, "agent")
    (run_dir / "records").mkdir(parents=True)
    (run_dir / "plan.json").write_text(p.to_json())
    t0 = 5_000_000_000
    wall = t0_realtime_ns if t0_realtime_ns is not None else time.time_ns() - 60_000_000_000
    (run_dir / "kernel.json").write_text(json.dumps({"hz": 100}))
    (run_dir / "backend.json").write_text(json.dumps({"ok": True, "t0_ns": t0, "t0_realtime_ns": wall}))
    header = "#sctpbench-records\tv1\tclock=CLOCK_MONOTONIC\tunit=ns\n"
    client = [header, "meta\trole\tclient\n", f"param\t{t0}\trto_max_ms\t800\n", f"param\t{t0}\tpath_max_retrans\t2\n"]
    server_lines = [header, "meta\trole\tserver\n", f"param\t{t0}\tsack_delay_ms\t10\n"]
    fail_t = t0 + fail_at * 20_000_000 - 5_000_000
    for seq in range(messages):
        t_gen = t0 + seq * 20_000_000
        client.append(f"tx\t{t_gen}\t{seq}\t0\t200\t{t_gen + 30_000}\n")
        if seq not in lost:
            t_rx = t_gen + (10_000_000 if seq < fail_at else 1_200_000_000)
            via = CLIENT_ADDRS[0] if seq < fail_at else CLIENT_ADDRS[1]
            server_lines.append(f"rx\t{t_rx}\t{seq}\t0\t200\t{t_gen}\t{via}\n")
        if seq % 5 == 0:
            for i, addr in enumerate(SERVER_ADDRS):
                state = "INACTIVE" if i == 0 and t_gen > fail_t + 1_400_000_000 else "ACTIVE"
                client.append(f"path\t{t_gen}\t{addr}\t{state}\t4380\t2\t200\t1500\t{1 if i == 0 else 0}\n")
                server_lines.append(f"path\t{t_gen}\t{CLIENT_ADDRS[i]}\tACTIVE\t4380\t2\t200\t1500\t{1 if i == 0 else 0}\n")
    client.append(f"addr\t{fail_t + 1_440_000_000}\t{SERVER_ADDRS[0]}\tADDR_UNREACHABLE\t0\n")
    client.append(f"end\t{t0 + messages * 20_000_000 + 2_000_000_000}\t{messages}\n")
    server_lines.append(f"end\t{t0 + messages * 20_000_000 + 2_000_000_000}\t{messages - len(lost)}\n")
    events = [
        {"kind": "start", "target": p.associations[0].name, "detail": "", "at_ns": 0, "applied_ns": t0, "lag_ns": 0},
        {"kind": "fail", "target": "primary", "detail": "", "at_ns": fail_t - t0, "applied_ns": fail_t + 9_000_000,
         "lag_ns": 9_000_000},
    ]
    lines = {"client": client, "server": server_lines, "events": [json.dumps(e) + "\n" for e in events]}
    (run_dir / p.associations[0].client_records).write_text("".join(client))
    (run_dir / p.associations[0].server_records).write_text("".join(server_lines))
    (run_dir / "events.jsonl").write_text("".join(lines["events"]))
    return lines


def dashboard_queries(experiment: str, campaign: str, run: str, start_ns: int, end_ns: int,
                      association: str = ".*") -> list[tuple[str, str]]:
    """Every dashboard query with Grafana's variables filled in as the live view fills them (association: All by default)."""
    selection = evaluate.Selection({"experiment": experiment, "campaign": campaign, "run": run,
                                    "association": evaluate.ALL if association == ".*" else association, "path": evaluate.ALL})
    span = evaluate.Window(start_ns, end_ns)
    out = []
    for d in catalog.DASHBOARDS:
        for where, q in d.queries():
            out.append((f"{d.uid}: {where}", selection.fill(q, span)))
    return out


def measurements_the_run_lacks(run_dir: Path) -> set[str]:
    """The measurements only some runs have, that this run's store shows it has none of:
    competing TCP flows, a policy's decisions, handovers, captures' cumulative TSN."""
    summary = json.loads((run_dir / "summary.json").read_text())
    events = pq.read_table(run_dir / "path_events.parquet").to_pylist()
    has = {
        points.TCP_THROUGHPUT: (run_dir / "tcp_throughput.parquet").exists() and pq.read_table(run_dir / "tcp_throughput.parquet").num_rows > 0,
        points.CUM_TSN: (run_dir / "cum_tsn.parquet").exists() and pq.read_table(run_dir / "cum_tsn.parquet").num_rows > 0,
        points.HANDOVER: bool((summary.get("handover") or {}).get("switches")),
        points.POLICY: any(e["kind"] == "POLICY" for e in events),
    }
    return {m for m, present in has.items() if not present}


def assert_every_dashboard_query_has_data(target: influx.Target, run_dir: Path, association: str = ".*") -> None:
    """Every query of the dashboards returns data for the run: all of them, but those of a
    measurement the run's store shows it has nothing for (measurements_the_run_lacks)."""
    plan = json.loads((run_dir / "plan.json").read_text())
    backend = json.loads((run_dir / "backend.json").read_text())
    start = backend["t0_realtime_ns"] - 10_000_000_000
    end = start + 300_000_000_000
    lacking = measurements_the_run_lacks(run_dir)
    for where, q in dashboard_queries(plan["experiment"], run_dir.parent.name, plan["run_id"], start, end, association):
        if any(f'FROM "{m}"' in q for m in lacking):
            continue
        series = influx.query(target, q)
        values = [v for s in series for row in s.get("values", []) for v in row[1:] if v is not None]
        assert values, f"{where} returned no data: {q}"


# A real run in the guest (tests/data/live-view/README.md): a policy's handovers off a degraded
# path, a competing TCP flow, captures (cumulative TSN). Its records, timeline and store as
# the run left them; only the captures themselves are not kept.
PANELS_RUN = next((Path(__file__).resolve().parents[1] / "data" / "live-view").glob("live-view-panels-*")) / "run-001"


def panels_run(directory: Path, t0_realtime_ns: int) -> Path:
    """A copy of PANELS_RUN whose t0 is at the given wall-clock moment (its backend.json's
    anchor moved; the records, on the agents' own clock, unchanged), so its points land
    where a test's time range is."""
    run_dir = directory / PANELS_RUN.parent.name / PANELS_RUN.name
    shutil.copytree(PANELS_RUN, run_dir)
    backend = json.loads((run_dir / "backend.json").read_text())
    (run_dir / "backend.json").write_text(json.dumps(backend | {"t0_realtime_ns": t0_realtime_ns}))
    return run_dir


LIVE_ASSOCIATIONS = ("main", "ops")


def live_points(run: str, t0_ns: int, seqs: range, fail_seq: int = 100,
                associations: tuple[str, ...] = LIVE_ASSOCIATIONS) -> list[str]:
    """Line protocol for part of a run as it streams: two associations (MTT 10 ms on the primary,
    1200 ms on the secondary from `fail_seq`, `main` and `ops` apart by 5 ms), path samples every
    5th message, the timeline's failure, the client's UNREACHABLE and the run's summary points."""
    lines = []
    for n, association in enumerate(associations):
        tags = points.RunTags("live", "session", run, 1, association)
        for seq in seqs:
            t = t0_ns + seq * 20_000_000
            failed = seq >= fail_seq
            mtt = (1200.0 if failed else 10.0) + 5 * n
            lines.append(points.Point("sctp_message", tags.as_dict() | {"path": CLIENT_ADDRS[int(failed)]},
                                      {"mtt_ms": mtt, "size": 200, "stream": 0, "seq": seq, "delivered": True}, t).line())
            if seq % 5 == 0:
                for i, addr in enumerate(SERVER_ADDRS):
                    state = "INACTIVE" if i == 0 and failed else "ACTIVE"
                    lines.append(points.Point(
                        "sctp_path", tags.as_dict() | {"endpoint": "client", "path": addr},
                        {"state": state, "state_code": points.STATE_CODES[state], "cwnd": 4380 + 100 * n, "srtt_ms": 20.0,
                         "rto_ms": 200, "mtu": 1500, "primary": i == 0}, t).line())
        if fail_seq in seqs:
            t_fail = t0_ns + fail_seq * 20_000_000
            lines.append(points.Point("sctp_event", tags.as_dict() | {"source": "client", "kind": "ADDR_UNREACHABLE",
                                                                      "path": SERVER_ADDRS[0]},
                                      {"detail": "error 0", "addr": SERVER_ADDRS[0], "title": "client: ADDR_UNREACHABLE"},
                                      t_fail + 400_000_000).line())
            lines.append(points.Point("sctp_run", tags.as_dict() | {"status": "ok"},
                                      {"failover_time_ms": 1200.0, "detection_time_ms": 1400.0, "detection_model_ms": 1400.0,
                                       "mtt_p50_ms": 10.0, "mmtt_ms": 1200.0, "messages_sent": float(len(seqs)),
                                       "messages_delivered": float(len(seqs))}, t_fail).line())
    if fail_seq in seqs:
        # The timing self-check is the run's, on its `all` point only (telemetry/points.py's run_points).
        every = points.RunTags("live", "session", run, 1, points.ALL_ASSOCIATIONS)
        lines.append(points.Point("sctp_run", every.as_dict() | {"status": "ok"},
                                  {"failover_time_ms": 1200.0, "detection_time_ms": 1400.0, "mtt_p50_ms": 10.0, "seed": 1,
                                   "selfcheck_lateness_p99_ms": 0.1, "selfcheck_lateness_max_ms": 0.2,
                                   "selfcheck_event_lag_max_ms": 0.0, "selfcheck_delay_excess_ms": 0.0,
                                   "selfcheck_reasons": 0.0},
                                  t0_ns + fail_seq * 20_000_000).line())
        lines.append(points.Point("sctp_event", every.as_dict() | {"source": "timeline", "kind": "fail", "path": "none"},
                                  {"detail": "scheduled", "addr": "", "title": "timeline: fail primary"},
                                  t0_ns + fail_seq * 20_000_000 - 5_000_000).line())
    return lines
