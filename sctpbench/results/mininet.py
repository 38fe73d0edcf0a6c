"""mininet.json: the Mininet network as built and how its teardown went (files.py;
mininet/engine.py: MininetEngine writes it once built and again after the teardown)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "mininet.json"


def write(run_dir: Path, record: dict[str, Any]) -> None:
    (run_dir / NAME).write_text(jsonfile.text(record))


def read_optional(run_dir: Path) -> dict[str, Any] | None:
    """The network's record, or None for a run of another backend."""
    return jsonfile.read_optional(run_dir / NAME)
