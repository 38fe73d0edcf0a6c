"""`restore: PATH`: undo fail (the blackhole's filter is deleted)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.events.base import AssociationLike, CommandData, Event, LinkLike, Marker, Rendering
from sctpbench.model.events.fail import blackhole, ingress_qdiscs
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class RestoreEvent(Event):
    name: ClassVar[str] = "restore"
    order: ClassVar[int] = 20
    primitive: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#2ca02c")

    restore: Name = Field(description="undo fail")

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        return blackhole(step, links[step.path], drop=False)

    @classmethod
    def setup(cls, link: LinkLike) -> tuple[CommandData, ...]:
        return ingress_qdiscs(link)
