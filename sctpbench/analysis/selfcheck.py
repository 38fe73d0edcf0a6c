"""The timing self-check of every run: did the machine keep the time the experiment asked for?

On the real clock a guest shares the host's CPUs, and a busy host stretches every timing
in it: a 10 ms path turns into seconds of MTT while the run still looks fine. Three checks,
from what every run records anyway, tell such a run apart:

- sender lateness: how late the client generated each message against its schedule
  (T_GEN − T_SCHED of the `tx` records; saturate has no schedule);
- event lag: how late the timeline applied each action (events.jsonl);
- delay: per path, a low quantile of the MTT of messages delivered before the first
  injected event against the configured one-way delay of the client → server direction.
  Below it by more than a small margin, the clock is wrong; above it by more than the
  tolerance, the path was slowed by something other than netem.

A run outside a tolerance is `disturbed`: its numbers are kept, but they are not the
experiment's. The figures are recorded within tolerance too, so the margin shows.

Standard library only; the tolerances are the experiment file's (model/tolerances.py).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from sctpbench.model.addressing import ip_header_bytes
from sctpbench.model.tolerances import Tolerances

# Low enough to skip messages that queued behind a retransmission or a burst, high enough
# that one odd message does not decide.
DELAY_QUANTILE = 10.0
MIN_DELAY_SAMPLES = 5
# A path that carried only a small share of the messages before the first event carried
# retransmissions (lost on the primary, resent on an alternate): their MTT holds an RTO.
MIN_PATH_SHARE = 0.25
# With Nagle on, a message waits for the acknowledgement of what is in flight: only those
# that found nothing in flight (the fastest) cross in the path's own time.
NAGLE_QUANTILE = 0.0
# Per packet on a shaped link: Ethernet 14, IP (IPv4 20, IPv6 40), SCTP common header 12,
# DATA chunk 16; the IPv4 figures are the constants.
HEADER_BYTES = 62
PAYLOAD_PER_PACKET = 1500 - 20 - 12 - 16


def header_bytes(family: str = "ipv4") -> int:
    return 14 + ip_header_bytes(family) + 12 + 16


def payload_per_packet(family: str = "ipv4") -> int:
    return 1500 - ip_header_bytes(family) - 12 - 16
# netem's jitter distributions put a low quantile within about two jitters of the delay.
JITTER_WIDTH = 2.0
# A workload offering this share of a path's rate or more queues by design: its MTT says
# nothing about the clock.
MAX_OFFERED_SHARE = 0.9


@dataclass(frozen=True)
class Reason:
    check: str  # lateness_p99, lateness_max, event_lag, delay_over, delay_under
    measured_ms: float
    tolerance_ms: float
    detail: str
    path: str | None = None  # the delay checks' path


@dataclass(frozen=True)
class PathDelay:
    """The client → server direction of one path, as configured."""

    path: str
    direction: str  # forward or reverse: the one client → server messages take
    delay_ns: int
    jitter_ns: int = 0
    rate_bps: int | None = None
    family: str = "ipv4"  # the path's: its IP header counts in the serialisation time
    # With several associations each path entry is one association's and carries its
    # workload (and `path` is ASSOC/PATH); None: the run's one workload.
    workload: Workload | None = None
    association: str = ""  # whose messages it is judged on (its deliveries name the same)
    # What the other senders on this path and direction offer (bit/s): associations that
    # start on it, background UDP; infinite beside a bulk TCP flow, which fills any queue.
    shared_bps: float = 0.0


@dataclass
class Result:
    tolerances: Tolerances
    lateness: dict[str, Any] | None = None
    event_lag: dict[str, Any] | None = None
    delay: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # checks not made, and why
    reasons: list[Reason] = field(default_factory=list)

    @property
    def disturbed(self) -> bool:
        return self.tolerances.enabled and bool(self.reasons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.reasons, "enabled": self.tolerances.enabled, "tolerances": self.tolerances.to_dict(),
            "lateness": self.lateness, "event_lag": self.event_lag, "delay": self.delay, "skipped": self.skipped,
            "reasons": [asdict(r) for r in self.reasons],
        }


def quantile(values: list[float], q: float) -> float:
    """The q-th percentile, linear between the closest ranks (numpy's default)."""
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _ms(ns: float) -> float:
    return round(ns / 1e6, 3)


# ---------------------------------------------------------------------------- sender lateness


def periodic_schedule(seq: int, t0_ns: int, rate: float) -> int:
    """Message seq's slot as the agent computes it (arrival.c): from t0 each time."""
    return t0_ns + round(seq * 1e9 / rate)


def lateness(pairs: list[tuple[int, int]]) -> dict[str, Any] | None:
    """(T_GEN, T_SCHED) per message → how late generation was, in ms."""
    late = [float(gen - sched) for gen, sched in pairs]
    if not late:
        return None
    return {"n": len(late), "p50_ms": _ms(quantile(late, 50)), "p99_ms": _ms(quantile(late, 99)), "max_ms": _ms(max(late))}


def _check_lateness(result: Result, figures: dict[str, Any] | None) -> None:
    tol = result.tolerances
    if figures is None:
        return
    for check, key, limit in (("lateness_p99", "p99_ms", tol.lateness_p99_ns), ("lateness_max", "max_ms", tol.lateness_max_ns)):
        if figures[key] > limit / 1e6:
            what = key.removesuffix("_ms")
            result.reasons.append(Reason(check, figures[key], _ms(limit),
                                         f"sender lateness {what} {figures[key]:.2f} ms > {_ms(limit):g} ms"))


# ---------------------------------------------------------------------------- event lag


def event_lag(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """events.jsonl records → the largest lag; the workload's start is the agent's own."""
    timed = [e for e in events if e.get("kind") != "start" and e.get("lag_ns") is not None]
    if not timed:
        return None
    worst = max(timed, key=lambda e: e["lag_ns"])
    return {"n": len(timed), "max_ms": _ms(worst["lag_ns"]),
            "worst": f"t0+{worst['at_ns'] / 1e9:.3f}s {worst['kind']} {worst['target']}"}


def _check_event_lag(result: Result, figures: dict[str, Any] | None) -> None:
    limit = result.tolerances.event_lag_ns
    if figures is not None and figures["max_ms"] > limit / 1e6:
        result.reasons.append(Reason("event_lag", figures["max_ms"], _ms(limit),
                                     f"event lag {figures['max_ms']:.2f} ms > {_ms(limit):g} ms ({figures['worst']})"))


# ---------------------------------------------------------------------------- delay


def serialisation_ns(size: int, rate_bps: int | None, family: str = "ipv4") -> float:
    """Time to put one message on a rate-limited link, headers included."""
    if not rate_bps:
        return 0.0
    return _wire_bytes(size, family) * 8 / rate_bps * 1e9


def offered_bps(size: int, message_rate: float, family: str = "ipv4") -> float:
    return _wire_bytes(size, family) * 8 * message_rate


def _wire_bytes(size: int, family: str) -> int:
    packets = max(1, math.ceil(size / payload_per_packet(family)))
    return size + packets * header_bytes(family)


def delay_figures(path: PathDelay, mtts_ns: list[int], size: int, q: float, tol: Tolerances) -> dict[str, Any]:
    """The achieved low quantile against the window the configuration allows.

    A token bucket lets a lone message through without waiting for its serialisation, so
    serialisation only widens the upper side; jitter widens both."""
    serial = serialisation_ns(size, path.rate_bps, path.family)
    expected = path.delay_ns + serial
    spread = JITTER_WIDTH * path.jitter_ns
    low = path.delay_ns - spread - tol.delay_under_ns
    high = expected + spread + max(tol.delay_slack_ns, expected * tol.delay_over_pct / 100)
    achieved = quantile([float(m) for m in mtts_ns], q)
    return {"path": path.path, "direction": path.direction, "n": len(mtts_ns), "quantile": q,
            "configured_ms": _ms(path.delay_ns), "jitter_ms": _ms(path.jitter_ns), "serialisation_ms": _ms(serial),
            "expected_ms": _ms(expected), "achieved_ms": _ms(achieved), "excess_ms": _ms(achieved - expected),
            "low_ms": _ms(max(0, low)), "high_ms": _ms(high)}


def _check_delay(result: Result, figures: dict[str, Any]) -> None:
    where = f"{figures['path']} {figures['direction']}: MTT p{figures['quantile']:g} {figures['achieved_ms']:.2f} ms"
    if figures["achieved_ms"] > figures["high_ms"]:
        result.reasons.append(Reason("delay_over", figures["achieved_ms"], figures["high_ms"],
                                     f"{where} above the configured {figures['expected_ms']:g} ms by more than allowed "
                                     f"(at most {figures['high_ms']:g} ms)", figures["path"]))
    elif figures["achieved_ms"] < figures["low_ms"]:
        result.reasons.append(Reason("delay_under", figures["achieved_ms"], figures["low_ms"],
                                     f"{where} below the configured {figures['configured_ms']:g} ms "
                                     f"(at least {figures['low_ms']:g} ms): the clock is not the path's", figures["path"]))


@dataclass(frozen=True)
class Workload:
    arrival: str  # periodic, poisson, saturate
    rate: float  # messages per second
    size: int
    nagle: bool  # SCTP_NODELAY not requested


@dataclass(frozen=True)
class Delivery:
    path: str | None  # arrival path
    t_rx_ns: int | None
    mtt_ns: int | None
    association: str = ""


def _delay_checks(result: Result, paths: list[PathDelay], deliveries: list[Delivery], workload: Workload,
                  first_event_ns: int | None) -> None:
    if workload.arrival == "saturate" and all(p.workload is None for p in paths):
        result.skipped.append("delay: a saturating workload queues by design")
        return
    before = [d for d in deliveries if d.mtt_ns is not None and d.t_rx_ns is not None
              and (first_event_ns is None or d.t_rx_ns < first_event_ns)]
    for path in paths:
        own = path.workload or workload
        if own.arrival == "saturate":
            result.skipped.append(f"delay: {path.path}: a saturating workload queues by design")
            continue
        q = NAGLE_QUANTILE if own.nagle else DELAY_QUANTILE
        # The path's share is of its own association's messages, not of every association's.
        mine = [d for d in before if d.association == path.association]
        if path.rate_bps and offered_bps(own.size, own.rate, path.family) >= MAX_OFFERED_SHARE * path.rate_bps:
            result.skipped.append(f"delay: {path.path}: the workload offers {MAX_OFFERED_SHARE:.0%} of its rate or more")
            continue
        if path.shared_bps == math.inf:
            result.skipped.append(f"delay: {path.path}: shared with a bulk TCP flow, whose queue it waits in")
            continue
        if path.rate_bps and offered_bps(own.size, own.rate, path.family) + path.shared_bps >= MAX_OFFERED_SHARE * path.rate_bps:
            result.skipped.append(f"delay: {path.path}: its senders together offer {MAX_OFFERED_SHARE:.0%} of its rate or more")
            continue
        mtts = [d.mtt_ns for d in mine if d.path == path.path and d.mtt_ns is not None]
        if len(mtts) < MIN_DELAY_SAMPLES:
            if any(d.path == path.path for d in deliveries):
                result.skipped.append(f"delay: {path.path}: {len(mtts)} message(s) delivered before the first event")
            continue
        if len(mtts) < MIN_PATH_SHARE * len(mine):
            result.skipped.append(f"delay: {path.path}: {len(mtts)} of {len(mine)} messages before the first event, "
                                  "retransmissions rather than the path's own traffic")
            continue
        figures = delay_figures(path, mtts, own.size, q, result.tolerances)
        result.delay.append(figures)
        _check_delay(result, figures)


# ---------------------------------------------------------------------------- the whole check


def evaluate(tol: Tolerances, schedule_pairs: list[tuple[int, int]], events: list[dict[str, Any]],
             paths: list[PathDelay], deliveries: list[Delivery], workload: Workload) -> Result:
    result = Result(tol)
    result.lateness = lateness(schedule_pairs)
    if result.lateness is None:
        result.skipped.append("lateness: no scheduled messages" + (" (saturate)" if workload.arrival == "saturate" else ""))
    _check_lateness(result, result.lateness)
    result.event_lag = event_lag(events)
    _check_event_lag(result, result.event_lag)
    applied = [e["applied_ns"] for e in events if e.get("kind") != "start" and e.get("applied_ns") is not None]
    _delay_checks(result, paths, deliveries, workload, min(applied) if applied else None)
    return result


def status(backend_ok: bool, result: Result | None) -> str:
    """failed beats disturbed: a run that did not finish is not a slow one."""
    if not backend_ok:
        return "failed"
    return "disturbed" if result is not None and result.disturbed else "ok"


def run_fields(check: dict[str, Any] | None) -> dict[str, float]:
    """The figures as flat numbers (telemetry fields, tables): absent ones left out."""
    if not check:
        return {}
    out: dict[str, float] = {}
    for key in ("p50_ms", "p99_ms", "max_ms"):
        if check.get("lateness"):
            out[f"selfcheck_lateness_{key}"] = float(check["lateness"][key])
    if check.get("event_lag"):
        out["selfcheck_event_lag_max_ms"] = float(check["event_lag"]["max_ms"])
    if check.get("delay"):
        out["selfcheck_delay_excess_ms"] = float(max(d["excess_ms"] for d in check["delay"]))
    out["selfcheck_reasons"] = float(len(check.get("reasons") or []))
    return out
