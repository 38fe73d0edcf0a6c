"""Paced time in the guest: the virtual clock's results, no faster than the wall clock.

One short failover (4 s of traffic, the primary fails at 1.5 s) runs once on each clock.
The guest works in zero virtual time on both; the calendar only holds it back, so every
message's MTT and the detection time must be the same, to the nanosecond.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.guest
SHORT = ["--set", "workload.duration=4s", "--set", "events.0.at=1.5s"]
LENGTH_S = 4.0


def run(clock: str, out: Path) -> dict[str, Any]:
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover.yaml"), *SHORT,
         "--set", f"clock={clock}", "--json", "--out", str(out / clock)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)["runs"][0]
    result["dir"] = Path(result["directory"])
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = tmp_path_factory.mktemp("results")
    return {clock: run(clock, out) for clock in ("virtual", "paced")}


def mtts(result: dict[str, Any]) -> list[tuple[int, int | None]]:
    rows = pq.read_table(result["dir"] / "messages.parquet").to_pylist()
    return sorted((m["seq"], m["mtt_ns"]) for m in rows)


def test_every_message_has_the_same_mtt_on_paced_and_virtual_time(runs: dict[str, dict[str, Any]]) -> None:
    virtual, paced = mtts(runs["virtual"]), mtts(runs["paced"])
    assert len(virtual) == 200 and all(mtt is not None for _, mtt in virtual)
    assert paced == virtual


def test_detection_time_is_the_same(runs: dict[str, dict[str, Any]]) -> None:
    detection = {clock: r["metrics"]["detection_time_ms"] for clock, r in runs.items()}
    assert detection["virtual"] is not None and detection["paced"] == detection["virtual"]
    assert runs["paced"]["metrics"] == runs["virtual"]["metrics"]


def test_paced_run_takes_at_least_the_experiment_length_and_records_its_calendar(
        runs: dict[str, dict[str, Any]]) -> None:
    guest = json.loads((runs["paced"]["dir"] / "guest.json").read_text())
    assert guest["clock"] == "paced" and "calendar" in guest["scheduler"]
    assert any(word.startswith("time-travel=ext:") for word in guest["command_line"])
    calendar = guest["calendar"]
    assert calendar["error"] == "" and calendar["grants"] > 0 and calendar["held"] > 0
    assert calendar["wall_ns"] >= calendar["virtual_ns"] >= LENGTH_S * 1e9  # never ahead of the wall clock
    assert guest["wall_s"] >= LENGTH_S
    virtual = json.loads((runs["virtual"]["dir"] / "guest.json").read_text())
    assert virtual["clock"] == "virtual" and "calendar" not in virtual
