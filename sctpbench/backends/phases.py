"""Where a run's time goes: its phases, each with the wall time and the CPU time it took.

A phase ends where the code that knows it says so, through the progress callback every
backend already has (`ended`): the netns engine says when the guest booted, the network
was built, the agents came up, the workload's time ran out, the drain and the teardown
ended; inside a User-Mode Linux guest those words reach the host as progress lines like
any other. The runner's `Meter` takes them out of the progress shown to people and
closes a phase at each: wall time from the host's monotonic clock, CPU time (user +
system) of the whole process tree of the host, the guest included (a live descendant's
from /proc, a reaped one's from getrusage). Voluntary context switches are counted beside:
every system call, page fault and signal of a guest process is a ptrace stop of its host
process and a wake-up of the guest kernel's, so they bound the guest's system calls from
above (docs/results.md, "What a run cost").

On virtual time none of this is in the run's figures: the guest's CPU work costs it no
virtual time. These are the host's costs, and they change with the host's load.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Report = Callable[[str], None]

# A progress text that ends a phase: never shown, only measured.
PREFIX = "phase-ended "
# The phases in the order a run goes through them (the guest's between plan and collection).
ORDER = ("plan", "boot", "setup", "agents", "workload", "drain", "teardown", "halt", "collection", "analysis")
_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def ended(report: Report, name: str) -> None:
    """Say that phase `name` just ended (anywhere a progress callback reaches the runner)."""
    report(f"{PREFIX}{name}")


def parse(text: str) -> str | None:
    """The phase a progress text ends, or None for text meant for people."""
    return text.removeprefix(PREFIX) if text.startswith(PREFIX) else None


@dataclass(frozen=True)
class Usage:
    """The process tree's consumption so far."""

    wall_s: float
    cpu_s: float
    switches: int  # voluntary context switches of the live descendants seen so far

    def minus(self, other: Usage) -> Usage:
        return Usage(self.wall_s - other.wall_s, self.cpu_s - other.cpu_s, self.switches - other.switches)


@dataclass(frozen=True)
class Phase:
    name: str
    wall_s: float
    cpu_s: float
    switches: int

    def as_dict(self) -> dict[str, float | int | str]:
        return {"name": self.name, "wall_s": round(self.wall_s, 3), "cpu_s": round(self.cpu_s, 3), "switches": self.switches}


def _cpu_s(live: dict[int, tuple[int, int]]) -> float:
    """This process, its reaped descendants and its live ones (a guest while it runs)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + sum(t for t, _ in live.values()) * _TICK_S


def _live_descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = _stat_fields(int(entry.name))
            if stat:
                children.setdefault(int(stat[1]), []).append(int(entry.name))
    found, frontier = [], [root]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat after the command name (which may hold spaces): state, ppid, …"""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None  # ended meanwhile
    return text[text.rfind(")") + 2:].split()


def _process_usage(pid: int) -> tuple[int, int] | None:
    """A live process's CPU ticks (its own and its reaped children's) and its own voluntary switches."""
    fields = _stat_fields(pid)
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    if not fields:
        return None
    # utime stime cutime cstime are stat's fields 14-17: here 11-14, counted from state.
    ticks = sum(int(v) for v in fields[11:15])
    voluntary = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("voluntary_ctxt_switches")), 0)
    return ticks, voluntary


@dataclass
class Meter:
    """Closes a phase at each `ended` word, and keeps the rest of the progress for people.

    Switches are those of the descendants alive at some phase end, each at the most it was
    seen: a process that lived only between two phase ends is not seen (its CPU time is,
    through its parent). A reaped process's switches reach getrusage only with its own
    parent's, so they are not taken from there, where they would count twice.
    """

    phases: list[Phase] = field(default_factory=list)
    _seen: dict[int, int] = field(default_factory=dict)  # pid → voluntary switches, the most seen

    def __post_init__(self) -> None:
        self.start = self._last = self.usage()

    def usage(self) -> Usage:
        live = {pid: u for pid in _live_descendants(os.getpid()) if (u := _process_usage(pid)) is not None}
        for pid, (_, voluntary) in live.items():
            self._seen[pid] = max(voluntary, self._seen.get(pid, 0))
        own = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
        return Usage(time.monotonic(), _cpu_s(live), own + sum(self._seen.values()))

    def end(self, name: str) -> None:
        now = self.usage()
        spent = now.minus(self._last)
        self._last = now
        self.phases.append(Phase(name, spent.wall_s, max(spent.cpu_s, 0.0), spent.switches))

    def observe(self, show: Report) -> Report:
        """A progress callback that measures phase ends and shows everything else."""
        def report(text: str) -> None:
            name = parse(text)
            if name is None:
                show(text)
            else:
                self.end(name)
        return report

    def total(self) -> Phase:
        spent = self._last.minus(self.start)
        return Phase("total", spent.wall_s, spent.cpu_s, spent.switches)
