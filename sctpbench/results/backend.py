"""backend.json: how the backend's part of a run ended, and the run's clock anchor (files.py).

One reader, `read` (`read_document` for the file as written, which the ansible backend merges
from its machines), and one writer, `amend`: the backend writes the anchor when the timeline
starts and its last word when it ends; the runner (a full disk) and the uml guardian
("orchestrator killed") amend ok and error only where the backend could not say it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "backend.json"

Writer = Callable[[Path, Any], None]


@dataclass(frozen=True)
class BackendStatus:
    ok: bool | None  # None while the run goes
    error: str | None = None  # the backend's words
    t0_ns: int | None = None  # the timeline's zero, on the run's clock
    t0_realtime_ns: int | None = None  # its time of day, for telemetry
    clock: str | None = None  # the ansible backend's: CLOCK_REALTIME
    machines: dict[str, Any] = field(default_factory=dict)  # the ansible backend's: each machine's own

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BackendStatus:
        return cls(ok=d.get("ok"), error=d.get("error"), t0_ns=d.get("t0_ns"), t0_realtime_ns=d.get("t0_realtime_ns"),
                   clock=d.get("clock"), machines=d.get("machines") or {})


def read(run_dir: Path) -> BackendStatus | None:
    """None when the run never got as far as its backend."""
    document = read_document(run_dir)
    return None if document is None else BackendStatus.from_dict(document)


def read_document(run_dir: Path) -> dict[str, Any] | None:
    """The file as written, every key kept (a machine's own, merged into the run's); None when
    the run never got as far as its backend."""
    return jsonfile.read_optional(run_dir / NAME)


def write(run_dir: Path, document: dict[str, Any]) -> None:
    """The whole file, as the backend starts the timeline (or the ansible backend merges its machines')."""
    (run_dir / NAME).write_text(jsonfile.text(document))


def amend(run_dir: Path, ok: bool, error: str | None, *, keep_earlier_error: bool = False,
          writer: Writer = jsonfile.write) -> None:
    """Set how the run ended, keeping the rest; `keep_earlier_error`: the backend's own
    words first. A file cut short (a full disk, a killed writer) is replaced, not an error:
    this is the run's last word."""
    path = run_dir / NAME
    try:
        old = jsonfile.read_optional(path) or {}
    except jsonfile.ResultsFileError:
        old = {}
    kept = old.get("error") if keep_earlier_error else None
    writer(path, old | {"ok": ok, "error": kept or error})
