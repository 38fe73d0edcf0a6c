"""`delete_address: PATH`: the client deletes its address on PATH from the live association
(`sctp_bindx` REM, an ASCONF DELETE-IP to the server; RFC 5061).

The server's addresses stay paths of the association: only the client's side of PATH goes.
The kernel refuses to delete the association's last address (the run fails with its word).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.events import _asconf
from sctpbench.model.events.base import AssociationLike, Context, Event, Fail, LinkLike, Marker, Rendering, origin_detail
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class DeleteAddressEvent(Event):
    name: ClassVar[str] = "delete_address"
    order: ClassVar[int] = 34
    primitive: ClassVar[bool] = True
    agent_control: ClassVar[bool] = True
    asconf: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#8c564b", style=":", label="delete address")

    delete_address: Name = Field(description="the client deletes its address on this path from the association (ASCONF DELETE-IP)")

    def check(self, context: Context, fail: Fail) -> None:
        _asconf.check_path("delete_address", self.delete_address, context, fail)

    @classmethod
    def concerns(cls, step: Step, association: Sequence[AssociationLike]) -> bool:
        return _asconf.concerns(step, association)

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        return Rendering(control=f"deladdr {_asconf.client_address(step, association)}", detail=origin_detail(step))
