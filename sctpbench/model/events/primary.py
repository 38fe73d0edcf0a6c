"""`primary: PATH | ADDRESS`: set the association's primary path (SCTP_PRIMARY_ADDR).

Not a network change: the client agent is told `primary ADDRESS` on its stdin.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from sctpbench.model.addressing import same_address
from sctpbench.model.errors import SpecError
from sctpbench.model.events.base import AssociationLike, Context, Event, Fail, LinkLike, Marker, Rendering, origin_detail
from sctpbench.model.timeline import Step


class PrimaryEvent(Event):
    name: ClassVar[str] = "primary"
    order: ClassVar[int] = 30
    primitive: ClassVar[bool] = True
    agent_control: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#1f77b4")

    primary: str = Field(description="set the primary path (path name or peer address)")

    def paths(self) -> list[str]:
        return []  # a path of the association or an address: checked below, not as a topology path

    def check(self, context: Context, fail: Fail) -> None:
        if not _is_address(self.primary):
            if self.primary not in context.association:
                fail("primary", f"{self.primary!r} is not a path of {'an' if context.several else 'the'} association; "
                                f"allowed: {', '.join(context.association)} or a peer address")
        elif not any(same_address(self.primary, address) for _, address in context.peer_addresses):
            allowed = ", ".join(f"{path} ({address})" for path, address in context.peer_addresses)
            fail("primary", f"{self.primary!r} is not a peer address of {'an' if context.several else 'the'} association; "
                            f"allowed: {allowed}")

    @classmethod
    def concerns(cls, step: Step, association: Sequence[AssociationLike]) -> bool:
        """`primary: PATH` is for every association that path joins, `primary: ADDRESS` for
        the one whose server has that address."""
        return any(step.path == a.path or same_address(step.path, a.server_address) for a in association)

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        return Rendering(control=f"primary {_peer_address(step.path, association)}", detail=origin_detail(step))


def _peer_address(target: str, association: Sequence[AssociationLike]) -> str:
    # A path's name picks its first SCTP path: the IPv4 one of a dual-stack path.
    for a in association:
        if target == a.path or same_address(target, a.server_address):
            return a.server_address
    allowed = ", ".join(f"{a.path} ({a.server_address})" for a in association)
    raise SpecError(f"events: primary: {target!r} is not a peer address of the association; allowed: {allowed}")


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
