"""`set_primary: PATH` (`peer: true`): make PATH the client's primary (a `primary` step) and,
with `peer`, ask the server to make the client's address on PATH its primary too (a
`peer_primary` step, ASCONF SET-PRIMARY), both at `at`."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from sctpbench.model.events import _asconf
from sctpbench.model.events.base import Context, Event, Fail, Marker
from sctpbench.model.fields import Name
from sctpbench.model.timeline import Step


class SetPrimaryEvent(Event):
    name: ClassVar[str] = "set_primary"
    order: ClassVar[int] = 38
    marker: ClassVar[Marker] = Marker("#1f77b4", label="set primary")

    set_primary: Name = Field(description="make this path the client's primary; with peer, the server's too (ASCONF SET-PRIMARY)")
    peer: bool = Field(False, description="also ask the server to use the client's address on the path as its primary")

    def check(self, context: Context, fail: Fail) -> None:
        _asconf.check_path("set_primary", self.set_primary, context, fail)

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        steps = [Step(self.at, "primary", self.set_primary, origin=self.name)]
        if self.peer:
            steps.append(Step(self.at, "peer_primary", self.set_primary, origin=self.name))
        return steps
