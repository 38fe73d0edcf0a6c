"""Per-run metrics (MTT, MMTT, detection and failover time) and statistics across runs.

Definitions follow the seeds: MTT is the message transfer time from generation at the
sending application to delivery at the receiving one; MMTT its maximum in a run;
detection time runs from the failure injection until the client reports the failed path
unreachable or potentially failed (the first of the two; with PF on both moments are
kept, `pf_detection_time_ms` and `unreachable_time_ms`); failover time from the failure
injection until a message is delivered over another path.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sctpbench.results import summary

# The metrics a campaign tabulates and summarises across runs (results/summary.py owns the names).
METRIC_KEYS = list(summary.TABULATED_METRICS)
DETECTION_STATES = ("ADDR_UNREACHABLE", "ADDR_POTENTIALLY_FAILED")


@dataclass(frozen=True)
class Message:
    seq: int
    t_gen_ns: int
    t_rx_ns: int | None
    path: str | None  # the path it arrived on, None when not delivered

    @property
    def mtt_ns(self) -> int | None:
        return None if self.t_rx_ns is None else self.t_rx_ns - self.t_gen_ns


@dataclass(frozen=True)
class Failure:
    path: str
    applied_ns: int
    peer_address: str  # the server's address on the failed path, as the client sees it


# RFC 4960 6.3.3 E2: a timeout doubles the RTO. The project's kernel takes a relaxed back-off
# instead (net.sctp.rto_backoff_pct, seed 000 Paper II): the RTO times that many percent.
DOUBLING_PCT = 200


def backoff_pct(sysctl: dict[str, Any]) -> int:
    """The RTO's growth per timeout in a host's namespace, from its sysctls read back
    (kernel.json): the project kernel's net.sctp.rto_backoff_pct where set (0, or a kernel
    without it: doubling)."""
    value = str(sysctl.get("rto_backoff_pct", "0"))
    return int(value) if value.isdigit() and int(value) else DOUBLING_PCT


def rto_series(rto_ms: float, rto_max_ms: float, count: int, backoff_pct: int = DOUBLING_PCT) -> list[float]:
    """The RTO of each of `count` consecutive timeouts: from rto_ms, each the one before times
    backoff_pct percent (doubling by default), capped at RTO.max. The kernel works in whole
    jiffies (rto * pct / 100, truncated): so does this, in ms (HZ=1000)."""
    out, rto = [], float(rto_ms)
    for _ in range(count):
        rto = min(rto, float(rto_max_ms))
        out.append(rto)
        rto = rto * 2 if backoff_pct == DOUBLING_PCT else float(math.floor(rto * max(backoff_pct, 100) / 100))
    return out


@dataclass(frozen=True)
class DetectionModel:
    """The RFC timer model: PMR+1 consecutive T3 expiries with doubling RTO, capped at RTO.max.

    With PF on (pf_retrans not None) the path goes potentially failed after pf_retrans+1
    expiries, new data leaves it, and the remaining strikes come from heartbeats that
    Linux sends every RTO/2 + a random [0, RTO) while the path is PF
    (sctp_transport_timeout). A strike needs a heartbeat outstanding, so the first interval
    after PF only sends one: PMR − pf_retrans strikes take one interval more, each up to
    1.5 RTO plus the timer wheel's bucket for it.
    """

    rto_ms: int
    rto_max_ms: int
    path_max_retrans: int
    rtt_ms: float
    sack_delay_ms: float
    message_interval_ms: float
    pf_retrans: int | None = None
    hz: int = 1000
    backoff_pct: int = DOUBLING_PCT  # the RTO's growth per timeout (net.sctp.rto_backoff_pct read back; 0 is 200)

    def _rtos(self, count: int) -> list[float]:
        return rto_series(self.rto_ms, self.rto_max_ms, count, self.backoff_pct)

    @property
    def _per_try_ms(self) -> float:
        """Per expiry: one RTT, one SACK delay, one message gap and 10 ms slack."""
        return self.rtt_ms + self.sack_delay_ms + self.message_interval_ms + 10.0

    @property
    def model_ms(self) -> float:
        return sum(self._rtos(self.path_max_retrans + 1))

    @property
    def pf_model_ms(self) -> float | None:
        return None if self.pf_retrans is None else sum(self._rtos(self.pf_retrans + 1))

    @property
    def pf_bound_ms(self) -> float | None:
        if self.pf_retrans is None or self.pf_model_ms is None:
            return None
        return self.pf_model_ms + (self.pf_retrans + 1) * self._per_try_ms + 50.0

    @property
    def bound_ms(self) -> float:
        """Model plus slack per expiry and 50 ms; with PF on, heartbeat strikes after PF at up to 1.5 RTO."""
        if self.pf_retrans is None or self.pf_retrans >= self.path_max_retrans or self.pf_bound_ms is None:
            return self.model_ms + (self.path_max_retrans + 1) * self._per_try_ms + 50.0
        rtos = self._rtos(self.path_max_retrans + 1)
        intervals = [rtos[self.pf_retrans + 1], *rtos[self.pf_retrans + 1:]]
        return self.pf_bound_ms + sum(1.5 * r + timer_wheel_bucket_ms(1.5 * r, self.hz) + 10.0 for r in intervals)


WHEEL_LEVEL_BITS = 6
WHEEL_CLK_SHIFT = 3


def timer_wheel_bucket_jiffies(delta_jiffies: int) -> int:
    """The bucket width of the level a timer due in delta jiffies is filed in (kernel/time/timer.c):
    it fires at the bucket's end, up to one bucket late."""
    level = 0
    while delta_jiffies >= ((1 << WHEEL_LEVEL_BITS) - 1) << (level * WHEEL_CLK_SHIFT):
        level += 1
    return 1 << (level * WHEEL_CLK_SHIFT)


def timer_wheel_bucket_ms(delay_ms: float, hz: int) -> float:
    return timer_wheel_bucket_jiffies(round(delay_ms * hz / 1000)) * 1000 / hz


def _ms(ns: float | None) -> float | None:
    return None if ns is None else ns / 1e6


def mtt_stats(messages: list[Message]) -> dict[str, float | None]:
    mtts = np.array([m.mtt_ns for m in messages if m.mtt_ns is not None], dtype=float)
    if mtts.size == 0:
        return {"mtt_mean_ms": None, "mtt_p50_ms": None, "mtt_p99_ms": None, "mmtt_ms": None}
    return {
        "mtt_mean_ms": float(mtts.mean()) / 1e6,
        "mtt_p50_ms": float(np.percentile(mtts, 50)) / 1e6,
        "mtt_p99_ms": float(np.percentile(mtts, 99)) / 1e6,
        "mmtt_ms": float(mtts.max()) / 1e6,
    }


def detection_ns(failure: Failure, changes: list[tuple[int, str, str]], states: tuple[str, ...] = DETECTION_STATES) -> int | None:
    """changes: (t_ns, peer address, state) from the client's SCTP_PEER_ADDR_CHANGE log."""
    times = [t for t, addr, state in changes if addr == failure.peer_address and state in states and t >= failure.applied_ns]
    return min(times) - failure.applied_ns if times else None


def failover_ns(failure: Failure, messages: list[Message]) -> int | None:
    times = [m.t_rx_ns for m in messages if m.t_rx_ns is not None and m.t_rx_ns >= failure.applied_ns and m.path not in (None, failure.path)]
    return min(times) - failure.applied_ns if times else None


# How far above the pre-failure p99 a message must arrive to count as affected: one
# millisecond, a jiffy of the project's kernel (HZ=1000) and so the finest step any SCTP
# timer takes. A failure delays a message by at least an RTO (RTO.Min ≥ 1 ms, usually far
# more), so nothing the failure did is missed, while the tail of a near-constant series
# (10 ms ± the clock's reads) no longer tips messages over the line: a margin of zero
# counted 77 on paced and 74 on virtual time for the same run.
AFFECTED_MARGIN_NS = 1_000_000


def affected(failure: Failure | None, messages: list[Message]) -> tuple[int | None, float | None]:
    """Messages whose MTT exceeds the pre-failure p99 by more than AFFECTED_MARGIN_NS, and that p99 (ms)."""
    if failure is None:
        return None, None
    before = np.array([m.mtt_ns for m in messages if m.mtt_ns is not None and m.t_gen_ns < failure.applied_ns], dtype=float)
    if before.size == 0:
        return None, None
    p99 = float(np.percentile(before, 99))
    threshold = p99 + AFFECTED_MARGIN_NS
    return sum(1 for m in messages if m.mtt_ns is not None and m.mtt_ns > threshold), p99 / 1e6


def run_metrics(messages: list[Message], sent: int, failure: Failure | None, changes: list[tuple[int, str, str]]) -> dict[str, float | int | None]:
    out: dict[str, float | int | None] = dict(mtt_stats(messages))
    out["detection_time_ms"] = _ms(detection_ns(failure, changes)) if failure else None
    out["pf_detection_time_ms"] = _ms(detection_ns(failure, changes, ("ADDR_POTENTIALLY_FAILED",))) if failure else None
    out["unreachable_time_ms"] = _ms(detection_ns(failure, changes, ("ADDR_UNREACHABLE",))) if failure else None
    out["failover_time_ms"] = _ms(failover_ns(failure, messages)) if failure else None
    out["messages_sent"] = sent
    out["messages_delivered"] = sum(1 for m in messages if m.t_rx_ns is not None)
    out["messages_affected"], out["pre_failure_p99_ms"] = affected(failure, messages)
    return out


# The event metrics: per association the time from the failure of the path it was using.
EVENT_KEYS = ("detection_time_ms", "pf_detection_time_ms", "unreachable_time_ms", "failover_time_ms")
COUNT_KEYS = ("messages_sent", "messages_delivered", "messages_affected", "frames_late")


def across_associations(per_association: dict[str, dict[str, float | int | None]],
                        messages: list[Message], utilisation: float | None = None,
                        handover: dict[str, float | int | None] | None = None) -> dict[str, float | int | None]:
    """The run's metrics across its associations (each association's own are kept beside them).

    - MTT mean, p50, p99 and MMTT: of every association's messages pooled (a message counts
      once, whichever association carried it);
    - messages sent, delivered and affected: sums (a message is affected against its own
      association's pre-failure p99);
    - detection, PF detection, unreachable and failover time: the largest among the
      associations whose path in use failed, the moment the slowest of them had detected
      or failed over (None when a failure hit none of them); pre_failure_p99_ms likewise
      the largest;
    - frames late (video associations): the sum; utilisation: the given one, the busiest
      path's (analysis/load.py), since associations sharing a path add up;
    - handover delay, MTT and MMTT around handovers and path switches: the given ones, from
      every association's switches pooled (analysis/handover.py: handover_metrics).
    With one association every figure is that association's, but utilisation its path's.
    """
    out: dict[str, float | int | None] = dict(mtt_stats(messages))
    runs = list(per_association.values())
    for key in EVENT_KEYS:
        out[key] = _largest(r.get(key) for r in runs)
    for key in COUNT_KEYS:
        values = [r.get(key) for r in runs]
        out[key] = None if all(v is None for v in values) else sum(int(v) for v in values if v is not None)
    out["pre_failure_p99_ms"] = _largest(r.get("pre_failure_p99_ms") for r in runs)
    out["utilisation"] = utilisation
    out |= handover or {}
    return {k: out[k] for k in runs[0]} if runs else out


def _largest(values: Iterable[float | int | None]) -> float | int | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


# ---------------------------------------------------------------------------- across runs


def mean_ci95(values: list[float]) -> dict[str, float | int | None]:
    """Mean and the half-width of the 95% confidence interval (Student's t, n-1 dof)."""
    xs = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    n = len(xs)
    if n == 0:
        return {"mean": None, "ci95": None, "n": 0}
    mean = sum(xs) / n
    if n == 1:
        return {"mean": mean, "ci95": None, "n": 1}
    sd = float(np.std(xs, ddof=1))
    return {"mean": mean, "ci95": _t975(n - 1) * sd / math.sqrt(n), "n": n}


@functools.cache
def _t975(dof: int) -> float:
    """Student's t 97.5 % quantile; remembered, as scipy takes a millisecond to compute it
    and a campaign's configs.parquet asks for it per configuration and metric."""
    # scipy.special's stdtrit is what scipy.stats.t.ppf computes, the same value to the bit;
    # scipy.stats takes 1.6 CPU-s to import here, scipy.special 0.6 (a single run needs neither).
    from scipy import special

    return float(special.stdtrit(dof, 0.975))


def summarize(runs: list[dict[str, float | int | None]], keys: list[str] = METRIC_KEYS) -> dict[str, dict[str, float | int | None]]:
    return {k: mean_ci95([r.get(k) for r in runs]) for k in keys}  # type: ignore[misc]
