"""The agent's --clock: which clock every timestamp comes from, named in the records' header.

Agents on two machines (the ansible backend) cannot subtract each other's CLOCK_MONOTONIC;
with `--clock realtime` both stamp CLOCK_REALTIME. Runs on the host: the header is written
before the first SCTP call, which fails here (no SCTP), so no guest is needed.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"


@pytest.fixture(scope="module")
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)


def _server(records: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENT), "server", "--local", "127.0.0.1", "--port", "5000", "--records", str(records), *extra],
                          capture_output=True, text=True, timeout=30)


def _header_and_first_time(records: Path) -> tuple[str, int]:
    lines = records.read_text().splitlines()
    stamped = next(line for line in lines[1:] if line.split("\t")[1].isdigit())
    return lines[0], int(stamped.split("\t")[1])


@pytest.mark.parametrize(("option", "header"), [((), "CLOCK_MONOTONIC"), (("--clock", "monotonic"), "CLOCK_MONOTONIC"),
                                                (("--clock", "realtime"), "CLOCK_REALTIME")])
def test_the_header_names_the_clock_in_force(built: None, tmp_path: Path, option: tuple[str, ...], header: str) -> None:
    _server(tmp_path / "r.rec", *option)
    assert (tmp_path / "r.rec").read_text().splitlines()[0] == f"#sctpbench-records\tv1\tclock={header}\tunit=ns"


def test_realtime_stamps_are_the_time_of_day(built: None, tmp_path: Path) -> None:
    before = time.time_ns()
    _server(tmp_path / "r.rec", "--clock", "realtime")
    _, stamp = _header_and_first_time(tmp_path / "r.rec")
    assert before <= stamp <= time.time_ns()


def test_an_unknown_clock_is_a_usage_error(built: None, tmp_path: Path) -> None:
    r = _server(tmp_path / "r.rec", "--clock", "tai")
    assert r.returncode == 2 and "bad --clock 'tai' (monotonic or realtime)" in r.stderr
