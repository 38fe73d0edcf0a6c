"""The golden experiments give the run id and metrics recorded for them, on the same kernel:
a change made for speed (or anything else) that moves a result fails here
(tests/support/golden.py says how to record them again on purpose)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import golden


@pytest.mark.parametrize("name", golden.EXPERIMENTS)
def test_the_golden_experiment_gives_its_recorded_results(name: str, tmp_path: Path) -> None:
    recorded = json.loads((golden.GOLDEN / f"{name}.json").read_text())
    now = golden.record_of(golden.run(name, tmp_path))
    if now["kernel"] != recorded["kernel"]:
        pytest.skip(f"recorded on {recorded['kernel']}, this guest runs {now['kernel']}: not comparable; "
                    "record again with `python -m tests.support.golden`")
    assert golden.differences(recorded, now) == []


def test_a_moved_figure_is_a_difference() -> None:
    """The comparison itself: a timer-driven figure a tick off, or another run id, is caught."""
    recorded = json.loads((golden.GOLDEN / "failover.json").read_text())
    moved = json.loads(json.dumps(recorded))
    moved["metrics"]["detection_time_ms"] += 1.0
    moved["run_id"] = "000000000000"
    assert len(golden.differences(recorded, moved)) == 2
    nudged = json.loads(json.dumps(recorded))
    nudged["metrics"]["detection_time_ms"] += 0.0005
    assert golden.differences(recorded, nudged) == []
