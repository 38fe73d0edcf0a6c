"""A results folder that cannot take a run is a one-line error (exit 2) before anything is built."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover.yaml"),
                           "--out", str(out)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name, expected", [
    ("a-file", "not a folder"),
    ("a-file/below", "cannot create the results folder: Not a directory"),
])
def test_out_naming_a_file(tmp_path: Path, name: str, expected: str) -> None:
    (tmp_path / "a-file").write_text("x")
    r = _run(tmp_path / name)
    assert r.returncode == 2
    assert r.stderr.strip() == f"sctpbench: --out {tmp_path / name}: {expected}"


def test_out_where_nothing_can_be_created() -> None:
    r = _run(Path("/proc/sctpbench-results"))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "cannot create the results folder" in r.stderr


def test_read_only_results_folder(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)], capture_output=True).returncode:
        pytest.skip("cannot mount a read-only tmpfs (needs root)")
    try:
        for out in (ro, ro / "results"):
            r = _run(out)
            assert r.returncode == 2
            assert r.stderr.count("\n") == 1 and "Read-only file system" in r.stderr, r.stderr
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)
