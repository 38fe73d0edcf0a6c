"""Timeline steps made into what the plan does at each moment: the commands and the
devices that confirm them, or the line an agent is told.

Each primitive event kind renders its own steps (model/events/, `render` and `setup`) as
plain data; here that data becomes the plan's Command and TimedAction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast, get_args

from sctpbench.model import timeline
from sctpbench.model.events import registry
from sctpbench.model.events.base import CommandLike
from sctpbench.plan.data import AssociationPath, Command, Link, TimedAction, Tool


def timed_action(step: timeline.Step, by_path: dict[str, Link], assoc: list[AssociationPath]) -> TimedAction:
    """The commands that carry out one step, and the devices that confirm them."""
    r = registry.step_kind(step.kind).render(step, by_path, assoc)
    return TimedAction(step.at_ns, step.kind, step.path, commands=[command(c) for c in r.commands], control=r.control,
                       confirm=[[host, dev] for host, dev in r.confirm], detail=r.detail, direction=r.direction)


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
