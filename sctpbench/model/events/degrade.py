"""`degrade: PATH` with `set:`: a step change of shaping values on a path (netem/tbf change).

Also the primitive step of trace and pingpong, which expand into degrade steps; their checks
share `check_changes`. timeline.expand accumulates degrade steps, so each one carries the
complete values of its direction at that moment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, Literal

from pydantic import Field

from sctpbench.model import shaping
from sctpbench.model.events.base import AssociationLike, CommandData, Context, Event, Fail, LinkLike, Marker, Rendering, changes, origin_detail
from sctpbench.model.fields import DirectionOverride, Name
from sctpbench.model.timeline import Step


class DegradeEvent(Event):
    name: ClassVar[str] = "degrade"
    order: ClassVar[int] = 60
    primitive: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#7b3294")

    degrade: Name = Field(description="step change of shaping values (set:) on a path")
    direction: Literal["forward", "reverse", "both"] = "both"
    set: DirectionOverride  # type: ignore[valid-type]

    def check(self, context: Context, fail: Fail) -> None:
        check_changes(self, changes(self.set), context, fail)

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        return [Step(self.at, "degrade", self.target, self.direction, changes(self.set), origin="degrade")]

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        assert step.direction is not None
        at = links[step.path].shaped_at[step.direction]
        commands = tuple(CommandData("tc", tuple(args), at.host) for args in shaping.qdisc_commands(at.ifname, step.values, "change"))
        detail = origin_detail(step)
        return Rendering(commands, confirm=((at.host, at.ifname),), direction=step.direction,
                         detail=f"{step.direction} {' '.join(commands[0].args[7:])}" + (f" ({detail})" if detail else ""))


def check_changes(event: Event, changed: Iterable[str], context: Context, fail: Fail) -> None:
    """A change can alter values but not the qdisc layout the path was built with."""
    keys = set(changed)
    for name in event.paths():
        for which in ("forward", "reverse"):
            if "rate" in keys and not context.shaping[name][which]["rate"]:
                fail(event.name, f"path {name} has no rate to change; give it a rate in the topology")
            if keys & {"queue", "queue_bytes"}:
                fail(event.name, "the queue is fixed when the path is built; change delay, jitter, loss, rate, …")
