"""events.jsonl: one line per timeline action the backend applied (files.py).

Times are nanoseconds of the run's clock: at_ns is the plan's offset from t0, scheduled_ns
when it was due, issued_ns when the command went out, applied_ns when it had taken effect,
lag_ns applied less scheduled.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "events.jsonl"


@dataclass(frozen=True)
class TimelineEvent:
    kind: str
    target: str
    detail: str
    direction: str | None
    at_ns: int
    scheduled_ns: int
    issued_ns: int
    applied_ns: int
    lag_ns: int

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TimelineEvent:
        return cls(kind=d["kind"], target=d["target"], detail=d.get("detail", ""), direction=d.get("direction"),
                   at_ns=d["at_ns"], scheduled_ns=d["scheduled_ns"], issued_ns=d["issued_ns"], applied_ns=d["applied_ns"],
                   lag_ns=d["lag_ns"])

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_line(line: str, run_dir: Path) -> dict[str, Any]:
    """One line as written, for a reader that follows the file while the backend appends to it
    (the live telemetry): a line is whole once its newline is there."""
    try:
        document = json.loads(line)
    except ValueError as e:
        raise jsonfile.ResultsFileError(f"{run_dir / NAME}: not readable JSON ({str(e)[:80]}); {jsonfile.ALLOWED}") from None
    if not isinstance(document, dict):
        raise jsonfile.ResultsFileError(f"{run_dir / NAME}: holds a {type(document).__name__}, not an object; "
                                        f"{jsonfile.ALLOWED}")
    return document


def read_documents(run_dir: Path) -> list[dict[str, Any]] | None:
    """The lines as written (the analysis still takes them as dicts), or None when the run
    never started its timeline."""
    return jsonfile.read_lines(run_dir / NAME)


def read_optional(run_dir: Path) -> list[TimelineEvent] | None:
    """The timeline's events, or None when the run never started its timeline."""
    documents = read_documents(run_dir)
    if documents is None:
        return None
    try:
        return [TimelineEvent.from_dict(d) for d in documents]
    except KeyError as e:
        raise jsonfile.ResultsFileError(f"{run_dir / NAME}: an event without {e}; {jsonfile.ALLOWED}") from None


def read(run_dir: Path) -> list[TimelineEvent]:
    """The timeline's events, where the analysis needs them (an error when missing)."""
    return jsonfile.required(read_optional(run_dir), run_dir / NAME)


def line(document: dict[str, Any]) -> str:
    """One event as the backend appends it while the timeline runs (a reader follows the file)."""
    return json.dumps(document) + "\n"


def write(run_dir: Path, documents: list[dict[str, Any]]) -> None:
    """The whole file at once (the ansible backend's merge of its machines')."""
    jsonfile.write_lines(run_dir / NAME, documents)
