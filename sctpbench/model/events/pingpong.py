"""`pingpong: [PATH, PATH]`: a terminal moving back and forth between two access networks.

At each move the two paths swap their `good` and `bad` conditions; dwell times are drawn
uniformly from `dwell` with the run's seed, so a repetition moves exactly the same way.
With `switch_primary: true` the terminal also hands over at each move, making the path it moved
onto its primary (a `primary` step) and, with `peer: true`, asking the server to do the same
(ASCONF SET-PRIMARY): mobility-driven handover, to compare with a policy deciding from the
stack's measurements (seed 002). Without it, only the shaping moves.
"""

from __future__ import annotations

import random
from typing import ClassVar

from pydantic import Field, model_validator

from sctpbench.model import units
from sctpbench.model.events import _asconf
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
    switch_primary: bool = Field(False, description="at each move, make the path moved onto the client's primary")
    peer: bool = Field(False, description="with switch_primary, also ask the server to use it (ASCONF SET-PRIMARY)")

    @model_validator(mode="after")
    def _dwell_range(self) -> PingpongEvent:
        if not 0 < self.dwell[0] <= self.dwell[1]:
            raise ValueError("dwell: [min, max] with 0 < min <= max")
        if self.peer and not self.switch_primary:
            raise ValueError("peer: only with switch_primary: true (the server is asked to follow the client's primary)")
        return self

    def check(self, context: Context, fail: Fail) -> None:
        span = (self.until if self.until is not None else context.end_ns) - self.at
        steps = max(span, 0) // self.dwell[0]
        if steps > MAX_EVENT_STEPS:
            fail("dwell", f"{units.format_duration(self.dwell[0])} gives up to {steps} steps; "
                          f"allowed: at most {MAX_EVENT_STEPS} (a longer dwell or an until)")
        check_changes(self, {*changes(self.good), *changes(self.bad)}, context, fail)
        if self.switch_primary:
            for path in self.pingpong:
                _asconf.check_path("pingpong", path, context, fail)

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
            if self.switch_primary:
                steps.append(Step(t, "primary", near, origin=origin))
            if self.peer:
                steps.append(Step(t, "peer_primary", near, origin=origin))
            t += rng.randint(self.dwell[0], self.dwell[1])
            on_first = not on_first
        return steps
