"""Room kept for a run's last words: its summary.json, even when the disk fills mid-run.

A run that fills its file system (records, captures) must still say so. Each folder that
ends with a summary gets a small reserve file when it is created; a summary that finds no
space frees the reserve and tries again. Standard library only (the guardian imports it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sctpbench.backends import stops

RESERVE = ".space-reserve"
# A run's summary with its events, or a session's with dozens of runs, fits in it.
RESERVE_BYTES = 256 << 10


def reserve(folder: Path) -> None:
    """Best effort: a folder that cannot get its reserve runs anyway (and may fail to end well)."""
    try:
        with open(folder / RESERVE, "wb") as f:
            # Written, not truncated to size: a sparse file would hold no blocks at all.
            f.write(b"\0" * RESERVE_BYTES)
    except OSError:
        (folder / RESERVE).unlink(missing_ok=True)


def release(folder: Path) -> None:
    (folder / RESERVE).unlink(missing_ok=True)


def write_json(path: Path, document: Any, reserves: tuple[Path, ...] = ()) -> None:
    """Write atomically (a reader never sees half a summary); on a full disk, free the
    reserves (path's own folder's first) and try once more."""
    text = json.dumps(document, indent=2) + "\n"
    try:
        _replace(path, text)
    except OSError as e:
        if not stops.is_no_space(e):
            raise
        for folder in (path.parent, *reserves):
            release(folder)
        _replace(path, text)


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
