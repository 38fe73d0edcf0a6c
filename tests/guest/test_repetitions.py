"""Repetitions on virtual time: without random elements a run repeats itself, so
repetitions vary only where the experiment asks (`vary:`), and the same seed gives the
same results again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# UML charges 256 ns of virtual time per clock read in process context, and how many reads
# a run makes depends a little on the host's I/O: repeated runs agree to about a microsecond.
NOISE_MS = 0.01
COMPARED = ("mtt_p50_ms", "mtt_p99_ms", "mmtt_ms", "detection_time_ms", "failover_time_ms", "messages_affected")


def _runs(out: Path, *overrides: str) -> list[dict[str, Any]]:
    argv = [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples" / "failover.yaml"), "--json",
            "--out", str(out), "--set", "clock=virtual", "--set", "workload.duration=7s"]
    for o in overrides:
        argv += ["--set", o]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return list(json.loads(r.stdout)["runs"])


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(abs(a["metrics"][k] - b["metrics"][k]) <= NOISE_MS for k in COMPARED)


def test_repetitions_vary_by_their_seeded_draws_and_repeat_with_the_same_seed(tmp_path: Path) -> None:
    first = _runs(tmp_path / "first", "repeat=2", "vary.event_phase=20ms")
    again = _runs(tmp_path / "again", "repeat=2", "vary.event_phase=20ms")
    assert [r["status"] for r in first + again] == ["ok"] * 4
    # Another phase of the failure against the 20 ms message schedule: another failover.
    assert abs(first[0]["metrics"]["failover_time_ms"] - first[1]["metrics"]["failover_time_ms"]) > 1.0
    assert _same(first[0], again[0]) and _same(first[1], again[1])


def test_without_vary_repetitions_repeat_each_other(tmp_path: Path) -> None:
    runs = _runs(tmp_path, "repeat=2")
    assert _same(runs[0], runs[1])
