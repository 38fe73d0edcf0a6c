"""params.json: what was asked for and what was in force (files.py, COLLECTED; analysis/store.py
writes it): the requested SCTP values, the sysctls read back, and each association's values
read back by its agents (the first association's under `association`, every one's under
`associations`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "params.json"


def write(run_dir: Path, document: dict[str, Any]) -> None:
    (run_dir / NAME).write_text(jsonfile.text(document))


def read_optional(run_dir: Path) -> dict[str, Any] | None:
    """The run's parameters, or None where the run was never collected."""
    return jsonfile.read_optional(run_dir / NAME)
