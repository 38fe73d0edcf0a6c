"""`flap: PATH`: fail and restore a path periodically (`period`, `duty` down, `count` or `until`)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from sctpbench.model import units
from sctpbench.model.events.base import MAX_EVENT_STEPS, Context, Event, Fail, Marker
from sctpbench.model.fields import Duration, Name
from sctpbench.model.timeline import Step


class FlapEvent(Event):
    name: ClassVar[str] = "flap"
    order: ClassVar[int] = 70
    marker: ClassVar[Marker] = Marker("#d62728", style="--")

    flap: Name = Field(description="fail and restore a path periodically")
    period: Annotated[Duration, Field(gt=0)]
    duty: Annotated[float, Field(gt=0, lt=1)] = 0.5
    count: Annotated[int, Field(ge=1, le=100_000)] | None = None
    until: Duration | None = None

    def check(self, context: Context, fail: Fail) -> None:
        # A flap every nanosecond for a week would be 10¹⁴ steps: refused before expanding.
        if self.count is None:
            span = (self.until if self.until is not None else context.end_ns) - self.at
            steps = 2 * max(span, 0) // self.period
            if steps > MAX_EVENT_STEPS:
                fail("period", f"{units.format_duration(self.period)} gives {steps} steps; "
                               f"allowed: at most {MAX_EVENT_STEPS} (a longer period, a count or an until)")

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        until = self.until if self.until is not None else end_ns
        down_ns = round(self.period * self.duty)
        steps: list[Step] = []
        k = 0
        while (self.count is None or k < self.count) and self.at + k * self.period < until:
            start = self.at + k * self.period
            steps += [Step(start, "fail", self.flap, origin="flap"), Step(start + down_ns, "restore", self.flap, origin="flap")]
            k += 1
        return steps
