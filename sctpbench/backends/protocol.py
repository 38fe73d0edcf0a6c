"""What every backend is to the rest of sctpbench: one small protocol.

A backend turns a backend-neutral plan into a running network and back into nothing.
The orchestration (runner, campaign, `sctpbench check`, clock choice) sees only this
protocol and finds backends by name in `registry.py`, so adding one (Mininet, Ansible
hosts) is a folder of its own whose backend.py implements it, plus a line in the
registry. What a backend must leave in a run folder is written down once, in `results/files.py`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from sctpbench.plan.data import Plan

Report = Callable[[str], None]

# The package, and what of it runs away from the orchestrating host, where the netns engine
# runs (a uml guest reading the host's tree, an ansible machine given a bundle): the engines,
# share.py and clean.py and what they import, all standard library.
PACKAGE = Path(__file__).resolve().parents[1]
OFF_HOST = ("__init__.py", "backends", "plan", "model", "results")  # in this order: the ansible bundle's digest


@dataclass(frozen=True)
class Check:
    """One thing this machine needs, as `sctpbench check` prints it."""

    name: str
    ok: bool
    detail: str


@runtime_checkable
class Backend(Protocol):
    @property
    def name(self) -> str:
        """What `--backend` calls it, and host.json records."""
        ...

    @property
    def clocks(self) -> tuple[str, ...]:
        """Every clock it can ever run on (clock.py); whether it can here is `available(clock)`."""
        ...

    def checks(self) -> list[Check]:
        """What this machine needs for the backend, each with yes or no and why."""
        ...

    def available(self, clock: str | None = None) -> tuple[bool, str]:
        """Whether a run can go ahead here (on `clock`, when given), and why not."""
        ...

    def run_plan(self, plan: Plan, run_dir: Path, report: Report) -> None:
        """Realise the plan, run its timeline, tear everything down (also on Ctrl-C);
        raise BackendError with the reason when the run failed. plan.json is already in run_dir."""
        ...

    def missing_sysctls(self, names: Sequence[str], clock: str) -> tuple[list[str], str]:
        """Of these net.sctp.* sysctls, those the kernel a run on `clock` would use lacks,
        and that kernel as a person would name it (stack variants need the project's kernel)."""
        ...

    def render(self, plan: Plan, run_dir: str) -> str:
        """The plan as the commands this backend runs, for `sctpbench plan` and plan.sh."""
        ...

    def host_facts(self) -> dict[str, str]:
        """Backend software on the orchestrating host, for host.json."""
        ...

    def reap(self, run_id: str, owner_pid: int) -> None:
        """End what a run left behind when the process that ran it (owner_pid) was killed
        before its own teardown; a campaign calls it after every worker."""
        ...


def installed_version(package: str) -> str:
    """A Debian package's version, for host_facts; "unknown" where dpkg does not know it."""
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    except OSError:  # no dpkg at all
        return "unknown"
    return r.stdout.strip() if r.returncode == 0 else "unknown"
