"""Reading and writing the JSON files of a results folder, with one policy for a missing or
broken file: a one-line error naming the file ("FILE: what is wrong; allowed: …").

A file the format says every folder has is read with `read`: missing is an error. A file
that a folder may lack (a run that stopped early, a file that only some runs have) is read
with `read_optional`, which says so by returning None; a broken one is an error either way,
since a page drawn from garbage would look like a result.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

ALLOWED = "allowed: the file as sctpbench wrote it"


class ResultsFileError(ValueError):
    """A results file missing where the format requires it, or not as sctpbench wrote it (a
    ValueError, as a file that parses but holds something else is to its callers)."""


Found = TypeVar("Found")


def required(found: Found | None, path: Path) -> Found:
    """What a reader's `read_optional` found, where the format requires the file: missing is the
    one-line error (a JSON file, a JSON-lines file, a table: one wording)."""
    if found is None:
        raise ResultsFileError(f"{path}: missing; {ALLOWED}")
    return found


def read(path: Path) -> dict[str, Any]:
    """A JSON object the format requires."""
    return required(read_optional(path), path)


def read_optional(path: Path) -> dict[str, Any] | None:
    """A JSON object, or None when the folder does not have it."""
    text = _text(path)
    return None if text is None else _object(text, str(path))


def read_lines(path: Path) -> list[dict[str, Any]] | None:
    """A JSON-lines file as its objects (blank lines skipped), or None when there is none."""
    text = _text(path)
    if text is None:
        return None
    return [_object(line, f"{path}:{number}") for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _text(path: Path) -> str | None:
    """The file's text, or None when there is none; unreadable is the one-line error."""
    try:
        return path.read_bytes().decode()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ResultsFileError(f"{path}: not readable ({str(e)[:80]}); {ALLOWED}") from None


def _object(text: str, where: str) -> dict[str, Any]:
    """One JSON object, or the one-line error naming where it stands (FILE or FILE:LINE)."""
    try:
        document = json.loads(text)
    except ValueError as e:
        raise ResultsFileError(f"{where}: not readable JSON ({str(e)[:80]}); {ALLOWED}") from None
    if not isinstance(document, dict):
        raise ResultsFileError(f"{where}: holds a {type(document).__name__}, not an object; {ALLOWED}")
    return document


def text(document: Any) -> str:
    """The JSON text of every file this package writes: indented, one trailing newline."""
    return json.dumps(document, indent=2) + "\n"


def write(path: Path, document: Any) -> None:
    """Write atomically: a reader (the live telemetry, a report) never sees half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text(document))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def write_lines(path: Path, items: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(item) + "\n" for item in items))


def append_line(path: Path, item: dict[str, Any]) -> None:
    with path.open("a") as f:
        f.write(json.dumps(item) + "\n")
