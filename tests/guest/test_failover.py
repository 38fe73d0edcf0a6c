"""End to end in the guest: kernel SCTP over netem, the failover example, measured.

One run of examples/failover.yaml (about 20 s) serves the assertions below; tolerances
come from the issue and the kernel's own timer granularity, not from this machine's speed.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def failover(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("results")
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover.yaml"), "--json", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    run = doc["runs"][0]
    run["dir"] = Path(run["directory"])
    return run


def test_json_document_has_runs_and_summary_with_the_documented_keys(failover: dict[str, Any]) -> None:
    keys = {"mtt_mean_ms", "mtt_p50_ms", "mtt_p99_ms", "mmtt_ms", "detection_time_ms", "failover_time_ms",
            "messages_sent", "messages_delivered", "messages_affected"}
    assert keys <= set(failover["metrics"])
    summary = json.loads((failover["dir"].parent / "summary.json").read_text())["summary"]
    assert keys <= set(summary) and set(summary["mtt_p50_ms"]) >= {"mean", "ci95"}


def test_association_is_dual_homed(failover: dict[str, Any]) -> None:
    assert sorted(failover["peers_seen"]) == ["198.18.0.2", "198.18.1.2"]
    assert failover["paths_used"] == ["primary", "secondary"]


def test_mtt_before_the_failure_is_the_configured_one_way_delay(failover: dict[str, Any]) -> None:
    messages = pq.read_table(failover["dir"] / "messages.parquet").to_pylist()
    fail_at = next(e for e in failover["events"] if e["kind"] == "fail")["at_ns"]
    before = sorted(m["mtt_ns"] for m in messages if m["t_rel_ns"] < fail_at)
    assert len(before) >= 200
    assert {m["stream"] for m in messages} == {0}  # workload.streams defaults to 1
    median_ms = before[len(before) // 2] / 1e6
    assert abs(median_ms - 10.0) <= 1.0, median_ms


def test_detection_time_lies_between_the_rfc_model_and_its_bound(failover: dict[str, Any]) -> None:
    model = failover["detection_model"]
    assert (model["rto_at_failure_ms"], model["rto_max_ms"], model["path_max_retrans"]) == (200, 800, 2)
    assert model["model_ms"] == 1400
    detection = failover["metrics"]["detection_time_ms"]
    assert model["model_ms"] <= detection <= model["bound_ms"], (detection, model)


def test_every_message_is_delivered_and_the_failover_is_measured(failover: dict[str, Any]) -> None:
    m = failover["metrics"]
    assert m["messages_sent"] == 450  # 50/s for 9 s
    assert m["messages_delivered"] == m["messages_sent"]
    assert 0 < m["failover_time_ms"] < m["detection_time_ms"]
    assert m["messages_affected"] > 0
    assert m["mmtt_ms"] >= m["failover_time_ms"] - 20


def test_parameters_in_force_are_read_back_from_the_kernel(failover: dict[str, Any]) -> None:
    params = json.loads((failover["dir"] / "params.json").read_text())
    client = params["association"]["client"]
    assert client["rto_initial_ms"] == "200" and client["rto_min_ms"] == "200" and client["rto_max_ms"] == "800"
    assert client["path_max_retrans"] == "2" and client["nodelay"] == "1"
    assert params["association"]["server"]["sack_delay_ms"] == "10"
    assert params["sysctl"]["client"]["pf_enable"] == "0"
    versions = json.loads((failover["dir"] / "versions.json").read_text())
    assert versions["kernel_release"].startswith("6.1") and "iproute2" in versions["iproute2"]


def test_failure_is_applied_on_time_and_recorded_on_the_message_clock(failover: dict[str, Any]) -> None:
    fail = next(e for e in failover["events"] if e["kind"] == "fail")
    assert 0 <= fail["lag_ns"] < 100_000_000
    events = pq.read_table(failover["dir"] / "path_events.parquet").to_pylist()
    kinds = [(e["source"], e["kind"], e["path"]) for e in events]
    assert ("timeline", "fail", "primary") in kinds
    assert ("client", "ADDR_UNREACHABLE", "primary") in kinds


def test_the_run_folder_holds_every_file_the_backend_contract_requires(failover: dict[str, Any]) -> None:
    from sctpbench.results import files

    missing = [f.name for f in files.FILES if f.required and not list(failover["dir"].glob(f.pattern))]
    assert not missing
