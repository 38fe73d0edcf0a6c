"""Dynamic address reconfiguration (RFC 5061) in a plan: what an association's address
steps (model/events/: add_address, delete_address, peer_primary) need before the run.

- The client starts without the address of each path whose first address step is
  `add_address` (a mobile node that has not reached that network yet); the server binds
  all its addresses.
- ASCONF is on at both hosts of such an association: Linux 6.1 sends and accepts ASCONF
  only with net.sctp.addip_enable=1 and, since ASCONF must be authenticated, auth_enable=1
  (the agent's RECORDS.md, "Dynamic address reconfiguration"). A socket copies both when
  it is made, so they are written with the other sysctls, before the agents start.
"""

from __future__ import annotations

from collections.abc import Sequence

from sctpbench.model.events import registry
from sctpbench.model.timeline import Step
from sctpbench.plan.data import Association, AssociationPath

ASCONF_SYSCTLS = ("net.sctp.addip_enable=1", "net.sctp.auth_enable=1")
ADDRESS_STEPS = ("add_address", "delete_address")


def _steps_of(steps: Sequence[Step], paths: Sequence[AssociationPath]) -> list[Step]:
    return [s for s in steps if registry.step_kind(s.kind).asconf and registry.step_kind(s.kind).concerns(s, paths)]


def uses_asconf(steps: Sequence[Step], paths: Sequence[AssociationPath]) -> bool:
    """Whether an association with these paths has address steps: its hosts need ASCONF."""
    return bool(_steps_of(steps, paths))


def bound_at_start(steps: Sequence[Step], association: Association) -> list[AssociationPath]:
    """The association's paths whose client address is bound when the client starts: all
    but the one address add_address adds (a dual-stack path's first) of each path whose
    first address step adds it."""
    first: dict[str, str] = {}
    for s in _steps_of(steps, association.paths):
        if s.kind in ADDRESS_STEPS:
            first.setdefault(s.path, s.kind)
    later = {path for path, kind in first.items() if kind == "add_address"}
    out: list[AssociationPath] = []
    for p in association.paths:
        if p.path in later:
            later.discard(p.path)  # only the first address of the path, the one added
            continue
        out.append(p)
    return out
