"""`add_address: PATH`: the client adds its address on PATH to the live association
(`sctp_bindx` ADD, an ASCONF ADD-IP to the server; RFC 5061).

A path an association's first address event adds is not bound by its client at start:
the client starts on its other paths, as a mobile node before it reaches a new network
(plan/dar.py). The server binds all its addresses from the start. Needs ASCONF, which the
plan turns on (net.sctp.addip_enable and auth_enable on the association's hosts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.events import _asconf
from sctpbench.model.events.base import AssociationLike, Context, Event, Fail, LinkLike, Marker, Rendering, origin_detail
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class AddAddressEvent(Event):
    name: ClassVar[str] = "add_address"
    order: ClassVar[int] = 32
    primitive: ClassVar[bool] = True
    agent_control: ClassVar[bool] = True
    asconf: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#2ca02c", style=":", label="add address")

    add_address: Name = Field(description="the client adds its address on this path to the association (ASCONF ADD-IP)")

    def check(self, context: Context, fail: Fail) -> None:
        _asconf.check_path("add_address", self.add_address, context, fail)
        if self.add_address in context.first_paths:
            fail("add_address", f"{self.add_address!r} is an association's first path, which its INIT uses and the "
                                "client binds from the start; allowed: a later path of the association")

    @classmethod
    def concerns(cls, step: Step, association: Sequence[AssociationLike]) -> bool:
        return _asconf.concerns(step, association)

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        return Rendering(control=f"addaddr {_asconf.client_address(step, association)}", detail=origin_detail(step))
