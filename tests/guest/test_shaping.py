"""Shaping changes on the timeline, through the emulator, seen in the messages' MTT."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
S, MS = 1_000_000_000, 1_000_000


def _run(example: str, out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples" / example), "--json", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)["runs"][0]
    return run, pq.read_table(Path(run["directory"]) / "messages.parquet").to_pylist()


def test_delay_trace_steps_show_in_mtt_within_15_ms_of_schedule(tmp_path: Path) -> None:
    run, messages = _run("delay-step.yaml", tmp_path)
    assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"]
    messages.sort(key=lambda m: m["t_rel_ns"])
    for at, before_ms, after_ms in ((2 * S, 20, 80), (4 * S, 80, 40), (6 * S, 40, 20)):
        # the first message generated after the step whose MTT is nearer the new delay than the old
        first = next(m for m in messages if m["t_rel_ns"] >= at - 50 * MS
                     and abs(m["mtt_ns"] / MS - after_ms) < abs(m["mtt_ns"] / MS - before_ms))
        assert at <= first["t_rel_ns"] <= at + 15 * MS, (at, first["t_rel_ns"])
        settled = [m["mtt_ns"] / MS for m in messages if at + 100 * MS <= m["t_rel_ns"] < at + 1900 * MS]
        assert abs(sorted(settled)[len(settled) // 2] - after_ms) <= 1.0


def test_link_down_moves_traffic_and_up_brings_it_back(tmp_path: Path) -> None:
    run, messages = _run("link-faults.yaml", tmp_path)
    assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"] == 550
    def paths(lo: float, hi: float) -> set[str]:
        return {m["path"] for m in messages if lo * S <= m["t_rel_ns"] < hi * S}
    # messages still unacknowledged when the link goes down (one round trip, 40 ms, before it)
    # are retransmitted on the secondary
    assert paths(0, 3.9) == {"primary"}
    assert paths(5, 6) == {"secondary"}
    assert paths(7.5, 8) == {"primary"}
    # the failure the metrics see is the primary going down, not the secondary's flap
    assert run["metrics"]["failover_time_ms"] is not None and run["metrics"]["failover_time_ms"] > 100
