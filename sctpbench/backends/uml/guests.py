"""Which guests are running, found by the id each carries on its kernel command line.

A guest's id (UML's `umid=`) names the run it serves and the process that booted it:
`sb-<first 8 of the run id>-<pid>`. That is enough to find the guest of a process that
was killed before it could tear its guest down (the guardian, a campaign's workers, the
tests that check nothing is left behind), and never to touch another run's guest. Only
the uml backend and this module know the format. Standard library only: the guardian
imports it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

PREFIX = "sb-"


def guest_id(run_id: str, owner_pid: int) -> str:
    return f"{PREFIX}{run_id[:8]}-{owner_pid}"


def pids(run_id: str | None = None, owner_pid: int | None = None) -> set[int]:
    """Processes of sctpbench's guests (kernel and helpers): all, a run's, or one owner's."""
    if run_id is not None and owner_pid is not None:
        exact = guest_id(run_id, owner_pid)
        return _find(lambda umid: umid == exact)
    prefix = PREFIX if run_id is None else f"{PREFIX}{run_id[:8]}-"
    return _find(lambda umid: umid.startswith(prefix))


def kill(run_id: str, owner_pid: int) -> None:
    """SIGKILL one owner's guest: nothing of it can be saved any more."""
    _kill(pids(run_id, owner_pid))


def kill_umid(umid: str) -> None:
    _kill(_find(lambda found: found == umid))


def _kill(found: set[int]) -> None:
    for pid in found:
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)  # the guest's session: kernel and helpers
        except (ProcessLookupError, PermissionError):
            pass


def _find(match: Callable[[str], bool]) -> set[int]:
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        # The kernel's own word only: the guardian carries the id too, as `--umid ID`.
        if any(word.startswith("umid=") and match(word.removeprefix("umid=")) for word in argv):
            found.add(int(proc.name))
    return found
