"""What this machine can run: each registered backend's needs, and the agent."""

from __future__ import annotations

import os
from pathlib import Path

from sctpbench.backends import registry
from sctpbench.backends.base import Check

AGENT_DEFAULT = Path(__file__).resolve().parent.parent / "workloads" / "agent" / "build" / "sctpbench-agent"
AUTO = "auto"


def agent_path() -> Path:
    """The agent binary; SCTPBENCH_AGENT points elsewhere (e.g. a sanitizer build)."""
    return Path(os.environ.get("SCTPBENCH_AGENT", AGENT_DEFAULT)).resolve()


UDPGEN_DEFAULT = Path(__file__).resolve().parent.parent / "workloads" / "udpgen" / "build" / "sctpbench-udpgen"


def udpgen_path() -> Path:
    """The background UDP generator (traffic: kind udp); SCTPBENCH_UDPGEN points elsewhere."""
    return Path(os.environ.get("SCTPBENCH_UDPGEN", UDPGEN_DEFAULT)).resolve()


def agent() -> Check:
    path = agent_path()
    if os.access(path, os.X_OK):
        return Check("agent", True, str(path))
    return Check("agent", False, f"{path} not built (make -C sctpbench/workloads/agent)")


def backend_choices() -> list[str]:
    """What `--backend` accepts: auto, then every registered backend."""
    return [AUTO, *registry.names()]


def all_checks() -> list[Check]:
    return [c for backend in registry.BACKENDS for c in backend.checks()] + [agent()]


def choose_backend(requested: str) -> tuple[str | None, str]:
    """The backend asked for if it can run here; `auto` takes the registry's first that can."""
    if requested != AUTO:
        ok, why = registry.get(requested).available()
        return (requested, "") if ok else (None, f"{requested} backend: {why}")
    for backend in registry.BACKENDS:
        if backend.available()[0]:
            return backend.name, ""
    return None, "no backend can run here: " + "; ".join(f"{c.name}: {c.detail}" for c in all_checks() if not c.ok)


def runnable(requested: str) -> tuple[str | None, str]:
    """The backend a run would use, or None and why nothing can run (no backend, no agent)."""
    backend, why = choose_backend(requested)
    if backend is None:
        return None, why
    built = agent()
    return (backend, "") if built.ok else (None, built.detail)
