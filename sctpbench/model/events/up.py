"""`up: PATH`: set the path's interfaces up again, and put back what `down` took with them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.events.base import AssociationLike, Event, LinkLike, Marker, Rendering
from sctpbench.model.events.down import link_state
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class UpEvent(Event):
    name: ClassVar[str] = "up"
    order: ClassVar[int] = 50
    primitive: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#1b7a1b")

    up: Name = Field(description="set them up again (routes restored)")

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        link = links[step.path]
        rendering = link_state(step, link, "up")
        # A link set down loses its routes and neighbour entries; the link's own list restores them.
        return dataclasses.replace(rendering, commands=(*rendering.commands, *link.routes))
