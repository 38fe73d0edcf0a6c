"""`handover: FROM` `to: PATH`: an mSCTP handover of the client from one path to another
with dynamic address reconfiguration (RFC 5061), as steps:

- at `at`: `add_address: TO` (ASCONF ADD-IP);
- `primary_after` later (default 1 s): `primary: TO` and, unless `peer: false`,
  `peer_primary: TO` (ASCONF SET-PRIMARY);
- `delete_after` after that (default 1 s): `delete_address: FROM` (ASCONF DELETE-IP).

TO is therefore not bound by the client at start (add_address.py), and must not be the
association's first path; FROM must be bound then.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from sctpbench.model.events import _asconf
from sctpbench.model.events.base import Context, Event, Fail, Marker
from sctpbench.model.fields import Duration, Name
from sctpbench.model.timeline import Step

SECOND = 1_000_000_000


class HandoverEvent(Event):
    name: ClassVar[str] = "handover"
    order: ClassVar[int] = 39
    marker: ClassVar[Marker] = Marker("#9467bd", label="handover")

    handover: Name = Field(description="the path the client hands over from (its address is deleted last)")
    to: Name = Field(description="the path the client hands over to (its address is added first)")
    primary_after: Annotated[Duration, Field(ge=0, description="from adding the new address to making it primary")] = SECOND
    delete_after: Annotated[Duration, Field(ge=0, description="from making it primary to deleting the old address")] = SECOND
    peer: bool = Field(True, description="also ask the server to make the new address its primary (ASCONF SET-PRIMARY)")

    def paths(self) -> list[str]:
        return [self.handover, self.to]

    def check(self, context: Context, fail: Fail) -> None:
        _asconf.check_path("handover", self.handover, context, fail)
        _asconf.check_path("to", self.to, context, fail)
        if self.to == self.handover:
            fail("to", f"{self.to!r} is the path handed over from; allowed: another path of the association")
        if self.to in context.first_paths:
            fail("to", f"{self.to!r} is an association's first path, which its INIT uses and the client binds from "
                       "the start; allowed: a later path of the association")
        if self.at + self.primary_after + self.delete_after > context.end_ns:
            fail("delete_after", "the handover's last step is after the workload ends")

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        t_primary = self.at + self.primary_after
        steps = [Step(self.at, "add_address", self.to, origin=self.name), Step(t_primary, "primary", self.to, origin=self.name)]
        if self.peer:
            steps.append(Step(t_primary, "peer_primary", self.to, origin=self.name))
        steps.append(Step(t_primary + self.delete_after, "delete_address", self.handover, origin=self.name))
        return steps
