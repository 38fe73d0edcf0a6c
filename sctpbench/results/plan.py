"""plan.json and plan.sh: the run as planned, as data and as the chosen backend's commands
(files.py; plan/ builds it, the orchestrator writes it before the backend starts).

plan.json is what every later step reads the run from: the backend inside the guest or on
each machine, collection, verify, telemetry, the guardian's first summary. `read` is the
Plan (PlanFormatError says in words why a file is not one), `read_document` the file as
written where a reader wants only a few keys, or none of the plan's checks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.plan.data import Plan
from sctpbench.results import jsonfile

NAME = "plan.json"
SCRIPT = "plan.sh"


def write(run_dir: Path, plan: Plan) -> None:
    (run_dir / NAME).write_text(plan.to_json())


def write_files(run_dir: Path, plan: Plan) -> None:
    """The files the plan names beside it (the clients' schedules/ and signals/)."""
    for name, text in plan.files.items():
        (run_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / name).write_text(text)


def write_script(run_dir: Path, text: str) -> None:
    """plan.sh: for a person to read; nothing runs it."""
    (run_dir / SCRIPT).write_text(text)


def exists(run_dir: Path) -> bool:
    """Whether the folder holds a plan: a run folder, or one whose orchestrator has written it by now."""
    return (run_dir / NAME).is_file()


def read(run_dir: Path) -> Plan:
    """The run's plan (FileNotFoundError without one, PlanFormatError for one sctpbench did not write)."""
    return Plan.from_json((run_dir / NAME).read_text())


def read_document(run_dir: Path) -> dict[str, Any] | None:
    """plan.json as written, or None where there is none."""
    return jsonfile.read_optional(run_dir / NAME)


def require_document(run_dir: Path) -> dict[str, Any]:
    """plan.json as written; missing is the one-line error."""
    return jsonfile.read(run_dir / NAME)
