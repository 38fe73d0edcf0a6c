"""What `sctpbench run` prints: the README's sample is what the current code prints for a
stored run (tests/data/run-summaries/failover-session.json, `run --json` of
examples/failover.yaml on the guest, virtual clock), numbers aside; no line is longer than
160 characters; a paper's model only when the experiment asks for it (measure.models)."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from sctpbench.analysis import store
from sctpbench.outputs import summary_text

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "tests/data/run-summaries/failover-session.json"
HOT_SWAP_RUN = ROOT / "tests/data/fixtures/paper45-hot-swap-run"
COMMAND = "$ sctpbench run examples/failover.yaml"
# Papers IV/V's model as summary.json holds it (the figures of a high-load failover).
STARTUP_MODEL = {
    "scenario": "failover", "path": "secondary", "messages": 500, "window_s": 2.0, "initial_cwnd_bytes": 6000.0,
    "switch_ms": 800.0, "mtt_mean_ms": 563.9, "mmtt_ms": 1010.2, "slow_start_mtt_mean_ms": 563.9,
    "slow_start_mmtt_ms": 1010.2, "ideal_mtt_mean_ms": 325.4, "ideal_mmtt_ms": 851.0, "penalty_mean": 0.733,
    "penalty_max": 0.187, "idle_ssthresh_mtt_mean_ms": 590.1, "idle_ssthresh_mmtt_ms": 1032.4,
}


def _numbers_aside(text: str) -> str:
    return re.sub(r"\d+(?:\.\d+)?", "#", text)


def _session() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(SESSION.read_text())
    return document


def _sample(page: Path) -> list[str]:
    """The lines under the command in the page's sample block."""
    text = page.read_text()
    start = text.index(COMMAND + "\n") + len(COMMAND) + 1
    return text[start:text.index("```", start)].splitlines()


@pytest.mark.parametrize("page", ["README.md", "docs/index.md", "docs/results.md"])
def test_the_sample_output_is_what_run_prints(page: str) -> None:
    printed = summary_text.summary_lines(_session())
    assert [_numbers_aside(line) for line in _sample(ROOT / page)] == [_numbers_aside(line) for line in printed]


def test_a_failover_prints_headlines_and_no_model_it_did_not_ask_for() -> None:
    printed = summary_text.summary_lines(_session())
    labels = [line.split()[0] for line in printed[1:]]
    assert labels == ["messages", "MTT", "failure", "failover", "timing", "event", "results:"]
    assert "RFC timer model 1400 ms" in printed[3]  # the timer model stays beside the detection
    assert max(len(line) for line in printed) <= summary_text.LINE_MAX


def test_the_startup_model_asked_for_is_printed_in_lines_of_at_most_160() -> None:
    document = _session()
    document["runs"][0]["startup_model"] = STARTUP_MODEL
    printed = summary_text.summary_lines(document)
    start = next(i for i, line in enumerate(printed) if line.startswith("  startup "))
    block = printed[start:start + 4]
    assert all(len(line) <= summary_text.LINE_MAX for line in printed)
    assert block[0].startswith("  startup   failover to secondary, 500 messages from the cause to +2 s (virtual clock)")
    assert block[1].startswith(summary_text.CONTINUATION + "startup model (Papers IV/V, cwnd 6000 B")
    assert "(+73 %)" in "".join(block) and "idle ssthresh" in "".join(block)


def test_a_long_line_breaks_after_its_clauses_under_the_values() -> None:
    clause = "primary MTT p10 10.00 ms (configured 10.021, allowed 9–15.021)"
    line = "  timing    " + "; ".join([clause] * 6)
    lines = summary_text.wrapped(line)
    assert len(lines) > 1 and all(len(x) <= summary_text.LINE_MAX for x in lines)
    assert all(x.endswith(";") for x in lines[:-1]) and all(x.startswith(summary_text.CONTINUATION + "primary") for x in lines[1:])
    assert " ".join(x.strip() for x in lines) == line.strip()  # nothing lost
    # One clause longer than a line breaks at a space.
    words = summary_text.wrapped("  note      " + "word " * 60)
    assert all(len(x) <= summary_text.LINE_MAX for x in words) and len(words) > 1 and words[1].startswith(summary_text.CONTINUATION + "word")


def test_the_startup_model_is_collected_only_when_asked(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(HOT_SWAP_RUN, run)
    (run / "captures").mkdir()
    plan = json.loads((run / "plan.json").read_text())
    assert plan["models"] == ["startup"]  # reproductions/000-paper45-startup asks for it (measure.models)
    (run / "plan.json").write_text(json.dumps({k: v for k, v in copy.deepcopy(plan).items() if k != "models"}))
    summary = store.collect(run)
    assert summary["startup_model"] is None
    assert all(summary["metrics"][k] is None for k in summary["metrics"] if k.startswith("startup_"))
    assert summary["metrics"]["path_switches"] == 1  # the rest of the run is collected as before
