"""A toy event kind, added by this one module: `mtu: PATH` sets both ends' interface MTU
to `size` bytes, and back to 1500 after `hold`, if given.

Not part of sctpbench: tests/unit/test_event_registry.py puts this folder on the events
package's path to show that a kind needs nothing besides its module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, ClassVar

from pydantic import Field

from sctpbench.model import units
from sctpbench.model.events.base import AssociationLike, CommandData, Context, Event, Fail, LinkLike, Marker, Rendering, origin_detail
from sctpbench.model.fields import Duration, Name
from sctpbench.model.timeline import Step

ETHERNET_MTU = 1500


class MtuEvent(Event):
    name: ClassVar[str] = "mtu"
    order: ClassVar[int] = 200
    primitive: ClassVar[bool] = True
    marker: ClassVar[Marker] = Marker("#17becf", style=":", label="MTU")

    mtu: Name = Field(description="set the path's interface MTU on both hosts")
    size: Annotated[int, Field(ge=576, le=65535)]
    hold: Duration | None = Field(default=None, description="then back to 1500 bytes after this long")

    def check(self, context: Context, fail: Fail) -> None:
        if self.hold is not None and self.at + self.hold > context.end_ns:
            fail("hold", f"the MTU would come back after the workload ends ({units.format_duration(context.end_ns)})")

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        steps = [Step(self.at, "mtu", self.mtu, values={"size": self.size}, origin="mtu")]
        if self.hold is not None:
            steps.append(Step(self.at + self.hold, "mtu", self.mtu, values={"size": ETHERNET_MTU}, origin="mtu hold"))
        return steps

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        link = links[step.path]
        ends = [link.a, link.b]
        size = str(step.values["size"])
        commands = tuple(CommandData("ip", ("link", "set", "dev", e.ifname, "mtu", size), e.host) for e in ends)
        return Rendering(commands, confirm=tuple((e.host, e.ifname) for e in ends), detail=f"{size} bytes {origin_detail(step)}".strip())
