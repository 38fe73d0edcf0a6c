"""Where results go, checked before anything is built: a bad --out is a clean error, and
nothing is created on the way to finding out."""

from __future__ import annotations

import os
from pathlib import Path

from sctpbench.model.errors import SpecError

# Kernel file systems: writes there change the machine or fail half-way, never hold results.
_KERNEL_TREES = (Path("/proc"), Path("/sys"), Path("/dev"))
MAX_PATH_CHARS = 4096  # Linux's PATH_MAX


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        try:
            if candidate.exists():
                return candidate
        except OSError:  # a component too long; the parents are shorter
            continue
    return Path("/")


def creatable(path: Path, flag: str = "--out", what: str = "the results folder") -> Path:
    """Refuse what no mkdir should be tried on: a kernel file system (writes there change
    the machine), or a path too long to exist (mkdir -p would leave its first folders)."""
    text = str(path)
    shown = text if len(text) <= 80 else f"{text[:80]}… ({len(text)} characters)"
    if len(text) > MAX_PATH_CHARS or any(len(part.encode()) > 255 for part in path.parts):
        raise SpecError(f"{flag} {shown}: cannot create {what}: the path is too long; "
                        f"allowed: at most {MAX_PATH_CHARS} characters, 255 bytes a name")
    absolute = Path(os.path.abspath(path))
    tree = next((t for t in _KERNEL_TREES if absolute == t or t in absolute.parents), None)
    if tree is not None:
        raise SpecError(f"{flag} {shown}: cannot create {what}: under {tree}, a kernel file system; allowed: a folder on a disk")
    return absolute


def _common(path: Path, flag: str, what: str) -> Path:
    absolute = creatable(path, flag, what)
    existing = _nearest_existing(absolute)
    if existing != absolute and not existing.is_dir():
        raise SpecError(f"{flag} {path}: {existing} is a file, not a folder; allowed: a path under a folder")
    if not os.access(existing if existing.is_dir() else existing.parent, os.W_OK | os.X_OK):
        raise SpecError(f"{flag} {path}: {existing} is not writable; allowed: a folder you can write to")
    return absolute


def folder(path: Path, flag: str = "--out") -> Path:
    """A results folder that exists and is writable, or can be made."""
    absolute = _common(path, flag, "the folder")
    if absolute.exists() and not absolute.is_dir():
        raise SpecError(f"{flag} {path}: is a file; allowed: a folder (new or existing)")
    return path


def file(path: Path, flag: str = "--out") -> Path:
    """A file that can be written (made or replaced)."""
    absolute = _common(path, flag, "the file")
    if absolute.is_dir():
        raise SpecError(f"{flag} {path}: is a folder; allowed: a file to write")
    return path
