"""Timeline steps made into what the plan does at each moment: the commands and the
devices that confirm them, or the line an agent is told."""

from __future__ import annotations

from sctpbench.model import shaping, timeline
from sctpbench.model.addressing import same_address
from sctpbench.model.errors import SpecError
from sctpbench.plan.data import AssociationPath, Command, Link, TimedAction, action_kind


def timed_action(step: timeline.Step, by_path: dict[str, Link], assoc: list[AssociationPath]) -> TimedAction:
    """The commands that carry out one step, and the devices that confirm them."""
    if step.kind == "primary":
        return TimedAction(step.at_ns, "primary", step.path, control=f"primary {_primary_address(step.path, assoc)}")
    link = by_path[step.path]
    detail = step.origin if step.origin != step.kind else ""
    if step.kind in ("fail", "restore"):
        ends = link.cut_points
        verb = ["filter", "add" if step.kind == "fail" else "del", "dev"]
        tail = ["ingress", "pref", "1"] + (["matchall", "action", "drop"] if step.kind == "fail" else [])
        cmds = [Command("tc", [*verb, e.ifname, *tail], e.host) for e in ends]
        return TimedAction(step.at_ns, action_kind(step.kind), step.path, cmds, confirm=[[e.host, e.ifname] for e in ends], detail=detail)
    if step.kind == "degrade":
        assert step.direction is not None
        at = link.shaped_at[step.direction]
        cmds = [Command("tc", args, at.host) for args in shaping.qdisc_commands(at.ifname, step.values, "change")]
        return TimedAction(step.at_ns, "degrade", step.path, cmds, confirm=[[at.host, at.ifname]],
                           detail=f"{step.direction} {' '.join(cmds[0].args[7:])}" + (f" ({detail})" if detail else ""),
                           direction=step.direction)
    ends = [link.a, link.b]
    cmds = [Command("ip", ["link", "set", "dev", e.ifname, step.kind], e.host) for e in ends]
    if step.kind == "up":
        cmds += link.routes
    return TimedAction(step.at_ns, action_kind(step.kind), step.path, cmds, confirm=[[e.host, e.ifname] for e in ends], detail=detail)


def _primary_address(target: str, assoc: list[AssociationPath]) -> str:
    # A path's name picks its first SCTP path: the IPv4 one of a dual-stack path.
    for a in assoc:
        if target == a.path or same_address(target, a.server_address):
            return a.server_address
    allowed = ", ".join(f"{a.path} ({a.server_address})" for a in assoc)
    raise SpecError(f"events: primary: {target!r} is not a peer address of the association; allowed: {allowed}")
