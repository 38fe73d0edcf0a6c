"""Timeline steps made into what the plan does at each moment: the commands and the
devices that confirm them, or the line an agent is told."""

from __future__ import annotations

from sctpbench.model import shaping, timeline
from sctpbench.model.errors import SpecError
from sctpbench.plan.data import Association, Command, Link, TimedAction, action_kind


def timed_actions(step: timeline.Step, by_path: dict[str, Link], associations: list[Association]) -> list[TimedAction]:
    """What carries out one step: a primary change is one control per association it
    concerns (each client is told its own peer address), anything else one action."""
    if step.kind == "primary":
        return _primary(step, associations)
    return [timed_action(step, by_path)]


def _primary(step: timeline.Step, associations: list[Association]) -> list[TimedAction]:
    """`primary: PATH` applies to every association that path joins; `primary: ADDRESS`
    to the association whose server has that address."""
    concerned = [(a, p) for a in associations for p in a.paths if step.path in (p.path, p.server_address)]
    if not concerned:
        allowed = ", ".join(f"{p.path} ({p.server_address}, {a.name})" for a in associations for p in a.paths)
        raise SpecError(f"events: primary: {step.path!r} is not a peer address of an association; allowed: {allowed}")
    return [TimedAction(step.at_ns, "primary", step.path, control=f"primary {p.server_address}", agents=[a.client_agent])
            for a, p in concerned]


def timed_action(step: timeline.Step, by_path: dict[str, Link]) -> TimedAction:
    """The commands that carry out one step on a path, and the devices that confirm them."""
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
