"""The agent's multipath schedulers (common/sched.c): the C unit checks against scripted path
states, built under ASan + UBSan on the host (no kernel SCTP needed), and the agent's
command line refusing what it cannot honour."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"


def test_scheduler_choices_on_scripted_paths() -> None:
    build = subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "build/sched-unit"], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    r = subprocess.run([str(AGENT_DIR / "build/sched-unit")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "sched-unit: ok" in r.stdout
    assert "FAIL" not in r.stderr and "AddressSanitizer" not in r.stderr and "runtime error" not in r.stderr


def _client(*extra: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    build = subprocess.run(["make", "-s", "-C", str(AGENT_DIR)], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    return subprocess.run(
        [str(AGENT_DIR / "build/sctpbench-agent"), "client", "--local", "127.0.0.1", "--peer", "127.0.0.2,127.0.0.3",
         "--port", "5000", "--records", str(tmp / "c.rec"), "--size", "200", "--rate", "10", "--arrival", "periodic",
         "--seed", "1", "--duration", "100", *extra],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_scheduler_option_refusals(tmp_path: Path) -> None:
    bad = _client("--scheduler", "fastest", tmp=tmp_path)
    assert bad.returncode == 2 and "bad --scheduler 'fastest': unknown scheduler" in bad.stderr
    both = _client("--scheduler", "round-robin", "--policy", "delay-centric", tmp=tmp_path)
    assert both.returncode == 2 and "goes with --policy static only" in both.stderr
    key = _client("--scheduler", "round-robin:margin=3", tmp=tmp_path)
    assert key.returncode == 2 and "unknown parameter 'margin'" in key.stderr


def test_scheduler_in_meta(tmp_path: Path) -> None:
    """The host has no kernel SCTP: the client fails at socket(), after its meta records."""
    r = _client("--scheduler", "stream-aware:margin=2", tmp=tmp_path)
    assert r.returncode == 1
    meta = [line.split("\t") for line in (tmp_path / "c.rec").read_text().splitlines() if line.startswith("meta\t")]
    assert ["meta", "scheduler", "stream-aware:margin=2"] in meta
