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
from typing import Any

ALLOWED = "allowed: the file as sctpbench wrote it"


class ResultsFileError(ValueError):
    """A results file missing where the format requires it, or not as sctpbench wrote it (a
    ValueError, as a file that parses but holds something else is to its callers)."""


def read(path: Path) -> dict[str, Any]:
    """A JSON object the format requires."""
    document = read_optional(path)
    if document is None:
        raise ResultsFileError(f"{path}: missing; {ALLOWED}")
    return document


def read_optional(path: Path) -> dict[str, Any] | None:
    """A JSON object, or None when the folder does not have it."""
    try:
        text = path.read_bytes().decode()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ResultsFileError(f"{path}: not readable ({str(e)[:80]}); {ALLOWED}") from None
    try:
        document = json.loads(text)
    except ValueError as e:
        raise ResultsFileError(f"{path}: not readable JSON ({str(e)[:80]}); {ALLOWED}") from None
    if not isinstance(document, dict):
        raise ResultsFileError(f"{path}: holds a {type(document).__name__}, not an object; {ALLOWED}")
    return document


def read_lines(path: Path) -> list[dict[str, Any]] | None:
    """A JSON-lines file as its objects (blank lines skipped), or None when there is none."""
    try:
        text = path.read_bytes().decode()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ResultsFileError(f"{path}: not readable ({str(e)[:80]}); {ALLOWED}") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as e:
            raise ResultsFileError(f"{path}:{number}: not readable JSON ({str(e)[:80]}); {ALLOWED}") from None
        if not isinstance(item, dict):
            raise ResultsFileError(f"{path}:{number}: holds a {type(item).__name__}, not an object; {ALLOWED}")
        out.append(item)
    return out


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
