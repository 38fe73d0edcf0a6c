"""The code stays linted and typed: ruff (pyproject's [tool.ruff]) and mypy ([tool.mypy])
run on every test run, so a change that breaks either fails here, with their own output."""

import os
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
    # The user's cache, not the checkout's: a fresh clone (CI's) would check every module and
    # the libraries' stubs cold, 73 CPU-s on the build machine, against 1.7 from a cache that
    # another clone and environment filled. mypy trusts a cached module only while its
    # content hash matches, so a changed file is checked again wherever the cache came from.
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sctpbench" / "mypy"
    r = _run("mypy", "--cache-dir", str(cache))
    assert r.returncode == 0, r.stdout + r.stderr
