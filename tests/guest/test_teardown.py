"""Nothing is left behind: an interrupted run ends its guest and keeps what was measured."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from sctpbench.model import spec
from sctpbench.plan import build as planning
from tests.support.guest_processes import guests

ROOT = Path(__file__).resolve().parents[2]


def _this_runs_guests(pid: int) -> set[int]:
    """Guests of this test's run only (its run id, booted by its pid): other guests, even of
    the same experiment, may run beside the test."""
    run_id = planning.build(spec.load(ROOT / "examples/failover.yaml", ["clock=paced"]), 1, "agent").run_id
    return guests((run_id,), pid)


def test_ctrl_c_mid_run_tears_everything_down_and_keeps_the_records(tmp_path: Path) -> None:
    # Paced: a virtual run can end before the interrupt; this also stops the calendar mid-run.
    proc = subprocess.Popen(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover.yaml"), "--set", "clock=paced",
         "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stderr
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        if "association up" in line or time.monotonic() > deadline:
            break
    time.sleep(2.0)  # messages are flowing
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    time.sleep(0.5)
    assert not _this_runs_guests(proc.pid)
    run_dir = next(tmp_path.glob("failover-*/run-001"))
    uml_dir = next(w.removeprefix("uml_dir=") for w in json.loads((run_dir / "guest.json").read_text())["command_line"]
                   if w.startswith("uml_dir="))
    assert not Path(uml_dir).exists()
    backend = json.loads((run_dir / "backend.json").read_text())
    assert backend["ok"] is False and backend["error"] == "interrupted"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["messages_sent"] > 0  # what was measured is kept
    assert "interrupted" in stdout
