"""A Ctrl-C that lands before the guest starts (while the run folder is being written)
leaves a summary saying "interrupted" and nothing else: a campaign resumed after it sets
the attempt aside as interrupted, not as a collector's complaint about a missing plan."""

import json
from pathlib import Path
from typing import Any

import pytest

from sctpbench.model import loading
from sctpbench.orchestration import runner

ROOT = Path(__file__).resolve().parents[2]


def _interrupt_after(original: Any) -> Any:
    def mark(*args: Any, **kwargs: Any) -> Any:
        original(*args, **kwargs)
        raise KeyboardInterrupt  # format.json written, plan.json not yet

    return mark


def test_ctrl_c_before_the_plan_is_written_says_interrupted_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner.version, "mark", _interrupt_after(runner.version.mark))
    run_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        runner.run_in(loading.load(ROOT / "examples/failover.yaml"), 1, run_dir, "uml", Path("agent"), lambda s: None)
    assert not (run_dir / "plan.json").exists()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["status"], summary["error"]) == ("failed", "interrupted")


def test_ctrl_c_once_the_guest_runs_keeps_what_was_collected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    backend = runner.registry.get("uml")
    monkeypatch.setattr(type(backend), "run_plan", interrupted)
    run_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        runner.run_in(loading.load(ROOT / "examples/failover.yaml"), 1, run_dir, "uml", Path("agent"), lambda s: None)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["status"], summary["error"]) == ("failed", "interrupted")
    assert json.loads((run_dir / "plan.json").read_text())["run_id"] == summary["run_id"]
