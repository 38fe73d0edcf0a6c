"""telemetry.json: what a run's stream or push sent to InfluxDB (files.py, COLLECTED), and
telemetry.log, the live writer's standard error.

Points per measurement, sent and not sent, errors, the live lag, and the target it went to
(its URL and the credentials folder's path, never a secret: telemetry/credentials.py). A run
that never streamed nor was pushed has none; a run that never streamed has no log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from sctpbench.results import jsonfile

NAME = "telemetry.json"
LOG = "telemetry.log"


def read_optional(run_dir: Path) -> dict[str, Any] | None:
    """The ledger as written, or None where the run was never streamed nor pushed."""
    return jsonfile.read_optional(run_dir / NAME)


def recorded_target(run_dir: Path) -> dict[str, Any] | None:
    """The target the run's points went to, for a push that sends them again; None without a ledger."""
    document = read_optional(run_dir)
    if document is None:
        return None
    target = document.get("target")
    if not isinstance(target, dict):
        raise jsonfile.ResultsFileError(f"{run_dir / NAME}: not a telemetry ledger sctpbench wrote (no target); "
                                        f"{jsonfile.ALLOWED}")
    return dict(target)


def write(run_dir: Path, document: dict[str, Any]) -> None:
    jsonfile.write(run_dir / NAME, document)


def open_log(run_dir: Path) -> TextIO:
    """The live writer's log, for its standard error: where its traceback goes when it leaves no ledger."""
    return open(run_dir / LOG, "w")
