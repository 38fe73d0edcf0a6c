"""A run that contradicts the timer model: more timeouts than Path.Max.Retrans + 1 before the
failed path is declared unreachable. A note in the run's summary says so and why.

The detection model (metrics.DetectionModel) has the path declared unreachable at its
PMR + 1-th consecutive timeout, the RTO backed off at each (doubled, or the project kernel's
net.sctp.rto_backoff_pct). The client's path samples show the failed path's RTO after the
failure: each back-off is one timeout (Linux backs the RTO off in sctp_do_8_2_transport_strike
on every T3-rtx expiry and on every unanswered heartbeat, and nowhere else), so the RTO
steps before the ADDR_UNREACHABLE notification count the timeouts; a sample that is not a
back-off of the one before is an RTO computed afresh from an RTT measurement and starts the
count of steps again from there.

Seen at seed 000's Paper I (20 msg/s, the default 200 ms SACK delay; virtual time): the
primary's RTO went 100 → 1,600 ms, four back-offs, before the path was declared unreachable
3,447 ms after the failure, where PMR 2 gives three and the model 700 ms. Linux declares a
path unreachable when its error count exceeds Path.Max.Retrans, and clears that count,
without undoing the back-off, whenever a SACK acknowledges a TSN last sent on the path
(sctp_check_transmitted, RFC 9260 Sec. 8.2) or a HEARTBEAT-ACK comes back on it
(sctp_cmd_transport_on): an acknowledgement that arrives between two expiries restarts the
count, and detection takes more expiries than the model's.
"""

from __future__ import annotations

from dataclasses import dataclass

from sctpbench.analysis import metrics

MAX_STEPS = 64  # back-offs followed from one RTO to the next sample's before calling it a fresh RTO
KEY = "timeouts"


@dataclass(frozen=True)
class Timeouts:
    """The failed path's RTO back-offs between the failure and its unreachable notification."""

    path: str
    rtos_ms: tuple[float, ...]  # the RTO at the failure, then each value the samples showed after it
    backoffs: int  # timeouts counted from the RTO's steps
    capped: bool  # the RTO sat at RTO.max: back-offs there do not show, backoffs is a lower bound
    unreachable_ms: float  # after the failure


def _steps(frm: float, to: float, rto_max_ms: float, backoff_pct: int) -> int | None:
    """How many back-offs take the RTO from `frm` to `to`; None when none do (a fresh RTO)."""
    series = metrics.rto_series(frm, rto_max_ms, MAX_STEPS + 1, backoff_pct)
    return next((i for i, r in enumerate(series) if r == to), None)


def count(path: str, samples: list[tuple[int, float]], failure_ns: int, unreachable_ns: int | None, rto_max_ms: float,
          backoff_pct: int = metrics.DOUBLING_PCT) -> Timeouts | None:
    """The timeouts the failed path's RTO shows; samples: (t_ns, RTO ms) of the failed peer
    address, in time order. None without a sample before the failure or an unreachable notification."""
    before = [rto for t, rto in samples if t <= failure_ns]
    if unreachable_ns is None or not before:
        return None
    rtos = [float(before[-1])]
    backoffs = 0
    for t, rto in samples:
        if failure_ns < t <= unreachable_ns and float(rto) != rtos[-1]:
            steps = _steps(rtos[-1], float(rto), rto_max_ms, backoff_pct)
            backoffs += steps or 0
            rtos.append(float(rto))
    return Timeouts(path, tuple(rtos), backoffs, rtos[-1] >= rto_max_ms, (unreachable_ns - failure_ns) / 1e6)


def note(association: str, timeouts: Timeouts | None, path_max_retrans: int, sack_delay_ms: float | None) -> tuple[str, str, str] | None:
    """(key, association, text) of the note when the RTO backed off more than PMR + 1 times."""
    if timeouts is None or timeouts.backoffs <= path_max_retrans + 1:
        return None
    at_least = "at least " if timeouts.capped else ""
    steps = " → ".join(f"{r:g}" for r in timeouts.rtos_ms)
    sack = f" (the peer's SACK delay is {sack_delay_ms:g} ms)" if sack_delay_ms else ""
    return (KEY, association,
            f"the timer model does not hold: path {timeouts.path}'s RTO backed off {at_least}{timeouts.backoffs} times "
            f"after the failure ({steps} ms), that many timeouts, before the path was declared unreachable "
            f"{timeouts.unreachable_ms:.0f} ms after it; the model has Path.Max.Retrans + 1 = {path_max_retrans + 1}. "
            "Linux clears a path's error count, without undoing the back-off, when a SACK acknowledges a TSN last sent on "
            "it (sctp_check_transmitted, RFC 9260 Sec. 8.2) or a HEARTBEAT-ACK returns on it (sctp_cmd_transport_on): "
            f"an acknowledgement between two expiries{sack} restarted the count, so detection took more expiries "
            "than the model has.")
