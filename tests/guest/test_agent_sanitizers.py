"""A real failover run in the guest with the agent's UBSan build and under valgrind's memcheck.

AddressSanitizer cannot start inside User-Mode Linux (its processes get a 39-bit address
space; ASan's x86_64 shadow needs 47 bits), so memory errors in the guest are valgrind's job.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
SHORT = ["--set", "workload.duration=4s", "--set", "events.0.at=2s"]


def _make(target: str) -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), target], check=True, capture_output=True, text=True)


def _run_with_agent(agent: Path, out: Path, extra: tuple[str, ...] = ()) -> dict:
    env = os.environ | {"SCTPBENCH_AGENT": str(agent)}
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover.yaml"), "--json", "--out", str(out), *SHORT,
         *extra],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert r.returncode == 0, r.stderr + r.stdout
    run = json.loads(r.stdout)["runs"][0]
    for name in ("client", "server"):
        stderr = (Path(run["directory"]) / "records" / f"main.{name}.stderr").read_text()
        assert "runtime error" not in stderr and "ERROR SUMMARY" not in stderr, stderr
    return run


def test_failover_run_is_clean_under_ubsan(tmp_path: Path) -> None:
    _make("sanitize")
    run = _run_with_agent(AGENT_DIR / "build/sctpbench-agent-sanitize", tmp_path)
    assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"] == 200
    assert run["metrics"]["detection_time_ms"] is not None


def _valgrind_wrapper() -> Path:
    # The wrapper must live on the host filesystem the guest sees (not /tmp: a tmpfs there).
    _make("all")
    wrapper = AGENT_DIR / "build" / "agent-under-valgrind"
    wrapper.write_text(
        "#!/bin/sh\n# Any memcheck error or definite leak makes the agent exit 99, and the run fail.\n"
        'case "$1" in --version) exec "$(dirname "$0")/sctpbench-agent" "$@";; esac\n'
        'exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect '
        '"$(dirname "$0")/sctpbench-agent" "$@"\n'
    )
    wrapper.chmod(0o755)
    return wrapper


def test_failover_run_is_clean_under_valgrind_memcheck(tmp_path: Path) -> None:
    run = _run_with_agent(_valgrind_wrapper(), tmp_path)
    assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"] == 200


def test_a_multipath_scheduler_is_clean_under_ubsan_and_valgrind(tmp_path: Path) -> None:
    """The scheduler's socket side (linux/sched.c and common/sched_run.c: a path query per peer address and a `sched`
    record per message, through a failure of one path) runs only where kernel SCTP is."""
    _make("sanitize")
    for agent, scheduler in ((AGENT_DIR / "build/sctpbench-agent-sanitize", "stream-aware"), (_valgrind_wrapper(), "round-robin")):
        run = _run_with_agent(agent, tmp_path / scheduler, ("--set", f"workload.scheduler={scheduler}"))
        assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"] == 200
        sched = [line for line in (Path(run["directory"]) / "records/main.client.rec").read_text().splitlines()
                 if line.startswith("sched\t")]
        assert len(sched) == 200 and all(line.split("\t")[6] == scheduler for line in sched)
