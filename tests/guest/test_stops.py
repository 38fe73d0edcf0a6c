"""Every stop of `sctpbench run` ends its guest and leaves a summary saying what happened:
SIGTERM (as Ctrl-C, exit 143), SIGKILL (the guest ends with its orchestrator, the guardian collects), a full results
file system (exit 1, "no space left on device")."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _processes(marker: str, kinds: tuple[bytes, ...] = (b"rootfstype=hostfs", b"sctpbench.backends.uml.guardian")) -> set[int]:
    """This test's guest (kernel, its helpers, the agents inside: all carry uml_dir=…, the
    guest's temporary folder) and guardian (--run FOLDER); by folder, as other runs may
    share the machine."""
    markers = [marker.encode(), *(str(d).encode() for d in map(_uml_dir_if_written, Path(marker).glob("*/run-*")) if d)]
    found = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if any(m in cmdline for m in markers) and any(k in cmdline for k in kinds):
                found.add(int(proc.name))
    return found


def _uml_dir(run_dir: Path) -> Path:
    """The guest's temporary folder, from the command line guest.json recorded."""
    words = json.loads((run_dir / "guest.json").read_text())["command_line"]
    return Path(next(w.removeprefix("uml_dir=") for w in words if w.startswith("uml_dir=")))


def _uml_dir_if_written(run_dir: Path) -> Path | None:
    try:
        return _uml_dir(run_dir)
    except (OSError, ValueError, StopIteration):  # not yet written, or being written
        return None


def _start(out: Path, clock: str, *sets: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover.yaml"), "--set", f"clock={clock}",
         *(word for item in sets for word in ("--set", item)),
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stderr
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        if "association up" in line or time.monotonic() > deadline:
            break
    time.sleep(1.0)  # messages are flowing
    assert _processes(str(out), (b"rootfstype=hostfs",)), "the guest should be running"
    return proc


def _wait_for(predicate, timeout_s: float) -> float:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    while not predicate():
        assert time.monotonic() - started < timeout_s
        time.sleep(0.005)
    return time.monotonic() - started


def test_sigterm_mid_run_stops_like_ctrl_c_and_says_terminated(tmp_path: Path) -> None:
    proc = _start(tmp_path, "paced")
    proc.send_signal(signal.SIGTERM)
    stdout, _ = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert not _processes(str(tmp_path))
    run_dir = next(tmp_path.glob("failover-*/run-001"))
    assert not _uml_dir(run_dir).exists()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["status"], summary["error"]) == ("failed", "terminated")
    assert summary["metrics"]["messages_sent"] > 0
    session = json.loads((run_dir.parent / "summary.json").read_text())
    assert session["error"] == "terminated" and session["interrupted"]
    assert "stopped: terminated" in stdout


def test_sigkill_mid_run_ends_the_guest_and_leaves_a_summary(tmp_path: Path) -> None:
    # The run is given a minute, so a guest that outlived its orchestrator would still be
    # running at the bound; the bound is far above the ~0.1 s the guest takes on an idle
    # machine, because on a shared one its exit waits for a CPU (a wall-clock time is
    # printed, not judged).
    proc = _start(tmp_path, "real", "workload.duration=60s")
    proc.kill()
    gone_s = _wait_for(lambda: not _processes(str(tmp_path), (b"rootfstype=hostfs",)), 15.0)
    print(f"guest gone {gone_s * 1000:.0f} ms after SIGKILL (wall clock)")
    run_dir = next(tmp_path.glob("failover-*/run-001"))
    _wait_for(lambda: (run_dir.parent / "summary.json").exists(), 15.0)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["status"], summary["error"]) == ("failed", "orchestrator killed")
    assert summary["metrics"]["messages_sent"] > 0  # collected by the guardian
    assert json.loads((run_dir / "backend.json").read_text())["error"] == "orchestrator killed"
    assert json.loads((run_dir.parent / "summary.json").read_text())["error"] == "orchestrator killed"
    _wait_for(lambda: not _processes(str(tmp_path)), 15.0)  # the guardian too, once it has collected
    assert not _uml_dir(run_dir).exists()
    proc.communicate()
    report = subprocess.run([sys.executable, "-m", "sctpbench.cli", "report", str(run_dir)],
                            capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr


def test_a_full_results_file_system_mid_run_is_a_clean_error(tmp_path: Path) -> None:
    out = tmp_path / "small"
    out.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2M", "tmpfs", str(out)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs (needs root)")
    try:
        proc = _start(out, "paced")
        # Fill it while the agents write their records. Unbuffered: a buffered file would
        # try to write its remainder again on close, and raise ENOSPC there.
        with open(out / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 65536)
            except OSError:
                pass
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 1
        assert "Traceback" not in stderr
        run_dir = next(out.glob("failover-*/run-001"))
        assert "Traceback" not in (run_dir / "console.log").read_text()
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["status"] == "failed" and "no space left on device" in summary["error"]
        assert summary["metrics"]["messages_sent"] > 0  # what was measured is kept
        assert "no space left on device" in json.loads((run_dir.parent / "summary.json").read_text())["error"]
        assert "stopped: no space left on device" in stdout
        assert not _processes(str(out))
    finally:
        subprocess.run(["umount", "-l", str(out)], capture_output=True)
