"""`peer_primary: PATH`: the client asks the server to make the client's address on PATH its
primary (SCTP_SET_PEER_PRIMARY_ADDR, an ASCONF SET-PRIMARY; RFC 5061).

The address must be one the association uses (bound from the start, or added before).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.events import _asconf
from sctpbench.model.events.base import AssociationLike, Context, Event, Fail, LinkLike, Marker, Rendering, origin_detail
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class PeerPrimaryEvent(Event):
    name: ClassVar[str] = "peer_primary"
    order: ClassVar[int] = 36
    primitive: ClassVar[bool] = True
    agent_control: ClassVar[bool] = True
    asconf: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#17becf", label="peer primary")

    peer_primary: Name = Field(description="ask the server to make the client's address on this path its primary (ASCONF SET-PRIMARY)")

    def check(self, context: Context, fail: Fail) -> None:
        _asconf.check_path("peer_primary", self.peer_primary, context, fail)

    @classmethod
    def concerns(cls, step: Step, association: Sequence[AssociationLike]) -> bool:
        return _asconf.concerns(step, association)

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        return Rendering(control=f"peerprimary {_asconf.client_address(step, association)}", detail=origin_detail(step))
