"""What this machine can run: host kernel SCTP and netem, the UML guest, the agent."""

from __future__ import annotations

import os
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sctpbench.testbed.backends import uml

IPPROTO_SCTP = 132
AGENT_DEFAULT = Path(__file__).resolve().parent.parent / "workloads" / "agent" / "build" / "sctpbench-agent"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def agent_path() -> Path:
    """The agent binary; SCTPBENCH_AGENT points elsewhere (e.g. a sanitizer build)."""
    return Path(os.environ.get("SCTPBENCH_AGENT", AGENT_DEFAULT)).resolve()


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


def guest() -> Check:
    ok, detail = uml.available()
    return Check("User-Mode Linux guest", ok, detail)


def agent() -> Check:
    path = agent_path()
    if os.access(path, os.X_OK):
        return Check("agent", True, str(path))
    return Check("agent", False, f"{path} not built (make -C sctpbench/workloads/agent)")


def all_checks() -> list[Check]:
    return [host_sctp(), host_netem(), host_root(), guest(), agent()]


def choose_backend(requested: str) -> tuple[str | None, str]:
    """`auto` takes netns only where the host kernel has SCTP and netem (and we are root)."""
    netns_ok = all(c.ok for c in (host_sctp(), host_netem(), host_root()))
    uml_ok = guest().ok
    if requested == "netns":
        why = _why([host_sctp(), host_netem(), host_root()])
        return ("netns", "") if netns_ok else (None, "netns backend needs host kernel SCTP, netem and root: " + why)
    if requested == "uml":
        return ("uml", "") if uml_ok else (None, "uml backend: " + guest().detail)
    if netns_ok:
        return "netns", ""
    if uml_ok:
        return "uml", ""
    return None, "no backend can run here: " + _why(all_checks())


def _why(checks: list[Check]) -> str:
    return "; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok)


def _which(cmd: str) -> bool:
    return any((Path(d) / cmd).exists() for d in os.environ.get("PATH", "/usr/sbin:/usr/bin").split(":"))


def runnable(requested: str) -> tuple[str | None, str]:
    """The backend a run would use, or None and why nothing can run (no backend, no agent)."""
    backend, why = choose_backend(requested)
    if backend is None:
        return None, why
    built = agent()
    return (backend, "") if built.ok else (None, built.detail)
