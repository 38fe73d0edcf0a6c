"""The end of a run whose orchestrator was killed (SIGKILL, the OOM killer).

The uml backend's guardian kills the guest and writes the first summary, then runs this
program (backends/uml/guardian.py names it): a backend sits below the orchestration and does
not import it. It collects the records into tables and metrics as `sctpbench run` would
have, then writes the session's summary.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sctpbench.backends import stops
from sctpbench.orchestration import runner
from sctpbench.results import experiment as results_experiment
from sctpbench.results import folders as results_folders
from sctpbench.results import plan as results_plan
from sctpbench.results import summary as results_summary


def collect(run_dir: Path) -> None:
    """The records into tables and metrics, as `sctpbench run` would have; then the session's summary."""

    plan = results_plan.read(run_dir)
    result = runner._end(run_dir, plan, stops.KILLED, begun=True)  # the guardian runs only once a guest was up
    session_dir = run_dir.parent
    if results_experiment.exists(session_dir) and not (session_dir / results_summary.NAME).exists():
        session = runner.Session(session_dir, error=stops.KILLED)
        for earlier in results_folders.session_runs(session_dir):
            if earlier != run_dir:
                earlier_plan = results_plan.read(earlier)
                session.runs.append(runner._collect(earlier, earlier_plan, None))
        session.runs.append(result)
        runner._write_session_summary(session)


if __name__ == "__main__":
    collect(Path(sys.argv[1]))
