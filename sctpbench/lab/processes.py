"""The lab's long-lived processes (guests, switches): started detached, found again by pid,
ended by process group.

They must outlive `lab up`, so each starts in a session of its own (its pid is its process
group's). A pid read back from lab.json may since have been reused by another program:
a process counts as the lab's only while its command line still carries the lab's mark
(a guest's umid, a switch's control socket).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

TERM_GRACE_S = 3.0
KILL_GRACE_S = 5.0
EXEC_WAIT_S = 2.0


def start_detached(argv: list[str], log: Path) -> int:
    """Start argv in its own session, stdin from /dev/null, output to log; its pid."""
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True)
    return proc.pid


def command_line(pid: int) -> str:
    """The process's command line, each word between spaces ('' when gone or a zombie)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return " " + raw.replace(b"\0", b" ").decode(errors="replace") if raw else ""


def word(text: str) -> str:
    """A mark that matches `text` as a whole word of a command line (umid=sblab-x-emu, not …-emu2)."""
    return f" {text} "


def is_ours(pid: int | None, mark: str) -> bool:
    """The process runs and carries the mark. A live process shows an empty command line
    while it execs (`ip netns exec` becoming the guest or the switch): wait that out."""
    if pid is None:
        return False
    deadline = time.monotonic() + EXEC_WAIT_S
    while True:
        line = command_line(pid)
        if line or not _alive(pid) or time.monotonic() > deadline:
            return mark in line
        time.sleep(0.005)


def _alive(pid: int) -> bool:
    """Neither gone nor a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def end_groups(targets: list[tuple[int | None, str]]) -> None:
    """SIGTERM the process group of each (pid, mark) still ours, all at once; SIGKILL those
    that stay past the grace, then whatever of each group outlived its leader (a UML
    kernel's helper processes)."""
    started = [(pid, mark) for pid, mark in targets if pid is not None]
    live = [(pid, mark) for pid, mark in started if is_ours(pid, mark)]
    for sig, grace in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, KILL_GRACE_S)):
        for leader, _ in live:
            _signal_group(leader, sig)
        live = _wait_gone(live, grace)
        if not live:
            break
    for leader, mark in started:
        for member in _group_members(leader, mark):
            _signal(member, signal.SIGKILL)
        _reap(leader)


def kill_marked(mark: str) -> None:
    """SIGKILL whatever still carries `mark`: a process started by an `up` killed before it
    could write its pid down, or a helper that left its group."""
    for pid in marked(mark):
        _signal(pid, signal.SIGKILL)
        _reap(pid)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


def _signal(pid: int, sig: signal.Signals) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _group_members(pgid: int, mark: str) -> list[int]:
    """The processes of group `pgid` that carry `mark`: never another program's group that
    happens to have been given the same number since."""
    return [pid for pid in marked(mark) if _process_group(pid) == pgid]


def _process_group(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[2])  # after the name: state, ppid, pgrp


def marked(mark: str) -> list[int]:
    """Every process whose command line carries `mark` (what a test checks after `down`)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and mark in command_line(int(entry.name)):
            found.append(int(entry.name))
    return found


def _wait_gone(live: list[tuple[int, str]], grace: float) -> list[tuple[int, str]]:
    """Those still ours after up to `grace` seconds."""
    deadline = time.monotonic() + grace
    while live and time.monotonic() < deadline:
        time.sleep(0.05)
        for pid, _ in live:
            _reap(pid)
        live = [(pid, mark) for pid, mark in live if is_ours(pid, mark)]
    return live


def _reap(pid: int | None) -> None:
    """Collect the exit of a process this one started (`up` and `down` in one process, as in
    tests), so it does not linger as a zombie; others are init's to reap."""
    if pid is None:
        return
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
