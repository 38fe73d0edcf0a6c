"""Where a run's time goes: each phase the backend names gets the wall and CPU time it took,
the guest's (a live child process) and the host's own alike, into cost.json; the words that
end phases are measured, never shown to the person watching the progress."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sctpbench.backends import phases
from sctpbench.model import loading
from sctpbench.orchestration import runner
from sctpbench.results import cost as results_cost
from sctpbench.results import jsonfile

ROOT = Path(__file__).resolve().parents[2]
# CPU seconds a child burns: far above the 10 ms of /proc's ticks, whatever the machine's load
# (CPU time, not wall time, is what is compared).
BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"


def test_phase_words_end_phases_and_are_not_shown() -> None:
    shown: list[str] = []
    meter = phases.Meter()
    report = meter.observe(shown.append)
    report("booting the guest")
    phases.ended(report, "boot")
    report("building the network")
    phases.ended(report, "setup")
    assert shown == ["booting the guest", "building the network"]
    assert [p.name for p in meter.phases] == ["boot", "setup"]


def test_a_reaped_childs_cpu_goes_to_the_phase_it_ran_in() -> None:
    meter = phases.Meter()
    meter.end("before")
    subprocess.run([sys.executable, "-c", BURN], check=True)
    meter.end("burn")
    before, burn = meter.phases
    assert burn.cpu_s >= 0.25
    assert before.cpu_s < 0.25


def test_a_live_childs_cpu_is_counted_while_it_runs_and_not_again_once_reaped() -> None:
    """A guest is a live process tree while its phases end: read from /proc, and once
    reaped from getrusage, never twice."""
    meter = phases.Meter()
    child = subprocess.Popen([sys.executable, "-c", BURN + "import sys\nsys.stdin.read()\n"], stdin=subprocess.PIPE)
    try:
        _wait_for_cpu(child.pid, 0.25)
        meter.end("running")
    finally:
        assert child.stdin
        child.stdin.close()
        child.wait()
    meter.end("reaped")
    running, reaped = meter.phases
    assert running.cpu_s >= 0.25
    assert reaped.cpu_s < 0.2
    assert meter.total().cpu_s == pytest.approx(running.cpu_s + reaped.cpu_s)


def _wait_for_cpu(pid: int, seconds: float) -> None:
    """Until the child has burnt its CPU (by its own account), however long the machine takes."""
    while True:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / 100 >= seconds:
            return
        subprocess.run(["sleep", "0.05"])


def test_cost_json_round_trip_and_a_broken_one_is_a_one_line_error(tmp_path: Path) -> None:
    results_cost.write(tmp_path, [{"name": "boot", "wall_s": 1.5, "cpu_s": 0.7, "switches": 12}])
    cost = results_cost.read(tmp_path)
    assert cost is not None
    assert cost.phase("boot") == results_cost.PhaseCost("boot", 1.5, 0.7, 12)
    assert results_cost.read(tmp_path / "none") is None
    (tmp_path / "cost.json").write_text('{"phases": [{"name": "boot"}]}')
    with pytest.raises(jsonfile.ResultsFileError, match="cost.json: not as sctpbench wrote it"):
        results_cost.read(tmp_path)


def test_the_runner_writes_every_phase_the_backend_ends_then_collection_and_analysis(tmp_path: Path,
                                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def backend_phases(self: Any, plan: Any, run_dir: Path, report: Any) -> None:
        for name in ("boot", "setup", "agents", "workload", "drain", "teardown", "halt"):
            phases.ended(report, name)
        raise runner.BackendError("stopped here")

    backend = runner.registry.get("uml")
    monkeypatch.setattr(type(backend), "run_plan", backend_phases)
    shown: list[str] = []
    run_dir = tmp_path / "run"
    result = runner.run_in(loading.load(ROOT / "examples/failover.yaml"), 1, run_dir, "uml", Path("agent"), shown.append)
    assert result["error"].startswith("stopped here")
    names = [p["name"] for p in json.loads((run_dir / "cost.json").read_text())["phases"]]
    assert names == ["plan", "boot", "setup", "agents", "workload", "drain", "teardown", "halt", "collection", "analysis"]
    assert not any(phases.PREFIX in line for line in shown)


def test_the_report_shows_where_a_runs_time_went_and_a_run_without_cost_json_opens_as_before(tmp_path: Path) -> None:
    from sctpbench.outputs import folders, report

    run = folders.RunData(tmp_path, {}, {}, {}, {}, {}, [], [], [])
    assert report.cost_table(run) == ""
    results_cost.write(tmp_path, [{"name": "boot", "wall_s": 1.25, "cpu_s": 0.75, "switches": 41000},
                                  {"name": "setup", "wall_s": 0.5, "cpu_s": 0.25, "switches": 17000}])
    run.cost = results_cost.read(tmp_path)
    page = report.cost_table(run)
    assert "<td>boot</td><td>1.25</td><td>0.75</td><td>41000</td>" in page.replace(" class=num", "")
    assert "<td>all phases</td><td>1.75</td><td>1.00</td><td>58000</td>" in page.replace(" class=num", "")
