"""host.json: the orchestrating host as the run found it (files.py): backend, sctpbench,
Python, the host's kernel, the backend's host packages, lksctp. The runner writes it before
the backend starts (orchestration/runner.py: host_facts); reports show it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "host.json"


def write(run_dir: Path, facts: dict[str, Any]) -> None:
    (run_dir / NAME).write_text(jsonfile.text(facts))


def read_optional(run_dir: Path) -> dict[str, Any] | None:
    """The host's facts, or None for a run folder without them."""
    return jsonfile.read_optional(run_dir / NAME)
