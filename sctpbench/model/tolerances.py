"""The timing self-check's tolerances: data of the experiment file, judged by analysis/selfcheck.py."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Tolerances:
    """What a run may show before it is `disturbed`; `measure.selfcheck` overrides them.

    Defaults from the project's guest kernel (HZ=1000) on the real clock, failover example,
    2-CPU host (bench/clock_fidelity.py): idle, sender lateness p99 0.3 ms, max 3 ms, event
    lag 6.7 ms; beside four busy loops, p99 6.4 ms, max 6.7 ms, event lag 27 ms (and seconds
    under heavier load). On virtual time all of them are about zero. The defaults sit above
    idle and below that load. Debian's kernel (HZ=100) applies events 10–34 ms late even
    idle: raise `event_lag` there.
    """

    enabled: bool = True  # False: figures are recorded, the status is never `disturbed`
    lateness_p99_ns: int = 5_000_000
    lateness_max_ns: int = 50_000_000
    event_lag_ns: int = 20_000_000  # the largest lag of any timeline action
    delay_over_pct: float = 25.0  # achieved above expected by more than this share of it…
    delay_slack_ns: int = 5_000_000  # …and by more than this
    delay_under_ns: int = 1_000_000  # achieved below the configured delay by more than this

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Tolerances:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
