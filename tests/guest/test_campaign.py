"""Campaigns in the guest: an interrupted campaign resumes with only its missing runs and
leaves no guest behind; compared with itself it has no regression; a slower RTO.min in
one configuration is reported as exactly that configuration's regression."""

import json
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from sctpbench.campaign import expand, spec, table
from tests.support.guest_processes import guests

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests/data/campaigns/tiny.yaml"


def _guests() -> set[int]:
    """This campaign's guests (by run key, whichever worker booted them): other guests may run beside the test."""
    return guests(tuple(r.run_key for r in expand.runs(spec.load(TINY))))


def _campaign(*args: str) -> list[str]:
    return [sys.executable, "-m", "sctpbench.cli", "campaign", *args]


def _ok_runs(folder: Path) -> dict[str, float]:
    """run key → mtime of its summary.json, for the runs that finished ok."""
    out = {}
    for run_dir in (folder / "runs").glob("*"):
        summary = table.run_summary(run_dir)
        if summary and summary["status"] == "ok":
            out[run_dir.name] = (run_dir / "summary.json").stat().st_mtime
    return out


def _log(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The tiny campaign, interrupted with SIGINT once two runs are done, then resumed."""
    out = tmp_path_factory.mktemp("campaign")
    folder = out / "tiny"
    proc = subprocess.Popen(_campaign("run", str(TINY), "--out", str(out), "--parallel", "2"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while len(_ok_runs(folder)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    while not _guests() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # the next runs' guests are up: the interrupt stops runs mid-way
    running_at_interrupt = _guests()
    proc.send_signal(signal.SIGINT)
    _, first_err = proc.communicate(timeout=120)
    time.sleep(0.5)
    left_behind = _guests()
    done_before = _ok_runs(folder)
    second = subprocess.run(_campaign("run", str(TINY), "--out", str(out), "--parallel", "2"),
                            capture_output=True, text=True, timeout=300)
    return {"folder": folder, "first": proc.returncode, "first_err": first_err, "left_behind": left_behind,
            "running_at_interrupt": running_at_interrupt,
            "done_before": done_before, "second": second}


def test_interrupted_campaign_resumes_and_runs_only_the_missing_runs(baseline: dict[str, Any]) -> None:
    folder: Path = baseline["folder"]
    assert baseline["first"] == 130, baseline["first_err"]
    assert "interrupted: run the same command again to resume" in baseline["first_err"]
    assert baseline["running_at_interrupt"] and not baseline["left_behind"], "guests left running after Ctrl-C"
    attempts = list((folder / "attempts").iterdir())  # interrupted runs, set aside, then run again
    # A worker stopped before its run folder had a summary leaves none: nothing to say but that.
    errors = {d.name: summary["error"] for d in attempts if (summary := table.run_summary(d))}
    assert attempts and errors and set(errors.values()) == {"interrupted"}, (attempts, errors)
    second = baseline["second"]
    assert second.returncode == 0, second.stderr
    every = {r.run_key for r in expand.runs(spec.load(TINY))}
    done_before = baseline["done_before"]
    assert 2 <= len(done_before) < len(every)
    invocations = [e["invocation"] for e in _log(folder) if e["event"] == "campaign-start"]
    assert len(invocations) == 2
    started_again = {e["run_key"] for e in _log(folder) if e["event"] == "start" and e["invocation"] == invocations[1]}
    assert started_again == every - set(done_before)  # only the missing runs, each once
    after = _ok_runs(folder)
    assert set(after) == every
    assert all(after[k] == t for k, t in done_before.items())  # finished runs untouched
    rows = table.read(folder)
    assert sorted(r["run_key"] for r in rows) == sorted(every) and {r["status"] for r in rows} == {"ok"}
    assert f"{len(done_before)} already done, {len(every) - len(done_before)} to run" in second.stderr


def test_campaign_compared_with_itself_reports_no_regression(baseline: dict[str, Any], tmp_path: Path) -> None:
    folder = baseline["folder"]
    r = subprocess.run(_campaign("compare", str(folder), str(folder), "--junit", str(tmp_path / "junit.xml")),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no regression" in r.stdout
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and int(suite.get("tests", 0)) == 2 * 4 + 2


@pytest.fixture(scope="module")
def slower(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny campaign with RTO.min tripled where path_max_retrans is 2, run whole at --parallel 2."""
    out = tmp_path_factory.mktemp("slower")
    spec_file = out / "tiny.yaml"
    spec_file.write_text(TINY.read_text().replace("experiment: tiny-experiment.yaml", f"experiment: {TINY.parent / 'tiny-experiment.yaml'}")
                         + "adjust:\n  - {when: {sctp.path_max_retrans: 2}, set: {sctp.rto_min: 300ms, sctp.rto_initial: 300ms}}\n")
    run = subprocess.run(_campaign("run", str(spec_file), "--out", str(out / "new"), "--parallel", "2"),
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return out / "new/tiny"


def test_workers_serve_several_runs_whose_figures_do_not_depend_on_which_worker_ran_them(
        baseline: dict[str, Any], slower: Path) -> None:
    # Two worker processes for six runs: the interpreter's start and imports are paid per worker, not per run.
    pids = {e["pid"] for e in _log(slower) if e["event"] == "start"}
    assert len(pids) == 2, pids
    # The configuration the adjustment leaves alone ran here in another order, on workers that had run
    # other runs before, and in the baseline across an interrupt: the same counts and the same times
    # within 2 µs, the golden test's bound for a run folder at another path (docs/clocks.md#what-moves).
    def untouched(folder: Path) -> dict[int, dict[str, Any]]:
        return {r["repetition"]: r for r in table.read(folder) if r["config"] == "sctp.path_max_retrans=1"}
    here, there = untouched(slower), untouched(baseline["folder"])
    assert sorted(here) == sorted(there) == [1, 2, 3]
    for repetition, row in here.items():
        assert [row[f] for f in ("messages_sent", "messages_delivered")] == \
            [there[repetition][f] for f in ("messages_sent", "messages_delivered")]
        for f in ("mtt_mean_ms", "mmtt_ms", "detection_time_ms", "failover_time_ms"):
            assert row[f] == pytest.approx(there[repetition][f], abs=0.002), (repetition, f)


def test_slower_rto_min_in_one_configuration_is_that_configurations_regression(baseline: dict[str, Any], slower: Path,
                                                                                 tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    # 25 %: a tripled RTO.min moves failover time by ~200 %; run-to-run jitter stays far below.
    r = subprocess.run(_campaign("compare", str(slower), str(baseline["folder"]), "--junit", str(junit),
                                 "--min-effect", "25%"), capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    failed = {(c.get("classname"), c.get("name")) for c in suite.iter("testcase") if c.find("failure") is not None}
    assert {classname for classname, _ in failed} == {"tiny.sctp.path_max_retrans=2"}, r.stdout
    assert ("tiny.sctp.path_max_retrans=2", "failover_time_ms") in failed
    assert "regression:" in r.stdout and "  sctp.path_max_retrans=2: failover_time_ms" in r.stdout
