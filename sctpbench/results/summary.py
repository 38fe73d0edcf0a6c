"""summary.json: a run's metrics and how it went (analysis/store.py computes it), and a
session's summary of its runs (orchestration/runner.py).

A run's metrics across its associations are RunMetrics' fields, so a wrong name is a type
error (mypy), not a silent None; each association's own metrics under `associations` have
the same names. HEADLINE_METRICS are the ones compare, the campaign's table and the reports
show first.

To add a metric: compute it in analysis (metrics.run_metrics or across_associations), add
its field to RunMetrics here (in the order it is written), its name to TABULATED_METRICS for
the campaign's tables, and show it where wanted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile, version

NAME = "summary.json"

Number = float | int | None
Writer = Callable[[Path, Any], None]


@dataclass(frozen=True)
class RunMetrics:
    """A run's (or an association's) metrics; None where it does not apply or was not measured."""

    mtt_mean_ms: Number = None  # message transfer time, generation to delivery
    mtt_p50_ms: Number = None
    mtt_p99_ms: Number = None
    mmtt_ms: Number = None  # the maximum
    detection_time_ms: Number = None  # failure of the path in use → the client's first notification
    pf_detection_time_ms: Number = None  # … → ADDR_POTENTIALLY_FAILED
    unreachable_time_ms: Number = None  # … → ADDR_UNREACHABLE
    failover_time_ms: Number = None  # … → first delivery on another path
    messages_sent: Number = None
    messages_delivered: Number = None
    messages_affected: Number = None  # later than the pre-failure p99
    pre_failure_p99_ms: Number = None
    utilisation: Number = None  # the busiest path's (analysis/load.py)
    frames_late: Number = None  # video associations
    handover_delay_ms: Number = None  # analysis/handover.py
    handover_delay_max_ms: Number = None
    handover_mtt_mean_ms: Number = None
    handover_mmtt_ms: Number = None
    path_switches: Number = None
    holb_mean_ms: Number = None  # head-of-line blocking at the receiver (analysis/multipath.py)
    holb_p99_ms: Number = None
    holb_share: Number = None  # of the ordered messages, those that waited for an earlier one
    reordered_share: Number = None  # of the messages, those that arrived before one sent earlier
    duplicate_share: Number = None  # of the DATA chunks reaching the server, those whose TSN had already come
    sched_mtt_mean_ms: Number = None  # MTT from the schedule's time, the sender's backlog counted
    sched_mtt_p99_ms: Number = None
    # From the captures (analysis/store.py, _wire): DATA arriving out of TSN order at the
    # receiver, packets on a path with another path's source address, and after the first
    # primary change the chunks acknowledged at +0.5, 1, 2 and 4 s and the time until the
    # new path carries 80 % of its rate.
    reordered_chunks: Number = None
    foreign_source_packets: Number = None
    acked_0_5s_after_switch: Number = None
    acked_1s_after_switch: Number = None
    acked_2s_after_switch: Number = None
    acked_4s_after_switch: Number = None
    new_path_rate_time_ms: Number = None
    competing_tcp_mbps: Number = None  # the competing TCP flows' throughput, summed (analysis/fairness.py)
    jain_fairness: Number = None  # Jain's index over TCP connections' and associations' throughputs
    # Seed 000 Papers IV/V (analysis/startup.py): messages generated in the 2 s from a path
    # switch's cause, measured and as the startup model predicts them with the run's window.
    startup_mtt_mean_ms: Number = None
    startup_mmtt_ms: Number = None
    startup_model_mtt_mean_ms: Number = None
    startup_model_mmtt_ms: Number = None
    startup_model_error_share: Number = None  # |measured − model| / model, of the mean
    # From the captures (analysis/cumtsn.py): bulk progress, the chunks acknowledged (the
    # cumulative TSN ack the sender holds) 10, 30, 60 and 120 s after the workload's start.
    acked_at_10s: Number = None
    acked_at_30s: Number = None
    acked_at_60s: Number = None
    acked_at_120s: Number = None

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: Path | str) -> RunMetrics:
        known = {f.name for f in fields(cls)}
        wrong = [k for k, v in d.items() if k in known and not (v is None or isinstance(v, int | float))]
        if wrong:
            raise jsonfile.ResultsFileError(f"{where}: metrics.{wrong[0]}: {d[wrong[0]]!r} is not a number; "
                                            f"{jsonfile.ALLOWED}")
        return cls(**{k: v for k, v in d.items() if k in known})

    def to_dict(self) -> dict[str, Number]:
        return asdict(self)

    def get(self, name: str) -> Number:
        """A metric by a name given at run time (a campaign's --metrics, a budget)."""
        if name not in METRICS:
            raise KeyError(name)
        value: Number = getattr(self, name)
        return value


METRICS: tuple[str, ...] = tuple(f.name for f in fields(RunMetrics))
# What compare, the campaign's table and the reports show first.
HEADLINE_METRICS: tuple[str, ...] = ("failover_time_ms", "detection_time_ms", "mtt_p50_ms", "mmtt_ms")
# What a campaign's tables hold per run and summarise per configuration, in their columns' order
# (pre_failure_p99_ms is the threshold of messages_affected, not a result of its own).
TABULATED_METRICS: tuple[str, ...] = (
    "mtt_mean_ms", "mtt_p50_ms", "mtt_p99_ms", "mmtt_ms", "detection_time_ms", "failover_time_ms",
    "messages_sent", "messages_delivered", "messages_affected", "pf_detection_time_ms", "unreachable_time_ms",
    "utilisation", "frames_late",
    "handover_delay_ms", "handover_delay_max_ms", "handover_mtt_mean_ms", "handover_mmtt_ms", "path_switches",
    "holb_mean_ms", "holb_p99_ms", "holb_share", "reordered_share", "sched_mtt_mean_ms", "sched_mtt_p99_ms",
    "reordered_chunks", "foreign_source_packets", "acked_0_5s_after_switch", "acked_1s_after_switch",
    "acked_2s_after_switch", "acked_4s_after_switch", "new_path_rate_time_ms",
    "competing_tcp_mbps", "jain_fairness",
    "startup_mtt_mean_ms", "startup_mmtt_ms", "startup_model_mtt_mean_ms", "startup_model_mmtt_ms",
    "startup_model_error_share", "acked_at_10s", "acked_at_30s", "acked_at_60s", "acked_at_120s",
)
assert set(HEADLINE_METRICS) <= set(TABULATED_METRICS) <= set(METRICS)


@dataclass(frozen=True)
class Summary:
    """A run's summary.json: who it was, how it went, its metrics; the rest as written
    (`document`: self-check, events, associations, handover, load, traffic, captures)."""

    run_id: str | None
    repetition: int | None
    seed: int | None
    clock: str | None
    status: str | None  # ok, disturbed, failed
    error: str | None
    metrics: RunMetrics
    document: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: Path) -> Summary:
        metrics = d.get("metrics") if d.get("metrics") is not None else {}
        if not isinstance(metrics, dict):
            raise jsonfile.ResultsFileError(f"{where}: metrics: {type(metrics).__name__}, not an object; {jsonfile.ALLOWED}")
        for key in ("status", "error", "run_id", "clock"):
            if d.get(key) is not None and not isinstance(d[key], str):
                raise jsonfile.ResultsFileError(f"{where}: {key}: {d[key]!r} is not a string; {jsonfile.ALLOWED}")
        return cls(run_id=d.get("run_id"), repetition=d.get("repetition"), seed=d.get("seed"), clock=d.get("clock"),
                   status=d.get("status"), error=d.get("error"), metrics=RunMetrics.from_dict(metrics, where), document=d)


def read_document(folder: Path) -> dict[str, Any] | None:
    """A run's or a session's summary.json as written (upgraded to today's format), or None
    when the run or session never got that far."""
    document = jsonfile.read_optional(folder / NAME)
    return None if document is None else version.upgraded(folder, NAME, document)


def read(run_dir: Path) -> Summary | None:
    """A run's summary, or None when the run never got that far."""
    document = read_document(run_dir)
    return None if document is None else Summary.from_dict(document, run_dir / NAME)


def write(folder: Path, document: dict[str, Any], writer: Writer = jsonfile.write) -> None:
    """A run's (analysis/store.py, the runner when collecting failed) or a session's summary;
    `writer`: lastwords.write_json where a full disk must still let it through."""
    writer(folder / NAME, document)
