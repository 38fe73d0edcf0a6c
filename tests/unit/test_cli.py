"""The command line without a kernel: exit statuses, one-line errors, nothing built on bad input."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def sctpbench(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_bad_override_exits_2_with_one_line_and_builds_nothing(tmp_path: Path) -> None:
    r = sctpbench("run", str(ROOT / "examples/failover.yaml"), "--set", "sctp.rto_min=soon", "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "sctpbench: --set sctp.rto_min=soon: sctp.rto_min: 'soon' is not a duration; "
        "allowed: a number with a unit ns, us, ms, s or min (e.g. 200ms)"
    ]
    assert not (tmp_path / "out").exists()


def test_bad_file_exits_2(tmp_path: Path) -> None:
    r = sctpbench("run", str(ROOT / "tests/data/spec_errors/unknown-key.yaml"), "--out", str(tmp_path))
    assert r.returncode == 2 and "unknown-key.yaml:5: sctp.rto_mni: unknown key" in r.stderr
    r = sctpbench("run", str(tmp_path / "missing.yaml"))
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_plan_prints_the_commands_and_json() -> None:
    r = sctpbench("plan", "examples/failover.yaml", "--set", "sctp.rto_min=300ms")
    assert r.returncode == 0
    assert "net.sctp.rto_min=300" in r.stdout
    assert "tc -n sb-" in r.stdout and "matchall action drop" in r.stdout
    j = json.loads(sctpbench("plan", "examples/failover.yaml", "--json").stdout)
    assert j["sctp"]["rto_min_ms"] == 200 and len(j["associations"][0]["paths"]) == 2


def test_check_says_why_not() -> None:
    r = sctpbench("check")
    assert "host kernel SCTP" in r.stdout and "User-Mode Linux guest" in r.stdout
    assert "backend auto" in r.stdout or "no backend available" in r.stdout
