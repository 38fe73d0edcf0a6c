"""The `netns` backend: the plan realised by the netns engine (engine.py) on the kernel
this process runs on, as the registry knows it (protocol.Backend).

It needs a host kernel with SCTP and netem, and root. Where the host lacks them the
`uml` backend runs the same engine inside a guest.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path

from sctpbench.backends.netns import engine
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.protocol import Check, Report
from sctpbench.plan.data import Plan

IPPROTO_SCTP = 132
SCTP_SYSCTLS = Path("/proc/sys/net/sctp")


def host_sctp() -> Check:
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SCTP).close()
    except OSError as e:
        return Check("host kernel SCTP", False, f"socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP): {e.strerror}")
    return Check("host kernel SCTP", True, "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP) works")


def host_netem() -> Check:
    release = os.uname().release
    if Path("/sys/module/sch_netem").exists():
        return Check("host netem", True, "sch_netem loaded")
    r = subprocess.run(["modprobe", "-n", "sch_netem"], capture_output=True, text=True) if _which("modprobe") else None
    if r is not None and r.returncode == 0:
        return Check("host netem", True, "sch_netem can be loaded")
    return Check("host netem", False, f"no sch_netem module for kernel {release}")


def host_root() -> Check:
    return Check("root on the host", os.geteuid() == 0, "needed by the netns backend to create namespaces")


def _which(cmd: str) -> bool:
    return any((Path(d) / cmd).exists() for d in os.environ.get("PATH", "/usr/sbin:/usr/bin").split(":"))


class NetnsBackend:
    """The netns backend as the registry knows it (protocol.Backend)."""

    name = "netns"
    clocks = ("real",)

    def checks(self) -> list[Check]:
        return [host_sctp(), host_netem(), host_root()]

    def available(self, clock: str | None = None) -> tuple[bool, str]:
        if clock is not None and clock not in self.clocks:
            return False, "the netns backend runs on the host's own clock"
        missing = "; ".join(f"{c.name}: {c.detail}" for c in self.checks() if not c.ok)
        return (False, f"needs host kernel SCTP, netem and root: {missing}") if missing else (True, "")

    def run_plan(self, plan: Plan, run_dir: Path, report: Report) -> None:
        engine.run_plan(plan, run_dir, report)

    def missing_sysctls(self, names: Sequence[str], clock: str) -> tuple[list[str], str]:
        # net.sctp.* exists once sctp is loaded (host_sctp's socket loads it).
        return [n for n in names if not (SCTP_SYSCTLS / n).exists()], f"this host's kernel {os.uname().release}"

    def render(self, plan: Plan, run_dir: str) -> str:
        return netns_render.render(plan, run_dir)

    def host_facts(self) -> dict[str, str]:
        return {}

    def reap(self, run_id: str, owner_pid: int) -> None:
        # Namespaces a killed run created keep their names (sb-<run id>-<host>), but a
        # namespace of that name may be another live run's: left for a person to remove.
        pass
