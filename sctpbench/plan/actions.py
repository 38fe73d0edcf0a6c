"""Timeline steps made into what the plan does at each moment: the commands and the
devices that confirm them, or the line an agent is told.

Each primitive event kind renders its own steps (model/events/, `render` and `setup`) as
plain data; here that data becomes the plan's Command and TimedAction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast, get_args

from sctpbench.model import timeline
from sctpbench.model.errors import SpecError
from sctpbench.model.events import registry
from sctpbench.model.events.base import CommandLike, Rendering
from sctpbench.plan.data import Association, Command, Link, TimedAction, Tool


def timed_actions(step: timeline.Step, by_path: dict[str, Link], associations: list[Association]) -> list[TimedAction]:
    """What carries out one step: a step told to agents (a primary change) is one action per
    association it concerns, each client told its own peer address; anything else one action."""
    kind = registry.step_kind(step.kind)
    if not kind.agent_control:
        return [_action(step, kind.render(step, by_path, []))]
    concerned = [a for a in associations if kind.concerns(step, a.paths)]
    if not concerned:
        allowed = ", ".join(f"{p.path} ({p.server_address}, {a.name})" for a in associations for p in a.paths)
        raise SpecError(f"events: {step.kind}: {step.path!r} is not a path or peer address of an association; allowed: {allowed}")
    return [_action(step, kind.render(step, by_path, a.paths), [a.client_agent]) for a in concerned]


def _action(step: timeline.Step, r: Rendering, agents: list[str] | None = None) -> TimedAction:
    return TimedAction(step.at_ns, step.kind, step.path, commands=[command(c) for c in r.commands], control=r.control,
                       confirm=[[host, dev] for host, dev in r.confirm], detail=r.detail, direction=r.direction,
                       agents=agents or [])


def path_setup(steps: Sequence[timeline.Step], link: Link) -> list[Command]:
    """What the link needs before the timeline for the steps acting on it (e.g. the ingress
    qdisc a blackhole's filter hangs on), each command once."""
    kinds = dict.fromkeys(s.kind for s in steps if s.path == link.path)
    out: list[Command] = []
    for kind in kinds:
        for c in registry.step_kind(kind).setup(link):
            made = command(c)
            if made not in out:
                out.append(made)
    return out


def command(c: CommandLike) -> Command:
    if c.tool not in get_args(Tool):
        raise ValueError(f"unknown tool {c.tool!r} in a timeline step; allowed: {', '.join(get_args(Tool))}")
    return Command(cast(Tool, c.tool), list(c.args), c.host)
