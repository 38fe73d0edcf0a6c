"""What this machine can run: each registered backend's needs, and the agent."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sctpbench.backends import registry
from sctpbench.backends.protocol import Check
from sctpbench.model import sctp_params
from sctpbench.model.errors import SpecError
from sctpbench.plan.build import USRSCTP_AGENT

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


def usrsctp_agent() -> Check:
    """The second stack's agent (stack: usrsctp), built beside the agent: needed only by
    experiments that use that stack, so its absence does not fail `sctpbench check`."""
    path = agent_path().with_name(USRSCTP_AGENT)
    if os.access(path, os.X_OK):
        return Check("usrsctp agent", True, str(path))
    return Check("usrsctp agent", False, f"{path} not built (make -C sctpbench/workloads/agent usrsctp)")


def backend_choices() -> list[str]:
    """What `--backend` accepts: auto, then every registered backend."""
    return [AUTO, *registry.names()]


def all_checks() -> list[Check]:
    return [c for backend in registry.every() for c in backend.checks()] + [agent(), usrsctp_agent()]


def choose_backend(requested: str) -> tuple[str | None, str]:
    """The backend asked for if it can run here; `auto` takes the registry's first that can."""
    if requested != AUTO:
        ok, why = registry.get(requested).available()
        return (requested, "") if ok else (None, f"{requested} backend: {why}")
    for name in registry.AUTO:
        if registry.get(name).available()[0]:
            return name, ""
    return None, "no backend can run here: " + "; ".join(f"{c.name}: {c.detail}" for c in all_checks() if not c.ok)


def runnable(requested: str) -> tuple[str | None, str]:
    """The backend a run would use, or None and why nothing can run (no backend, no agent)."""
    backend, why = choose_backend(requested)
    if backend is None:
        return None, why
    built = agent()
    return (backend, "") if built.ok else (None, built.detail)


def check_stack_variants(experiment: Any, backend: str, source: str) -> None:
    """SpecError (one line) when the experiment sets a stack variant (sctp_params: variant)
    that the kernel the backend would run lacks, or an association on stack: usrsctp when
    its agent is not built: refused before anything is built."""
    on_usrsctp = [a for a in experiment.associations if a.stack == "usrsctp"]
    built = usrsctp_agent()
    if on_usrsctp and not built.ok:
        raise SpecError(f"{source}: association {on_usrsctp[0].name}: stack: usrsctp needs {built.detail}")
    asked: dict[str, tuple[str, str]] = {}  # sysctl → (where it was asked, key)
    for where, values in [("sctp", experiment.sctp)] + [(f"{a.name}'s sctp", experiment.association_sctp(a))
                                                        for a in experiment.associations]:
        for key, name in sctp_params.variant_sysctls(values):
            asked.setdefault(name, (where, key))
    if not asked:
        return
    missing, kernel = registry.get(backend).missing_sysctls(list(asked), experiment.clock)
    if missing:
        where, key = asked[missing[0]]
        raise SpecError(f"{source}: {where}.{key}: needs net.sctp.{missing[0]}, which {kernel} lacks (a stack variant "
                        "of the project's kernel, kernel/patches/); allowed: the uml backend with the project's kernel "
                        "(scripts/build-kernel), or leave it unset")
