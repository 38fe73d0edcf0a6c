"""Nothing is left behind: an interrupted run ends its guest and keeps what was measured."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from guest_processes import guests

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.guest


def _uml_dirs() -> set[str]:
    return {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("sctpbench-uml-")}


def test_ctrl_c_mid_run_tears_everything_down_and_keeps_the_records(tmp_path: Path) -> None:
    guests_before, dirs_before = guests(), _uml_dirs()
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
    assert guests() <= guests_before
    assert _uml_dirs() <= dirs_before
    run_dir = next(tmp_path.glob("failover-*/run-001"))
    backend = json.loads((run_dir / "backend.json").read_text())
    assert backend["ok"] is False and backend["error"] == "interrupted"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["messages_sent"] > 0  # what was measured is kept
    assert "interrupted" in stdout
