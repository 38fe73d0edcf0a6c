"""calibration.json: a session's calibration of its topology, when `measure.calibrate` asked for it
(orchestration/calibrate.py): each path's configured and measured delay and rate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "calibration.json"


def read_optional(session_dir: Path) -> dict[str, Any] | None:
    """The session's calibration, or None where it was not calibrated."""
    return jsonfile.read_optional(session_dir / NAME)


def write(session_dir: Path, document: dict[str, Any]) -> None:
    jsonfile.write(session_dir / NAME, document)
