"""The format version every results folder carries, and the upgrade of older folders on load.

Each folder sctpbench writes (run, session, campaign) holds format.json: {"format": N,
"kind": "run" | "session" | "campaign"}. A folder from before format 2 has none: it is
format 1, its kind recognised by its files (a run: plan.json; a campaign: campaign.json;
a session: run-*/ run folders). Loading never writes into a folder: a reader takes a file's
document through `upgraded`, which applies each step from the folder's format to today's.

To change a file's format: bump FORMAT, and add the step from the previous one to UPGRADES
(a function of the file's name and document returning the document as today's code writes it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

FORMAT = 2
MARKER = "format.json"
KINDS = ("run", "session", "campaign")

Upgrade = Callable[[str, dict[str, Any]], dict[str, Any]]


def _from_1(name: str, document: dict[str, Any]) -> dict[str, Any]:
    """Format 2 added format.json and changed no other file."""
    return document


# The step from each format to the next.
UPGRADES: dict[int, Upgrade] = {1: _from_1}


@dataclass(frozen=True)
class Format:
    version: int
    kind: str  # run, session or campaign


def mark(folder: Path, kind: str) -> None:
    """Say the folder's format and kind; written by the code that creates the folder."""
    assert kind in KINDS, kind
    jsonfile.write(folder / MARKER, {"format": FORMAT, "kind": kind})


def of(folder: Path) -> Format | None:
    """The folder's format, or None when it is no results folder."""
    marker = jsonfile.read_optional(folder / MARKER)
    if marker is None:
        kind = _recognised(folder)
        return None if kind is None else Format(1, kind)
    version, kind = marker.get("format"), marker.get("kind")
    if not isinstance(version, int) or kind not in KINDS:
        raise jsonfile.ResultsFileError(f"{folder / MARKER}: not a format sctpbench wrote ({marker}); "
                                        f"allowed: {{\"format\": 1..{FORMAT}, \"kind\": {' | '.join(KINDS)}}}")
    if version > FORMAT:
        raise jsonfile.ResultsFileError(f"{folder / MARKER}: format {version} is newer than this sctpbench's; "
                                        f"allowed: 1..{FORMAT}")
    return Format(version, str(kind))


def _recognised(folder: Path) -> str | None:
    """A format-1 folder's kind, by its files."""
    if (folder / "campaign.json").is_file():
        return "campaign"
    if (folder / "plan.json").is_file():
        return "run"
    if any((p / "plan.json").is_file() for p in folder.glob("run-*")):
        return "session"
    return None


def upgraded(folder: Path, name: str, document: dict[str, Any]) -> dict[str, Any]:
    """A file's document as today's format has it."""
    found = of(folder)
    for version in range(found.version if found else FORMAT, FORMAT):
        document = UPGRADES[version](name, document)
    return document
