"""The timing self-check in the guest: a guest stopped for a second in the middle of a run
makes a real-clock run `disturbed`, deterministically, and leaves a virtual-time run `ok`
and exactly as it would have been.

Stopping the guest (SIGSTOP to its kernel process) is what a busy host does to it, only
longer and at a known moment: on the real clock the guest's time runs on meanwhile, so
every message due in that second goes out late; on virtual time the guest's clock stops
with it. A quiet run is checked on virtual time only: on the real clock, whether a run on
a shared 2-core machine is quiet is exactly what cannot be promised.
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

from sctpbench.analysis import selfcheck
from sctpbench.backends.uml import guests as uml_guests
from sctpbench.collectors import records
from sctpbench.model import spec
from sctpbench.plan import build as planning

ROOT = Path(__file__).resolve().parents[2]
STOP_S = 1.0
TIME_TRAVEL_NOISE_NS = 10_000

EXPERIMENT = f"""\
name: selfcheck
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{rto_initial: 200ms, rto_min: 200ms, rto_max: 800ms, path_max_retrans: 2, sack_delay: 10ms, nodelay: true}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 4s}}
events:
  - {{at: 3500ms, primary: secondary}}
"""


def _experiment(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "selfcheck.yaml"
    path.write_text(EXPERIMENT)
    return path


def _start(path: Path, out: Path, clock: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "run", str(path), "--json", "--out", str(out),
                             "--set", f"clock={clock}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen[str]) -> tuple[dict[str, Any], str]:
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr  # a disturbed run exits 0, with a warning
    return json.loads(stdout), stderr


def _guest_kernels(run_id: str) -> set[int]:
    """The guest's kernel process: the one of the run's guest processes that leads its process group.

    Only the kernel is stopped: its user processes are ptrace children that wait for it
    anyway, and a SIGCONT sent to them directly is taken for a fault and kills them.
    """
    kernels = set()
    for pid in uml_guests.pids(run_id):
        try:
            if os.getpgid(pid) == pid:
                kernels.add(pid)
        except ProcessLookupError:
            continue
    return kernels


def _wait_for_start(out: Path, deadline_s: float = 120.0) -> Path:
    """The run folder once the client took `start` (its records say so)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        for rec in out.glob("*/run-001/records/main.client.rec"):
            if "\tstart\t" in rec.read_text():
                return rec.parent.parent
        time.sleep(0.05)
    raise AssertionError("the client never started")


def _mtts(run: dict[str, Any]) -> list[int]:
    client = records.read(Path(run["directory"]) / "records" / "main.client.rec")
    server = records.read(Path(run["directory"]) / "records" / "main.server.rec")
    sent = {tx.seq: tx.t_gen_ns for tx in client.tx}
    return [rx.t_rx_ns - sent[rx.seq] for rx in server.rx]


def test_a_quiet_virtual_time_run_is_ok_with_no_lateness(tmp_path: Path) -> None:
    doc, _ = _finish(_start(_experiment(tmp_path), tmp_path, "virtual"))
    run = doc["runs"][0]
    check = run["selfcheck"]
    assert run["status"] == "ok", check["reasons"]
    assert check["lateness"]["max_ms"] < 1.0 and check["event_lag"]["max_ms"] < 1.0
    assert check["lateness"]["n"] == run["metrics"]["messages_sent"] == 200
    assert check["event_lag"]["n"] == 1 and check["delay"][0]["path"] == "primary"
    # The agent's T_SCHED is the periodic schedule from T0, exactly.
    client = records.read(Path(run["directory"]) / "records" / "main.client.rec")
    t0 = next(int(args) for _, name, args in client.events if name == "start")
    assert [tx.t_sched_ns for tx in client.tx] == [selfcheck.periodic_schedule(tx.seq, t0, 50.0) for tx in client.tx]
    print(f"quiet run: {json.dumps({k: check[k] for k in ('lateness', 'event_lag', 'delay')})}")


def _stopped_run(tmp_path: Path, clock: str) -> tuple[dict[str, Any], str]:
    path = _experiment(tmp_path)
    run_id = planning.build(spec.load(path, [f"clock={clock}"]), 1, "agent").run_id
    proc = _start(path, tmp_path, clock)
    kernels: set[int] = set()
    try:
        _wait_for_start(tmp_path)
        # Into the workload, before the event at 3.5 s; virtual time runs ahead of the
        # wall clock, so there the guest is stopped as soon as the client started.
        time.sleep(1.0 if clock == "real" else 0.0)
        kernels = _guest_kernels(run_id)
        assert kernels, "no guest kernel process found"
        for pid in kernels:
            os.kill(pid, signal.SIGSTOP)
        time.sleep(STOP_S)
    finally:
        for pid in kernels:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    return _finish(proc)


def test_a_guest_stopped_for_a_second_makes_a_real_clock_run_disturbed(tmp_path: Path) -> None:
    doc, stderr = _stopped_run(tmp_path, "real")
    run = doc["runs"][0]
    reasons = run["selfcheck"]["reasons"]
    assert run["status"] == "disturbed", run["selfcheck"]
    assert {r["check"] for r in reasons} & {"lateness_p99", "lateness_max", "event_lag"}
    late = next(r for r in reasons if r["check"] == "lateness_max")
    assert late["measured_ms"] > 500 and late["tolerance_ms"] == 50
    assert doc["disturbed"] == ["run-001"] and doc["summary"]["mtt_p50_ms"]["n"] == 0
    assert "1 of 1 run(s) disturbed" in stderr
    assert json.loads((Path(run["directory"]) / "summary.json").read_text())["status"] == "disturbed"


def test_a_guest_stopped_for_a_second_leaves_a_virtual_time_run_as_it_was(tmp_path: Path) -> None:
    doc, _ = _stopped_run(tmp_path / "stopped", "virtual")
    quiet, _ = _finish(_start(_experiment(tmp_path), tmp_path / "quiet", "virtual"))
    stopped, undisturbed = doc["runs"][0], quiet["runs"][0]
    assert stopped["status"] == "ok", stopped["selfcheck"]["reasons"]
    # Not bit for bit: UML charges 256 ns of virtual time per clock read in process context
    # (so that busy-wait loops end), and how often the guest reads its clock depends a little
    # on when the host's I/O completes. Two quiet runs differ by ~1 µs per message.
    pairs = list(zip(_mtts(stopped), _mtts(undisturbed), strict=True))
    assert max(abs(a - b) for a, b in pairs) < TIME_TRAVEL_NOISE_NS
    for key in ("mtt_p50_ms", "mtt_p99_ms", "mmtt_ms"):
        assert abs(stopped["metrics"][key] - undisturbed["metrics"][key]) < TIME_TRAVEL_NOISE_NS / 1e6, key
