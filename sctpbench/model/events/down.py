"""`down: PATH`: set both hosts' interfaces of the path down (a link event SCTP may see)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.events.base import AssociationLike, CommandData, Event, LinkLike, Marker, Rendering, origin_detail
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class DownEvent(Event):
    name: ClassVar[str] = "down"
    order: ClassVar[int] = 40
    primitive: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#8c0000")

    down: Name = Field(description="set both hosts' interfaces of the path down")

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        return link_state(step, links[step.path], "down")


def link_state(step: Step, link: LinkLike, state: str) -> Rendering:
    """`ip link set dev IF STATE` on both hosts' ends of the path."""
    ends = [link.a, link.b]
    commands = tuple(CommandData("ip", ("link", "set", "dev", e.ifname, state), e.host) for e in ends)
    return Rendering(commands, confirm=tuple((e.host, e.ifname) for e in ends), detail=origin_detail(step))
