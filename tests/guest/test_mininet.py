"""The mininet backend end to end in the guest (virtual clock): examples/failover.yaml gives
what the uml backend gives, examples/link-faults.yaml (emulator) runs with every event
applied, and nothing of Mininet outlives a run, a failed one included.

On virtual time each backend's result is deterministic, but the two reach t0 at different
moments of the kernel's timer wheel (Mininet's build takes other virtual time), and Linux
rounds SCTP's timers up to that wheel's slots: with HZ=1000, 8 ms for the 200 and 400 ms
RTOs, 64 ms for the 800 ms one. Measured: with t0 on another phase the detection time
differed by 18.3 ms and the failover time by 2.3 ms; with t0 placed on the uml run's phase
(mod 1.024 s, 50 µs apart) both agreed within 0.05 ms, and with the netns backend's t0
rounded up to a multiple of 1.024 s (tried, not committed) to the nanosecond. So the
comparison is exact (1 ms) when the phases agree and bounded by the slots the timers round
to when they do not.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sctpbench.results import files
from tests.support.guest_processes import guests

ROOT = Path(__file__).resolve().parents[2]

PHASE_NS = 1_024_000_000  # the timer wheel's slots at HZ=1000 up to 4.1 s all divide it
SAME_PHASE_NS = 100_000
# Up to one slot of rounding per expiry, either way: detection spans T3 expiries of
# 200 ms, 400 ms (8 ms slots) and 800 ms (64 ms slots); failover one of 200 ms.
WHEEL_BOUND_MS = {"detection_time_ms": 8 + 8 + 64, "failover_time_ms": 8}


def run(folder: Path, example: str, backend: str, *extra: str, env: dict[str, str] | None = None,
        ok: bool = True) -> Path:
    """`sctpbench run` as a user runs it, on one backend; the run folder."""
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples" / example), "--backend", backend,
                        "--json", "--out", str(folder), *extra],
                       capture_output=True, text=True, env=env, timeout=600)
    assert (r.returncode == 0) == ok, r.stderr + r.stdout
    return next(folder.glob("*/run-001"))


def _metrics(run_dir: Path) -> dict[str, Any]:
    return dict(json.loads((run_dir / "summary.json").read_text())["metrics"])


def _t0(run_dir: Path) -> int:
    return int(json.loads((run_dir / "backend.json").read_text())["t0_ns"])


def _mininet(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "mininet.json").read_text())


def _run_id(run_dir: Path) -> str:
    return str(json.loads((run_dir / "plan.json").read_text())["run_id"])


@pytest.fixture(scope="module")
def failover(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("failover")
    return {backend: run(out / backend, "failover.yaml", backend) for backend in ("uml", "mininet")}


@pytest.fixture(scope="module")
def link_faults(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run(tmp_path_factory.mktemp("link-faults"), "link-faults.yaml", "mininet", "--set", "measure.capture=true")


def test_failover_gives_the_uml_backends_metrics(failover: dict[str, Path]) -> None:
    uml, mn = _metrics(failover["uml"]), _metrics(failover["mininet"])
    for m in (uml, mn):
        assert m["messages_sent"] == 450 and m["messages_delivered"] == 450
    # The bridge in each path adds no time: the same one-way delay, message for message.
    assert abs(mn["mtt_p50_ms"] - uml["mtt_p50_ms"]) <= 1.0
    phase_apart = abs(_t0(failover["mininet"]) - _t0(failover["uml"])) % PHASE_NS
    same_phase = min(phase_apart, PHASE_NS - phase_apart) <= SAME_PHASE_NS
    for key, bound_ms in WHEEL_BOUND_MS.items():
        allowed = 1.0 if same_phase else bound_ms
        assert abs(mn[key] - uml[key]) <= allowed, (key, mn[key], uml[key], "same t0 phase" if same_phase else "t0 phases differ")


def test_the_run_folder_holds_what_the_uml_backends_does_and_mininet_json(failover: dict[str, Path]) -> None:
    def names(run_dir: Path) -> set[str]:
        return {p.name for p in run_dir.iterdir() if not p.name.endswith(".log")}

    assert names(failover["mininet"]) == names(failover["uml"]) | {"mininet.json"}
    for entry in files.FILES:
        if entry.required:
            assert list(failover["mininet"].glob(entry.pattern)), entry.name


def test_mininet_json_records_the_network_and_a_clean_teardown(failover: dict[str, Path]) -> None:
    record = _mininet(failover["mininet"])
    assert record["mininet_version"].startswith("2.3")
    assert record["hosts"] == ["client", "server"]
    assert [(link["host"], link["intf"]) for link in record["links"]] == [
        ("client", "primary"), ("server", "primary"), ("client", "secondary"), ("server", "secondary")]
    built = record["present_after_build"]
    assert len(built["namespaces"]) == 2 and len(built["links"]) == 6 and len(built["shells"]) == 2
    assert record["teardown"] == {"errors": [], "namespaces_left": [], "links_left": [], "shells_left": [], "clean": True}


def test_the_plans_qdiscs_are_the_only_ones_on_the_hosts(failover: dict[str, Path]) -> None:
    uml = json.loads((failover["uml"] / "kernel.json").read_text())["qdisc"]
    mn = json.loads((failover["mininet"] / "kernel.json").read_text())["qdisc"]
    assert mn == uml


def test_link_faults_on_the_emulator_applies_every_event(link_faults: Path) -> None:
    events = [json.loads(line) for line in (link_faults / "events.jsonl").read_text().splitlines()]
    kinds = [e["kind"] for e in events if e["kind"] != "start"]
    assert kinds == ["degrade", "down", "up", "fail", "restore", "fail", "restore"]
    assert all(e["lag_ns"] < 20_000_000 for e in events)
    m = _metrics(link_faults)
    assert m["messages_delivered"] == m["messages_sent"] == 550
    record = _mininet(link_faults)
    assert record["hosts"] == ["client", "server", "emu"] and len(record["bridges"]) == 4
    assert record["teardown"]["clean"] is True


def test_captures_hold_only_the_runs_sctp_packets(link_faults: Path) -> None:
    """The bridges in the guest's own namespace send nothing (IPv6 off there): no router
    solicitations or MLD reports flooded onto the paths."""
    pcaps = sorted((link_faults / "captures").glob("*.pcap"))
    assert len(pcaps) == 4
    for pcap in pcaps:
        total = subprocess.run(["tcpdump", "-r", str(pcap), "-n"], capture_output=True, text=True).stdout.splitlines()
        other = subprocess.run(["tcpdump", "-r", str(pcap), "-n", "not sctp"], capture_output=True, text=True).stdout
        assert total and other == "", (pcap.name, other.splitlines()[:3])


def test_a_failed_run_tears_everything_down(tmp_path: Path) -> None:
    """The agent fails after Mininet has built the network: the run stops with its reason
    and the teardown still removes every namespace, bridge and shell."""
    env = {**os.environ, "SCTPBENCH_AGENT": "/bin/false"}
    run_dir = run(tmp_path, "failover.yaml", "mininet", env=env, ok=False)
    backend = json.loads((run_dir / "backend.json").read_text())
    assert backend["ok"] is False and "--version" in backend["error"]
    record = _mininet(run_dir)
    assert len(record["present_after_build"]["links"]) == 6
    assert record["teardown"]["clean"] is True
    assert not guests((_run_id(run_dir),))


def test_ctrl_c_mid_run_ends_the_guest_with_its_network(tmp_path: Path) -> None:
    """Paced, so that the run is still going when interrupted. The uml backend ends the guest
    whole (backends/uml/backend.py: _kill), Mininet's network with it: no guest process may be left."""
    proc = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover.yaml"),
                             "--backend", "mininet", "--set", "clock=paced", "--out", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        if "association up" in line or time.monotonic() > deadline:
            break
    time.sleep(2.0)  # messages are flowing
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    run_dir = next(tmp_path.glob("failover-*/run-001"))
    assert json.loads((run_dir / "backend.json").read_text())["error"] == "interrupted"
    record = _mininet(run_dir)
    assert len(record["present_after_build"]["shells"]) == 2  # interrupted with the network up
    assert "teardown" not in record  # the guest did not outlive the interrupt to tear down itself
    time.sleep(0.5)
    assert not guests((_run_id(run_dir),), proc.pid)


def test_no_guest_is_left_on_the_host(failover: dict[str, Path], link_faults: Path) -> None:
    assert not guests(tuple(_run_id(d) for d in (*failover.values(), link_faults)))
