"""cost.json: where a run's host time went, phase by phase (files.py; backends/phases.py measures).

One writer (the runner, once the run is collected) and one reader (`read`, for reports and
bench/run_cost.py). Figures are the host's: wall seconds of its monotonic clock and CPU
seconds of the whole process tree, which change with the host's load and never enter the
run's own figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "cost.json"


@dataclass(frozen=True)
class PhaseCost:
    name: str
    wall_s: float
    cpu_s: float
    switches: int

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PhaseCost:
        return cls(str(d["name"]), float(d["wall_s"]), float(d["cpu_s"]), int(d.get("switches", 0)))


@dataclass(frozen=True)
class RunCost:
    phases: tuple[PhaseCost, ...]

    @property
    def wall_s(self) -> float:
        return sum(p.wall_s for p in self.phases)

    @property
    def cpu_s(self) -> float:
        return sum(p.cpu_s for p in self.phases)

    def phase(self, name: str) -> PhaseCost | None:
        return next((p for p in self.phases if p.name == name), None)


def write(run_dir: Path, phases: list[dict[str, Any]]) -> None:
    jsonfile.write(run_dir / NAME, {"clock": "the host's (monotonic wall time, CPU time of the process tree)",
                                    "phases": phases})


def read(run_dir: Path) -> RunCost | None:
    """None for a run folder from before cost.json, or one whose run never got that far."""
    document = jsonfile.read_optional(run_dir / NAME)
    if document is None:
        return None
    try:
        return RunCost(tuple(PhaseCost.from_dict(p) for p in document["phases"]))
    except (KeyError, TypeError, ValueError):
        raise jsonfile.ResultsFileError(f"{run_dir / NAME}: not as sctpbench wrote it; {jsonfile.ALLOWED}") from None
