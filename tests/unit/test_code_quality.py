"""The code stays linted and typed: ruff (pyproject's [tool.ruff]) and mypy ([tool.mypy])
run on every test run, so a change that breaks either fails here, with their own output."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_ruff_is_clean() -> None:
    r = _run("ruff", "check", "sctpbench", "tests", "bench")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_is_clean() -> None:
    r = _run("mypy")
    assert r.returncode == 0, r.stdout + r.stderr
