"""The timing self-check in the guest, on the real clock: a quiet run is `ok`, and a run
whose guest is stopped for a second in the middle is `disturbed`, deterministically.

Stopping the guest (SIGSTOP to its kernel process) is what a busy host does to it, only
longer and at a known moment: on the real clock the guest's time runs on meanwhile, so
every message due in that second goes out late.
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

from sctpbench.collectors import records
from sctpbench.testbed import plan as planning
from sctpbench.testbed import selfcheck, spec

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.guest
STOP_S = 1.0

EXPERIMENT = f"""\
name: selfcheck
clock: real
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{rto_initial: 200ms, rto_min: 200ms, rto_max: 800ms, path_max_retrans: 2, sack_delay: 10ms, nodelay: true}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 4s}}
events:
  - {{at: 3500ms, primary: secondary}}
"""


def _experiment(tmp_path: Path) -> Path:
    path = tmp_path / "selfcheck.yaml"
    path.write_text(EXPERIMENT)
    return path


def _start(path: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "run", str(path), "--json", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen[str]) -> tuple[dict[str, Any], str]:
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr  # a disturbed run exits 0, with a warning
    return json.loads(stdout), stderr


def _guest_kernels(umid_prefix: str) -> set[int]:
    """The guest's kernel process: the one with our umid that leads its process group.

    Only the kernel is stopped: its user processes are ptrace children that wait for it
    anyway, and a SIGCONT sent to them directly is taken for a fault and kills them.
    """
    kernels = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            pid = int(proc.name)
            if any(a.startswith(umid_prefix.encode()) for a in argv) and os.getpgid(pid) == pid:
                kernels.add(pid)
        except (OSError, ProcessLookupError):
            continue
    return kernels


def _wait_for_start(out: Path, deadline_s: float = 120.0) -> Path:
    """The run folder once the client took `start` (its records say so)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        for rec in out.glob("*/run-001/records/client.rec"):
            if "\tstart\t" in rec.read_text():
                return rec.parent.parent
        time.sleep(0.05)
    raise AssertionError("the client never started")


def test_a_quiet_real_clock_run_is_ok_and_records_its_margins(tmp_path: Path) -> None:
    doc, _ = _finish(_start(_experiment(tmp_path), tmp_path))
    run = doc["runs"][0]
    check = run["selfcheck"]
    assert run["status"] == "ok", check["reasons"]
    assert check["lateness"]["n"] == run["metrics"]["messages_sent"] == 200
    assert check["event_lag"]["n"] == 1 and check["delay"][0]["path"] == "primary"
    # The agent's T_SCHED is the periodic schedule from T0, exactly.
    client = records.read(Path(run["directory"]) / "records" / "client.rec")
    t0 = next(int(args) for _, name, args in client.events if name == "start")
    assert [tx.t_sched_ns for tx in client.tx] == [selfcheck.periodic_schedule(tx.seq, t0, 50.0) for tx in client.tx]
    print(f"quiet run: {json.dumps({k: check[k] for k in ('lateness', 'event_lag', 'delay')})}")


def test_a_guest_stopped_for_a_second_makes_the_run_disturbed(tmp_path: Path) -> None:
    path = _experiment(tmp_path)
    run_id = planning.build(spec.load(path), 1, "agent").run_id
    proc = _start(path, tmp_path)
    kernels: set[int] = set()
    try:
        _wait_for_start(tmp_path)
        time.sleep(1.0)  # into the workload, before the event at 3.5 s
        kernels = _guest_kernels(f"umid=sb-{run_id[:8]}-")
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
    doc, stderr = _finish(proc)
    run = doc["runs"][0]
    reasons = run["selfcheck"]["reasons"]
    assert run["status"] == "disturbed", run["selfcheck"]
    assert {r["check"] for r in reasons} & {"lateness_p99", "lateness_max", "event_lag"}
    late = next(r for r in reasons if r["check"] == "lateness_max")
    assert late["measured_ms"] > 500 and late["tolerance_ms"] == 250
    assert doc["disturbed"] == ["run-001"] and doc["summary"]["mtt_p50_ms"]["n"] == 0
    assert "1 of 1 run(s) disturbed" in stderr
    assert json.loads((Path(run["directory"]) / "summary.json").read_text())["status"] == "disturbed"
