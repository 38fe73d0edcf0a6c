"""The uml backend's own files of a run (files.py): guest.json, console.log and guardian.log.

guest.json   the guest as booted (uml/backend.py: guest_facts), written at boot and again
             at the end with its wall time and, on the paced clock, the calendar's statistics
console.log  the guest's console, copied as it comes (binary: a guest may print anything)
guardian.log only when sctpbench died without tearing the guest down: what the guardian did
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO, TextIO

from sctpbench.results import jsonfile

NAME = "guest.json"
CONSOLE = "console.log"
GUARDIAN_LOG = "guardian.log"


def write(run_dir: Path, facts: dict[str, Any]) -> None:
    (run_dir / NAME).write_text(jsonfile.text(facts))


def read_optional(run_dir: Path) -> dict[str, Any] | None:
    """The guest's facts, or None for a run of another backend (or one that never booted)."""
    return jsonfile.read_optional(run_dir / NAME)


def console_path(run_dir: Path) -> Path:
    """Where the console is, for an error message that sends a person there."""
    return run_dir / CONSOLE


def open_console(run_dir: Path) -> BinaryIO:
    """The console, for the backend to copy the guest's output into as it comes."""
    return open(run_dir / CONSOLE, "wb")


def open_guardian_log(run_dir: Path) -> TextIO:
    """The guardian's log, appended to: opened only once it has something to do."""
    return open(run_dir / GUARDIAN_LOG, "a")
