"""The agent's `--arrival schedule --schedule FILE` on the host: a bad file is a usage error
(exit 2) naming FILE:LINE, before any socket; a good one gets as far as the socket. The
schedule replayed in real runs is tests/guest/test_agent_schedule.py's.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.schedule import AGENT, build_agent, schedule, write


def _client(schedule: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(AGENT), "client", "--local", "127.0.0.1", "--peer", "127.0.0.1", "--port", "5000",
         "--records", os.devnull, "--arrival", "schedule", "--schedule", str(schedule), "--duration", "1000", *extra],
        capture_output=True, text=True, timeout=60,
    )


@pytest.fixture(scope="module")
def built() -> None:
    build_agent()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("0 100 0 - 0\n5 100 0 x 0\n", ":2: bad FLAGS"),
        ("# c\n\n0 15 0 - 0\n", ":3: bad SIZE"),
        ("0 100 0 - 0\n0 100 65536 - 0\n", ":2: bad STREAM"),
        ("10 100 0 - 0\n9 100 0 - 0\n", ":2: OFFSET_NS below the previous"),
        ("0 100 0 -\n", ":1: fewer than 5 fields"),
        ("0 100 0 - -1\n", ":1: bad LIFETIME_MS"),
    ],
)
def test_a_bad_schedule_line_is_a_usage_error_naming_the_line(built: None, tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    r = _client(path)
    assert r.returncode == 2, r.stderr
    assert f"{path}{where}" in r.stderr


def test_a_good_schedule_gets_past_the_command_line(built: None, tmp_path: Path) -> None:
    # The host has no SCTP: a valid file gets as far as socket() (exit 1, not 2), and
    # --size/--rate/--seed are neither needed nor refused.
    path = tmp_path / "good.txt"
    write(schedule(), path)
    for extra in ((), ("--size", "100", "--rate", "5", "--seed", "1", "--send-streams", "1", "--unordered")):
        r = _client(path, *extra)
        assert r.returncode == 1 and "socket(IPPROTO_SCTP)" in r.stderr, r.stderr
