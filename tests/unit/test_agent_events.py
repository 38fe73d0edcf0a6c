"""The agents' records of primary changes and send failures, parsed and kept in the
path-event table (analysis/store.py), where the report, the figures and the telemetry
read them."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from sctpbench.analysis import store
from sctpbench.collectors import records
from sctpbench.model import spec
from sctpbench.outputs import series
from sctpbench.plan import build as planning

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_000_000_000_000
S = 1_000_000_000


def test_the_parser_reads_send_failures_with_and_without_a_sequence_number() -> None:
    r = records.parse(["sendfail\t100\t5\t42\n", "sendfail\t101\t5\t-\n", "event\t102\tprimary\t198.18.1.2\n"])
    assert r.sendfail == [records.SendFail(100, 5, 42), records.SendFail(101, 5, None)]
    assert r.events == [(102, "primary", "198.18.1.2")] and r.other == []


def _run_folder(tmp_path: Path, client_lines: list[str]) -> Path:
    plan = planning.build(spec.load(ROOT / "examples/failover-restore.yaml"), 1, "agent")
    run = tmp_path / "run-001"
    (run / "records").mkdir(parents=True)
    (run / "plan.json").write_text(plan.to_json())
    (run / "backend.json").write_text(json.dumps({"ok": True, "t0_ns": T0, "t0_realtime_ns": T0}))
    (run / "events.jsonl").write_text(json.dumps({"kind": "primary", "target": "secondary", "detail": "", "at_ns": 9 * S,
                                                  "scheduled_ns": T0 + 9 * S - 20_000, "issued_ns": T0 + 9 * S - 20_000,
                                                  "applied_ns": T0 + 9 * S, "lag_ns": 20_000}) + "\n")
    main = plan.associations[0]
    (run / main.client_records).write_text("".join(client_lines))
    (run / main.server_records).write_text("")
    return run


def test_primary_changes_and_send_failures_reach_the_path_event_table(tmp_path: Path) -> None:
    run = _run_folder(tmp_path, [
        f"event\t{T0}\tstart\t{T0}\n",
        f"event\t{T0 + 9 * S + 20_000}\tprimary\t198.18.1.2\n",
        f"sendfail\t{T0 + 10 * S}\t0\t7\n",
        f"sendfail\t{T0 + 10 * S}\t0\t8\n",
    ])
    store.collect(run)
    rows = [(r["source"], r["kind"], r["path"], r["addr"], r["t_rel_ns"], r["detail"])
            for r in pq.read_table(run / "path_events.parquet").to_pylist()]
    assert rows == [
        ("timeline", "primary", "secondary", None, 9 * S, "scheduled t0+9.000s, lag 0.020 ms"),
        ("client", "PRIMARY_SET", "secondary", "198.18.1.2", 9 * S + 20_000, "SCTP_PRIMARY_ADDR took effect"),
        ("client", "SEND_FAILED", None, None, 10 * S, "message 7, error 0"),
        ("client", "SEND_FAILED", None, None, 10 * S, "message 8, error 0"),
    ]


def test_a_burst_of_send_failures_is_one_marker() -> None:
    rows = [{"t_rel_ns": S + i, "source": "client", "kind": "SEND_FAILED", "path": None, "addr": None} for i in range(50)]
    rows.append({"t_rel_ns": 2 * S, "source": "client", "kind": "PRIMARY_SET", "path": "secondary", "addr": "198.18.1.2"})
    assert [m.label for m in series.markers(rows)] == ["client: SEND_FAILED", "client: secondary PRIMARY_SET"]


def test_address_reconfiguration_requests_reach_the_path_event_table(tmp_path: Path) -> None:
    run = _run_folder(tmp_path, [
        f"event\t{T0 + 2 * S}\taddaddr\t198.18.1.1\n",
        f"event\t{T0 + 3 * S}\tpeerprimary\t198.18.1.1\n",
        f"event\t{T0 + 4 * S}\tdeladdr\t198.18.0.1\n",
    ])
    store.collect(run)
    rows = [(r["kind"], r["path"], r["addr"], r["t_rel_ns"]) for r in pq.read_table(run / "path_events.parquet").to_pylist()
            if r["source"] == "client"]
    assert rows == [("ASCONF_ADD_IP", "secondary", "198.18.1.1", 2 * S), ("ASCONF_SET_PRIMARY", "secondary", "198.18.1.1", 3 * S),
                    ("ASCONF_DELETE_IP", "primary", "198.18.0.1", 4 * S)]
