"""`pingpong: [PATH, PATH]`: a terminal moving back and forth between two access networks.

At each move the two paths swap their `good` and `bad` conditions; dwell times are drawn
uniformly from `dwell` with the run's seed, so a repetition moves exactly the same way.
"""

from __future__ import annotations

import random
from typing import ClassVar

from pydantic import Field, model_validator

from sctpbench.model import units
from sctpbench.model.events.base import MAX_EVENT_STEPS, Context, Event, Fail, Marker, changes
from sctpbench.model.events.degrade import check_changes
from sctpbench.model.fields import DirectionOverride, Duration, Name
from sctpbench.model.timeline import Step


class PingpongEvent(Event):
    name: ClassVar[str] = "pingpong"
    order: ClassVar[int] = 90
    marker: ClassVar[Marker] = Marker("#7b3294", style="--")

    pingpong: tuple[Name, Name] = Field(description="a terminal moving between two paths")
    good: DirectionOverride  # type: ignore[valid-type]
    bad: DirectionOverride  # type: ignore[valid-type]
    dwell: tuple[Duration, Duration]
    until: Duration | None = None

    @model_validator(mode="after")
    def _dwell_range(self) -> PingpongEvent:
        if not 0 < self.dwell[0] <= self.dwell[1]:
            raise ValueError("dwell: [min, max] with 0 < min <= max")
        return self

    def check(self, context: Context, fail: Fail) -> None:
        span = (self.until if self.until is not None else context.end_ns) - self.at
        steps = max(span, 0) // self.dwell[0]
        if steps > MAX_EVENT_STEPS:
            fail("dwell", f"{units.format_duration(self.dwell[0])} gives up to {steps} steps; "
                          f"allowed: at most {MAX_EVENT_STEPS} (a longer dwell or an until)")
        check_changes(self, {*changes(self.good), *changes(self.bad)}, context, fail)

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        rng = random.Random(f"pingpong:{seed}:{self.at}")
        first, second = self.pingpong
        good, bad = changes(self.good), changes(self.bad)
        until = self.until if self.until is not None else end_ns
        steps: list[Step] = []
        t, on_first = self.at, True
        while t < until:
            near, far = (first, second) if on_first else (second, first)
            origin = f"pingpong to {near}"
            steps += [Step(t, "degrade", near, "both", good, origin), Step(t, "degrade", far, "both", bad, origin)]
            t += rng.randint(self.dwell[0], self.dwell[1])
            on_first = not on_first
        return steps
