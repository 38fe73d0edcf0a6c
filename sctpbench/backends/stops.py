"""How a run stops early, in words the run folder and the exit status carry.

Ctrl-C (SIGINT) and SIGTERM take the same path: an exception unwinds the run, the guest
is torn down, what was measured is kept. They differ only in what is said: "interrupted"
(exit 130) or "terminated" (exit 143, 128 + SIGTERM as a shell reports it). A SIGKILL
cannot be caught: the guest's guardian (backends/uml/guardian.py) says "orchestrator
killed" for it. Standard library only: the guest imports this.
"""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

INTERRUPTED, TERMINATED, KILLED = "interrupted", "terminated", "orchestrator killed"
NO_SPACE = "no space left on device"
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143


class Terminated(KeyboardInterrupt):
    """SIGTERM: a KeyboardInterrupt, so every teardown written for Ctrl-C applies unchanged."""


def reason(stop: BaseException) -> str:
    return TERMINATED if isinstance(stop, Terminated) else INTERRUPTED


def exit_status(stop: BaseException) -> int:
    return EXIT_TERMINATED if isinstance(stop, Terminated) else EXIT_INTERRUPTED


def _stop_once(signum: int, frame: object) -> None:
    # One stop only: a second Ctrl-C or SIGTERM must not cut the guest's teardown short
    # (the guest runs in a session of its own and would be left behind).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


@contextmanager
def stoppable() -> Iterator[None]:
    """SIGINT and SIGTERM raise once; the handlers in force before come back afterwards
    (ignored signals would otherwise be inherited by every process started later)."""
    previous = {s: signal.signal(s, _stop_once) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def is_no_space(e: BaseException) -> bool:
    return isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT)


def no_space_left(path: Path) -> bool:
    """Whether the file system holding path is full: a process that died of it (the agent)
    may have had no room left to say why."""
    try:
        st = os.statvfs(path)
    except OSError:
        return False
    return st.f_bavail == 0 or (st.f_favail == 0 and st.f_files > 0)


def describe_no_space(path: Path) -> str:
    return f"{NO_SPACE}: the file system of {path} is full"
