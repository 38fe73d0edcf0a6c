"""`trace: PATH`: time-driven delay, rate or loss steps on a path (`field`, and `steps` or `file`).

The file is read at load time (`resolve`), so the timeline gets (offset ns, value) pairs;
its format is model/timeline.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from sctpbench.model import inputfile, timeline, units
from sctpbench.model.errors import SpecError
from sctpbench.model.events.base import Context, Event, Fail, Marker, Where
from sctpbench.model.events.degrade import check_changes
from sctpbench.model.fields import Duration, Name
from sctpbench.model.timeline import Step


class TraceEvent(Event):
    name: ClassVar[str] = "trace"
    order: ClassVar[int] = 80
    marker: ClassVar[Marker] = Marker("#7b3294", style="--")

    trace: Name = Field(description="time-driven delay, rate or loss steps on a path")
    direction: Literal["forward", "reverse", "both"] = "both"
    field: Literal["delay", "rate", "loss"]
    steps: list[tuple[Duration, Any]] | None = None
    file: str | None = None

    @model_validator(mode="after")
    def _steps_or_file(self) -> TraceEvent:
        if (self.steps is None) == (self.file is None):
            raise ValueError("trace needs steps: [[time, value], ...] or file: PATH (one of them)")
        return self

    def check(self, context: Context, fail: Fail) -> None:
        check_changes(self, [self.field], context, fail)

    def resolve(self, base_dir: Path, where: Where) -> TraceEvent:
        try:
            if self.file is not None:
                trace_path = base_dir / self.file
                steps = timeline.parse_trace(inputfile.read_text(trace_path, where("file")), self.field, str(trace_path))
            else:
                rows = "\n".join(f"{units.format_duration(t)} {v}" for t, v in self.steps or [])
                steps = timeline.parse_trace(rows, self.field, where("steps"))
        except ValueError as e:
            raise SpecError(str(e)) from None
        return self.model_copy(update={"steps": steps, "file": None})

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        return [Step(self.at + offset, "degrade", self.trace, self.direction, {self.field: value}, origin=f"trace {self.field}")
                for offset, value in self.steps or []]
