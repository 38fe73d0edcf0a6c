"""`fail: PATH`: blackhole both directions of a path; its interfaces stay up.

A drop-everything filter on the ingress of each cut point (the hosts' interfaces, or the
emulator's when paths run through it), so SCTP sees silence, not a link event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.events.base import AssociationLike, CommandData, Event, LinkLike, Marker, Rendering, origin_detail
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class FailEvent(Event):
    name: ClassVar[str] = "fail"
    order: ClassVar[int] = 10
    primitive: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#d62728")

    fail: Name = Field(description="blackhole both directions of a path; its interfaces stay up")

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        return blackhole(step, links[step.path], drop=True)

    @classmethod
    def setup(cls, link: LinkLike) -> tuple[CommandData, ...]:
        return ingress_qdiscs(link)


def blackhole(step: Step, link: LinkLike, drop: bool) -> Rendering:
    """The filter added (drop) or deleted at every cut point of the link."""
    verb = ["filter", "add" if drop else "del", "dev"]
    tail = ["ingress", "pref", "1"] + (["matchall", "action", "drop"] if drop else [])
    ends = link.cut_points
    commands = tuple(CommandData("tc", (*verb, e.ifname, *tail), e.host) for e in ends)
    return Rendering(commands, confirm=tuple((e.host, e.ifname) for e in ends), detail=origin_detail(step))


def ingress_qdiscs(link: LinkLike) -> tuple[CommandData, ...]:
    """The ingress qdisc the blackhole's filter hangs on, made with the network."""
    return tuple(CommandData("tc", ("qdisc", "add", "dev", p.ifname, "ingress"), p.host) for p in link.cut_points)
