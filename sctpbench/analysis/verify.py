"""Did the emulator do what the experiment asked? Checked from a run's packet captures.

Through the emulator node, each path has a capture on both hosts: the sender's shows what
left the host before any shaping, the receiver's what arrived after the emulator's netem,
rate limiter and blackhole. Matching one against the other per direction gives, packet by
packet, what was dropped and how long the rest took, all on one clock (both captures are
taken by the same guest kernel). Everything reported is measured from the captures; the
configured values appear only as what a measurement is checked against.

Timeline events are on CLOCK_MONOTONIC, captures on CLOCK_REALTIME of the same kernel.
Their difference is measured, not assumed (see `clock_relation`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

from sctpbench.collectors import captures, records
from sctpbench.collectors.captures import Packet
from sctpbench.plan.data import Interface, Link, Plan
from sctpbench.results import backend as results_backend
from sctpbench.results import events as results_events
from sctpbench.results import folders as results_folders
from sctpbench.results import jsonfile
from sctpbench.results import plan as results_plan

# Delay: the median must be within max(1 ms, 5 %) of the configured delay (plus one
# serialization time, which a token bucket may or may not charge), plus a margin for the
# median of jittered samples: its standard error is about jitter/sqrt(n) for netem's
# distributions, and five of them cannot be reached by chance.
DELAY_TOLERANCE_S = 1e-3
# A median of a handful of packets (a direction that carried only heartbeats) is one
# queued packet away from anything: judge the delay only on this many.
MIN_DELAY_SAMPLES = 10
DELAY_TOLERANCE_FRACTION = 0.05
JITTER_MEDIAN_SIGMAS = 5.0
# Loss: a two-sided binomial test; below this p-value the loss is not the configured one.
LOSS_P_VALUE_MIN = 1e-3
# A blackhole drops at the emulator's ingress, reached in the same veth transmit (and
# softirq) the sender's capture timestamped: microseconds later. This much is allowed
# between the sender's capture and the drop point.
CUT_POINT_SLACK_S = 1e-3
# Rate: the receiver's timestamps are taken as the emulator transmits; this much timing
# noise is allowed on top of the token bucket's depth.
RATE_TIME_SLACK_S = 1e-3
# Netem's jitter distributions are bounded at a few jitters; a packet may still arrive
# this long after the configured delay.
JITTER_SPAN = 4.0
MAX_DROPS_SHOWN = 12


class NotVerifiable(Exception):
    """A run whose captures cannot show what the emulator did; the message says why."""


# ---------------------------------------------------------------------------- matching


@dataclass
class Matching:
    pairs: list[tuple[int, int]]  # (index in sent, index in received)
    unexpected: list[int]  # received packets that match nothing sent (duplicated, corrupted)

    def delays(self, sent: list[Packet], received: list[Packet]) -> list[float]:
        return [received[j].time - sent[i].time for i, j in self.pairs]


def match(sent: list[Packet], received: list[Packet]) -> Matching:
    """Pair every received packet with the sent packet it is.

    Keys (captures.match_key) are unique except for byte-identical copies: retransmitted
    control chunks whose IP ID the kernel left at 0. Unique keys are matched first; their
    median delay then decides, among copies, which send a receive belongs to (the one
    whose delay is closest to it), so a dropped original and its delivered retransmission
    are told apart by time and not by order.
    """
    by_key_sent: dict[bytes, list[int]] = {}
    by_key_received: dict[bytes, list[int]] = {}
    for i, p in enumerate(sent):
        by_key_sent.setdefault(p.key, []).append(i)
    for j, p in enumerate(received):
        by_key_received.setdefault(p.key, []).append(j)
    pairs: list[tuple[int, int]] = []
    ambiguous: list[bytes] = []
    unexpected: list[int] = []
    for key, js in by_key_received.items():
        iss = by_key_sent.get(key, [])
        if len(iss) == 1 and len(js) == 1 and received[js[0]].time >= sent[iss[0]].time:
            pairs.append((iss[0], js[0]))
        elif iss:
            ambiguous.append(key)
        else:
            unexpected += js
    typical = median(received[j].time - sent[i].time for i, j in pairs) if pairs else 0.0
    for key in ambiguous:
        free = list(by_key_sent[key])
        for j in sorted(by_key_received[key], key=lambda j: received[j].time):
            causal = [i for i in free if sent[i].time <= received[j].time]
            if not causal:
                unexpected.append(j)
                continue
            best = min(causal, key=lambda i: abs(received[j].time - sent[i].time - typical))
            free.remove(best)
            pairs.append((best, j))
    pairs.sort()
    return Matching(pairs, sorted(unexpected))


# ---------------------------------------------------------------------------- clocks


# pcap stamps in microseconds, epoch seconds in a float (~0.24 µs apart near 1.8e9 s).
CLOCK_RESOLUTION_S = 2e-6


@dataclass
class ClockRelation:
    """capture time (CLOCK_REALTIME, s) − CLOCK_MONOTONIC (s) lies in [low, high].

    high: a DATA chunk is captured after the agent read CLOCK_MONOTONIC for the message it
    carries (its generation time, in the payload), so capture − t_gen ≥ offset for every
    chunk. low: the receiving agent gets a message after its first copy was captured on
    the way in, so capture − t_rx ≤ offset. Both bounds are as tight as the fastest
    sendmsg → capture and capture → recvmsg of the run; their gap is the uncertainty.
    """

    low: float
    high: float
    chunks: int  # DATA chunks that gave `high`
    deliveries: int  # delivered messages that gave `low`

    @property
    def offset(self) -> float:
        return (self.low + self.high) / 2

    @property
    def width(self) -> float:
        return self.high - self.low


def clock_relation(packets: Iterable[Packet], arriving: Iterable[Packet], t_rx_ns: dict[int, int]) -> ClockRelation | None:
    """`packets`: every captured packet; `arriving`: those captured on the way in at the host
    whose agent received the messages, with that agent's delivery times `t_rx_ns` by seq."""
    high = math.inf
    chunks = 0
    for p in packets:
        for c in p.chunks:
            if c.t_gen_ns is not None:
                chunks += 1
                high = min(high, p.time - c.t_gen_ns / 1e9)
    first_in: dict[int, float] = {}
    for p in arriving:
        for c in p.chunks:
            if c.seq is not None:
                first_in[c.seq] = min(first_in.get(c.seq, math.inf), p.time)
    lows = [first_in[seq] - t / 1e9 for seq, t in t_rx_ns.items() if seq in first_in]
    if not chunks or not lows:
        return None
    low = max(lows)
    if high < low <= high + CLOCK_RESOLUTION_S:
        # On virtual time processing takes no time and both bounds meet; the captures'
        # microsecond stamps and float seconds can then put them a hair the wrong way round.
        low = high = (low + high) / 2
    return ClockRelation(low, high, chunks, len(lows))


@dataclass
class Blackhole:
    """One fail … restore (or down … up) of a path, in capture time (s).

    `certain`: the drop was surely in force (fail applied … restore issued, widened by the
    clock's uncertainty against us). `possible`: it may have been (fail issued … restore
    applied, widened in our favour). A packet sent inside `certain` must not cross; a drop
    inside `possible` is the blackhole's and not the configured loss.

    A link taken down is different: the hosts' interfaces, where the captures are, go
    down, and what was in flight in the emulator is lost on arrival (or held until the
    link is up again). Its drops are accounted for from one in-flight time before it (see
    verify_direction), but nothing is checked inside it.
    """

    certain: tuple[float, float]
    possible: tuple[float, float]
    fail_at: float  # fail applied, best estimate
    restore_at: float | None  # restore applied, best estimate; None: never restored
    kind: str = "fail"  # or "down"


def blackholes(events: list[dict[str, Any]], path: str, clock: ClockRelation) -> list[Blackhole]:
    """Pair each fail (down) of `path` with the next restore (up); events.jsonl, CLOCK_MONOTONIC ns."""
    out: list[Blackhole] = []
    pairs = {"fail": "restore", "down": "up"}
    open_: dict[str, dict[str, Any]] = {}
    for e in sorted((e for e in events if e["target"] == path), key=lambda e: e["issued_ns"]):
        if e["kind"] in pairs and e["kind"] not in open_:
            open_[e["kind"]] = e
        for start, end in pairs.items():
            if e["kind"] == end and start in open_:
                out.append(_blackhole(open_.pop(start), e, clock))
    out += [_blackhole(e, None, clock) for e in open_.values()]
    return sorted(out, key=lambda b: b.fail_at)


def _blackhole(fail: dict[str, Any], restore: dict[str, Any] | None, clock: ClockRelation) -> Blackhole:
    s = lambda ns: ns / 1e9  # noqa: E731
    end_certain = s(restore["issued_ns"]) + clock.low - CUT_POINT_SLACK_S if restore else math.inf
    end_possible = s(restore["applied_ns"]) + clock.high if restore else math.inf
    return Blackhole(
        certain=(s(fail["applied_ns"]) + clock.high, end_certain),
        possible=(s(fail["issued_ns"]) + clock.low - CUT_POINT_SLACK_S, end_possible),
        fail_at=s(fail["applied_ns"]) + clock.offset,
        restore_at=s(restore["applied_ns"]) + clock.offset if restore else None,
        kind=fail["kind"],
    )


def shaping_changes(events: list[dict[str, Any]], path: str, direction: str, clock: ClockRelation | None) -> float:
    """When a degrade step first changed this direction's shaping (capture time), or inf.

    From then on the configured values no longer hold; without the clock the change
    cannot be placed, and nothing is checked against them.
    """
    issued = [e["issued_ns"] for e in events if e["kind"] == "degrade" and e["target"] == path
              and e.get("direction") in (direction, None)]
    if not issued:
        return math.inf
    if clock is None:
        return -math.inf
    return min(issued) / 1e9 + clock.low - CUT_POINT_SLACK_S


# ---------------------------------------------------------------------------- one direction


@dataclass
class Check:
    name: str
    ok: bool
    detail: str

    def __post_init__(self) -> None:
        self.ok = bool(self.ok)  # comparisons of numpy values give numpy booleans, which JSON refuses


@dataclass
class Drop:
    index: int  # position in the direction's sequence of sent packets
    time: float  # sender's capture time, s
    chunk_types: list[str]
    tsns: list[int]
    cause: str  # "blackhole", "link down" or "loss"


@dataclass
class DelayStats:
    n: int
    min_ms: float
    p1_ms: float
    median_ms: float
    p99_ms: float
    max_ms: float


@dataclass
class BlackholeResult:
    sent_inside: int  # packets sent while the blackhole was surely in force
    crossed_inside: int  # of those, how many arrived (must be 0)
    dropped: int  # drops attributed to the blackhole
    last_before_ms: float | None  # last crossing packet sent before the fail (down) applied: ms before it
    first_after_ms: float | None  # first crossing packet sent after the restore (up) applied: ms after it
    fail_at: float
    restore_at: float | None
    kind: str  # "fail" (blackhole) or "down" (link down)


@dataclass
class DirectionInput:
    """What one direction's verification needs, already read and mapped to capture time."""

    path: str
    direction: str  # "forward" (link.a → link.b) or "reverse"
    sender: str
    receiver: str
    configured: dict[str, Any]  # link.shaping[direction]
    sent: list[Packet]
    received: list[Packet]
    sender_last: float  # each capture records everything up to its last packet (a prefix
    receiver_last: float  # of the run: what it was still buffering when stopped is lost)
    blackholes: list[Blackhole] = field(default_factory=list)
    burst_bytes: int | None = None  # the rate limiter's bucket depth, with a rate
    checked_until: float = math.inf  # the configured values hold for packets sent until then
    loss_untested: str | None = None  # why drops cannot be tested against `loss`, if so


@dataclass
class DirectionResult:
    path: str
    direction: str
    sender: str
    receiver: str
    configured: dict[str, Any]
    sent: int
    received: int
    dropped: int
    loss_drops: int  # drops outside any blackhole
    loss_exposed: int  # resolved packets sent outside any blackhole
    unresolved_sent: int  # sent too late for the receiver's capture to show them
    unresolved_received: int  # received too late for the sender's capture to have shown them
    unexpected: int  # received, matching nothing sent while the sender's capture ran
    drops: list[Drop]
    delay: DelayStats | None
    throughput_bps: float | None
    burst_needed_bytes: int | None  # smallest bucket depth the arrivals conform to at the configured rate
    burst_bytes: int | None
    blackholes: list[BlackholeResult]
    checked_until: float | None  # delay, loss and rate are of packets sent until then (a degrade)
    checks: list[Check]


def verify_direction(d: DirectionInput) -> DirectionResult:
    m = match(d.sent, d.received)
    matched = {i for i, _ in m.pairs}
    delays = m.delays(d.sent, d.received)
    scope = lambda t: t <= d.checked_until  # noqa: E731
    late = max(delays, default=0.0)
    conf_late = _late(d.configured)
    # A packet with no copy at the receiver is a drop only if the receiver's capture was
    # still running when it would have arrived; the last ones may simply be in flight
    # when the captures stop.
    horizon = d.receiver_last - max(late, conf_late)
    # Likewise a received packet that matches nothing may have been sent after the
    # sender's capture stopped, if it arrived less than the shortest delay after that.
    early = min(delays, default=0.0)
    beyond = [j for j in m.unexpected if d.received[j].time - early > d.sender_last]
    unexpected = [j for j in m.unexpected if j not in beyond]
    # Packets in flight in the emulator when a link goes down are lost too: as long before
    # it as the longest delay, measured (a degrade may have lengthened it) or configured.
    windows = [(b.possible[0] - (max(late, conf_late) if b.kind == "down" else 0.0), b.possible[1], b) for b in d.blackholes]
    drops, unresolved, exposed = _drops(d.sent, matched, windows, horizon, scope)
    loss_drops = sum(x.cause == "loss" and scope(x.time) for x in drops)
    crossed = [d.sent[i].time for i in matched]
    holes = [_blackhole_result(b, (lo, hi), d.sent, crossed, drops) for lo, hi, b in windows]
    arrivals = [p for p in d.received if scope(p.time)]
    burst_needed = _burst_needed(arrivals, d.configured["rate"]) if d.configured.get("rate") else None
    in_scope = [(i, j) for i, j in m.pairs if scope(d.sent[i].time)]
    stats = _delay_stats([d.received[j].time - d.sent[i].time for i, j in in_scope])
    result = DirectionResult(
        path=d.path, direction=d.direction, sender=d.sender, receiver=d.receiver, configured=d.configured,
        sent=len(d.sent) - unresolved, received=len(d.received) - len(beyond), dropped=len(drops), loss_drops=loss_drops,
        loss_exposed=exposed, unresolved_sent=unresolved, unresolved_received=len(beyond), unexpected=len(unexpected),
        drops=drops, delay=stats,
        throughput_bps=_throughput(arrivals), burst_needed_bytes=burst_needed, burst_bytes=d.burst_bytes,
        blackholes=holes, checked_until=None if d.checked_until == math.inf else d.checked_until, checks=[],
    )
    result.checks = _checks(result, [d.received[j] for _, j in in_scope], d.loss_untested)
    return result


Window = tuple[float, float, Blackhole]  # where drops are the blackhole's (capture time), and which


def _drops(sent: list[Packet], matched: set[int], windows: list[Window], horizon: float,
           scope: Callable[[float], bool]) -> tuple[list[Drop], int, int]:
    """Unmatched sent packets as drops with their cause; also how many are unresolved (sent
    after `horizon`) and how many resolved packets were exposed to the configured loss."""
    drops: list[Drop] = []
    unresolved = exposed = 0
    for i, p in enumerate(sent):
        inside = next((b for lo, hi, b in windows if lo <= p.time <= hi), None)
        if i not in matched and p.time > horizon:
            unresolved += 1
            continue
        exposed += inside is None and scope(p.time)
        if i not in matched:
            cause = "loss" if inside is None else "blackhole" if inside.kind == "fail" else "link down"
            drops.append(Drop(i, p.time, p.chunk_types, p.tsns, cause))
    return drops, unresolved, exposed


def _delay_stats(delays: list[float]) -> DelayStats | None:
    if not delays:
        return None
    ms = np.asarray(delays) * 1e3
    p1, p50, p99 = np.percentile(ms, [1, 50, 99])
    return DelayStats(len(delays), float(ms.min()), float(p1), float(p50), float(p99), float(ms.max()))


def _throughput(arrivals: list[Packet]) -> float | None:
    if len(arrivals) < 2:
        return None
    span = arrivals[-1].time - arrivals[0].time
    # The first packet's bytes arrived before the span began.
    return sum(p.length for p in arrivals[1:]) * 8 / span if span > 0 else None


def _burst_needed(arrivals: list[Packet], rate_bps: float) -> int:
    """The smallest token bucket (bytes) at `rate_bps` that the arrivals conform to.

    max over i ≤ j of bytes(i..j) − rate·(t_j − t_i), by the backlog recursion: a shaper
    at that rate must have let through at least this much beyond the rate at some point.
    """
    rate = rate_bps / 8
    worst = backlog = 0.0
    previous: float | None = None
    for p in sorted(arrivals, key=lambda p: p.time):
        drained = 0.0 if previous is None else rate * (p.time - previous)
        backlog = p.length + max(0.0, backlog - drained)
        worst = max(worst, backlog)
        previous = p.time
    return math.ceil(worst - 1e-6)  # not a byte more for float rounding


def _blackhole_result(b: Blackhole, window: tuple[float, float], sent: list[Packet], crossed: list[float],
                      drops: list[Drop]) -> BlackholeResult:
    inside = [p for p in sent if b.certain[0] <= p.time <= b.certain[1]]
    crossed_inside = sum(1 for t in crossed if b.certain[0] <= t <= b.certain[1])
    before = [t for t in crossed if t < b.fail_at]
    after = [t for t in crossed if b.restore_at is not None and t > b.restore_at]
    return BlackholeResult(
        sent_inside=len(inside), crossed_inside=crossed_inside,
        dropped=sum(1 for x in drops if x.cause != "loss" and window[0] <= x.time <= window[1]),
        last_before_ms=(b.fail_at - max(before)) * 1e3 if before else None,
        first_after_ms=(min(after) - b.restore_at) * 1e3 if after and b.restore_at is not None else None,
        fail_at=b.fail_at, restore_at=b.restore_at, kind=b.kind,
    )


def _checks(r: DirectionResult, delivered: list[Packet], loss_untested: str | None) -> list[Check]:
    c = r.configured
    checks: list[Check] = []
    if r.unexpected:
        allowed = bool(c.get("duplicate") or c.get("corrupt"))
        checks.append(Check("unexpected", allowed, f"{r.unexpected} received packet(s) match nothing sent"
                            + (" (duplicate/corrupt configured)" if allowed else "")))
    if r.delay is not None:
        checks.append(_delay_check(r.delay, c, max((p.length for p in delivered), default=0)))
    checks.append(_loss_check(r, c, loss_untested))
    if c.get("rate") and r.burst_needed_bytes is not None and r.burst_bytes is not None:
        allowed = r.burst_bytes + c["rate"] / 8 * RATE_TIME_SLACK_S
        checks.append(Check(
            "rate", r.burst_needed_bytes <= allowed,
            f"arrivals need a {r.burst_needed_bytes} B bucket at {c['rate'] / 1e6:g} Mbit/s; "
            f"the shaper's is {r.burst_bytes} B (+{allowed - r.burst_bytes:.0f} B timing slack)",
        ))
    for k, b in enumerate(r.blackholes, 1):
        if b.kind != "fail":
            continue
        checks.append(Check(
            f"blackhole {k}", b.crossed_inside == 0,
            f"{b.crossed_inside} of {b.sent_inside} packets sent while it was in force crossed",
        ))
    return checks


def _delay_check(stats: DelayStats, c: dict[str, Any], largest: int) -> Check:
    if stats.n < MIN_DELAY_SAMPLES:
        return Check("delay", True, f"not judged: {stats.n} packet(s), fewer than {MIN_DELAY_SAMPLES} "
                     f"(median {stats.median_ms:.3f} ms)")
    delay = c.get("delay", 0) / 1e9
    serialization = largest * 8 / c["rate"] if c.get("rate") else 0.0
    tolerance = max(DELAY_TOLERANCE_S, DELAY_TOLERANCE_FRACTION * delay)
    tolerance += JITTER_MEDIAN_SIGMAS * c.get("jitter", 0) / 1e9 / math.sqrt(stats.n)
    low, high = (delay - tolerance) * 1e3, (delay + serialization + tolerance) * 1e3
    ok = low <= stats.median_ms <= high
    return Check("delay", ok, f"median {stats.median_ms:.3f} ms, allowed [{low:.3f}, {high:.3f}] ms")


def _loss_check(r: DirectionResult, c: dict[str, Any], untested: str | None) -> Check:
    loss = float(c.get("loss") or 0.0)
    k, n = r.loss_drops, r.loss_exposed
    seen = f"{k} of {n} dropped outside blackholes" + (f" ({100 * k / n:.2f} %)" if n else "")
    if untested:
        return Check("loss", True, f"{seen}; not tested: {untested}")
    if c.get("gilbert_elliott") or c.get("loss_correlation") or c.get("corrupt"):
        return Check("loss", True, f"{seen}; correlated or corrupting loss configured: not tested")
    if loss == 0:
        return Check("loss", k == 0, f"{seen}; none allowed")
    if n == 0:
        return Check("loss", True, f"{seen}; nothing to test")
    from scipy.stats import binomtest  # scipy.stats takes about 1.6 CPU-s to import (a 2-CPU build machine): only where a loss is judged

    p = float(binomtest(k, n, loss / 100).pvalue)
    return Check("loss", p >= LOSS_P_VALUE_MIN, f"{seen}; configured {loss:g} %, binomial p = {p:.3g}")


# ---------------------------------------------------------------------------- a run


@dataclass
class VerifyReport:
    run_dir: str
    t0: float | None  # t0 in capture time (s), when the clock relation is known
    clock: ClockRelation | None
    directions: list[DirectionResult]
    run_checks: list[Check]  # about the run as a whole (the clock relation)
    notes: list[str]

    @property
    def failed(self) -> list[str]:
        out = [f"{c.name}: {c.detail}" for c in self.run_checks if not c.ok]
        out += [f"{d.path} {d.direction}: {c.name}: {c.detail}" for d in self.directions for c in d.checks if not c.ok]
        return out

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"], d["failed"] = self.ok, self.failed
        return d


def capture_file(run_dir: Path, path: str, host: str) -> Path:
    return run_dir / "captures" / f"{path}-{host}.pcap"


def verify_run(run_dir: Path) -> VerifyReport:
    try:
        plan = Plan.from_json(json.dumps(results_plan.require_document(run_dir)))
    except jsonfile.ResultsFileError as e:  # missing, not text, not JSON: worded as every command words it
        raise NotVerifiable(str(e)) from None
    except ValueError as e:  # PlanFormatError, in words
        raise NotVerifiable(f"{run_dir / results_plan.NAME}: not a plan this sctpbench can read ({e}); "
                            "allowed: the file as sctpbench wrote it") from None
    present = [link for link in plan.links if all(capture_file(run_dir, link.path, e.host).exists() for e in (link.a, link.b))]
    if not present:
        raise NotVerifiable(
            f"{run_dir}: no captures; run with `measure.capture: true` and `topology.emulator: true` to verify shaping"
        )
    if not any(link.emulator for link in present):
        raise NotVerifiable(
            f"{run_dir}: the paths are direct links, shaped at the sending host's egress, so the sender's capture "
            "sees packets after netem (delayed, the lost ones missing) and the receiver's sees blackholed packets "
            "before the ingress drop: neither delay, loss nor failures show in them. "
            "Run with `topology.emulator: true` to verify shaping"
        )
    notes = [f"{link.path}: missing capture(s), not verified" for link in plan.links if link not in present]
    packets = {(link.path, e.host): captures.read(capture_file(run_dir, link.path, e.host)) for link in present for e in (link.a, link.b)}

    # The capture clock is related to the agents' through one association's deliveries:
    # the first's (every agent shares the kernel's clock). Records are named by association
    # and role, not by host (hosts have any names).
    first = plan.associations[0]
    server = first.server
    server_addresses = {p.server_address for p in first.paths}
    t_rx = {r.seq: r.t_rx_ns for r in records.read(run_dir / first.server_records).rx}
    arriving = [p for (_, host), ps in packets.items() if host == server for p in ps if p.dst in server_addresses]
    clock = clock_relation((p for ps in packets.values() for p in ps), arriving, t_rx)
    # A run whose timeline never started has no events and no t0: verified without them.
    events = results_events.read_documents(run_dir) or []
    t0_ns = status.t0_ns if (status := results_backend.read(run_dir)) else None
    run_checks: list[Check] = []
    cut = {e["target"] for e in events if e["kind"] in ("fail", "down")} & {link.path for link in present}
    if clock is not None and clock.low > clock.high + CLOCK_RESOLUTION_S:
        run_checks.append(Check("clock", False, f"capture − monotonic bounds contradict ({clock.low:.6f} > "
                                f"{clock.high:.6f} s): was the guest's clock stepped?"))
        clock = None
    elif clock is None and cut:
        run_checks.append(Check("clock", False, "no DATA payload timestamps and deliveries to relate capture time "
                                "to the timeline: blackholes cannot be checked"))
    patterned = _drop_patterns(plan)
    directions: list[DirectionResult] = []
    for link in present:
        holes = blackholes(events, link.path, clock) if clock else []
        for direction, (tx, rx) in (("forward", (link.a, link.b)), ("reverse", (link.b, link.a))):
            untested = None
            if (link.path, direction) in patterned:
                untested = "packet-driven drops (drop_packets) configured"
            elif link.path in cut and clock is None:
                untested = "blackhole windows unknown"
            d = _direction_input(link, direction, tx, rx, packets, holes)
            d.checked_until = shaping_changes(events, link.path, direction, clock)
            d.loss_untested = untested
            result = verify_direction(d)
            pattern = patterned.get((link.path, direction))
            # On a dual-stack path iptables and ip6tables count each family's packets apart,
            # so positions among the path's packets say nothing: the loss is left untested.
            if pattern is not None and not holes and link.family != "dual":
                result.checks.append(pattern_check(result, d.sent, pattern, result.sent))
            directions.append(result)
    return VerifyReport(
        run_dir=str(run_dir), t0=(t0_ns / 1e9 + clock.offset) if clock and t0_ns is not None else None,
        clock=clock, directions=directions, run_checks=run_checks, notes=notes,
    )


def _direction_input(link: Link, direction: str, tx: Interface, rx: Interface,
                     packets: dict[tuple[str, str], list[Packet]], holes: list[Blackhole]) -> DirectionInput:
    configured = link.shaping[direction]
    at_sender, at_receiver = packets[(link.path, tx.host)], packets[(link.path, rx.host)]
    # Both families of a dual-stack path: each address pairs with the far one of its family.
    pairs = set(zip(tx.addresses, rx.addresses, strict=True))
    sent = [p for p in at_sender if (p.src, p.dst) in pairs]
    received = [p for p in at_receiver if (p.src, p.dst) in pairs]
    largest = max((p.length for p in sent), default=0)
    return DirectionInput(
        path=link.path, direction=direction, sender=tx.host, receiver=rx.host, configured=configured,
        sent=sent, received=received, sender_last=_last(at_sender), receiver_last=_last(at_receiver),
        # the plan's tbf bucket, or one frame where a frame is larger (it is sent whole)
        blackholes=holes, burst_bytes=max(link.burst[direction] or 0, largest) if configured.get("rate") else None,
    )


def _late(configured: dict[str, Any]) -> float:
    """How long after sending a packet may still arrive, as configured (s)."""
    return (configured.get("delay", 0) + JITTER_SPAN * configured.get("jitter", 0)) / 1e9


def _drop_patterns(plan: Plan) -> dict[tuple[str, str], dict[str, Any]]:
    """(path, direction) → the packet-driven loss pattern configured for it."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for link in plan.links:
        pattern = link.drop_packets
        if pattern:
            for d in ("forward", "reverse") if pattern["direction"] == "both" else (pattern["direction"],):
                out[(link.path, d)] = pattern
    return out


def expected_positions(pattern: dict[str, Any], count: int) -> list[int]:
    """The 1-based positions among `count` counted packets that the pattern drops."""
    every = pattern.get("every")
    if not every:
        return [p for p in pattern["positions"] if p <= count]
    return sorted(p + k * every for k in range(count // every + 1) for p in pattern["positions"] if p + k * every <= count)


def pattern_check(r: DirectionResult, sent: list[Packet], pattern: dict[str, Any], horizon_index: int) -> Check:
    """The drops are exactly the configured positions, counted as the emulator counts:
    per direction, among packets carrying DATA with data_only."""
    counted = [i for i, p in enumerate(sent[:horizon_index]) if not pattern["data_only"] or "DATA" in p.chunk_types]
    position = {i: n for n, i in enumerate(counted, 1)}
    observed = sorted(position[d.index] for d in r.drops if d.cause == "loss" and d.index in position)
    expected = expected_positions(pattern, len(counted))
    what = "DATA packets" if pattern["data_only"] else "packets"
    return Check("drop pattern", observed == expected,
                 f"dropped {what} #{', #'.join(map(str, observed)) or ' none'}; configured #{', #'.join(map(str, expected)) or ' none'}")


def _last(packets: list[Packet]) -> float:
    return packets[-1].time if packets else -math.inf


def run_dirs(folder: Path) -> list[Path]:
    """A run folder (with plan.json), a session folder of run-*/ or a campaign's runs/*/."""
    runs = results_folders.run_folders(folder)
    if not runs:
        raise NotVerifiable(f"{folder}: neither a run folder (plan.json) nor a session folder (run-*/plan.json)")
    return runs


# ---------------------------------------------------------------------------- text


def render(report: VerifyReport) -> str:
    rel = _relative(report)
    lines = [f"{report.run_dir}  {'ok' if report.ok else 'FAILED'}"]
    if report.clock:
        c = report.clock
        lines.append(f"  clock  capture time − CLOCK_MONOTONIC known within {c.width * 1e3:.3f} ms "
                     f"({c.chunks} DATA chunks, {c.deliveries} deliveries)")
    lines += [f"  {c.name}: {'ok' if c.ok else 'FAILED'}: {c.detail}" for c in report.run_checks]
    lines += [f"  note: {n}" for n in report.notes]
    for d in report.directions:
        lines += _render_direction(d, rel)
    return "\n".join(lines) + "\n"


def _relative(report: VerifyReport) -> Any:
    if report.t0 is None:
        return lambda t: "-"
    return lambda t: f"t0{t - report.t0:+.3f}s"


def _render_direction(d: DirectionResult, rel: Any) -> list[str]:
    c = d.configured
    configured = f"delay {c.get('delay', 0) / 1e6:g} ms"
    if c.get("jitter"):
        configured += f" ± {c['jitter'] / 1e6:g} ms"
    configured += f", loss {float(c.get('loss') or 0):g} %"
    configured += f", rate {c['rate'] / 1e6:g} Mbit/s" if c.get("rate") else ", rate unlimited"
    out = [f"  {d.path} {d.direction} ({d.sender} → {d.receiver})", f"    configured  {configured}"]
    share = f" = {100 * d.loss_drops / d.loss_exposed:.2f} %" if d.loss_exposed else ""
    out.append(f"    packets     sent {d.sent}  received {d.received}  dropped {d.dropped} "
               f"(loss {d.loss_drops} of {d.loss_exposed}{share}, blackhole {d.dropped - d.loss_drops})"
               + (f"  beyond the other capture's end: sent {d.unresolved_sent}, received {d.unresolved_received}"
                  if d.unresolved_sent or d.unresolved_received else "")
               + (f"  unexpected {d.unexpected}" if d.unexpected else ""))
    if d.delay:
        s = d.delay
        out.append(f"    delay       median {s.median_ms:.3f} ms  p1 {s.p1_ms:.3f}  p99 {s.p99_ms:.3f}  "
                   f"min {s.min_ms:.3f}  max {s.max_ms:.3f}  (n {s.n})")
    if d.checked_until is not None:
        out.append(f"    (delay, loss and rate of packets sent before the shaping changed at {rel(d.checked_until)})")
    if d.throughput_bps is not None:
        line = f"    throughput  mean {d.throughput_bps / 1e3:.1f} kbit/s"
        if d.burst_needed_bytes is not None:
            line += f"; bucket needed {d.burst_needed_bytes} B at the configured rate (shaper's {d.burst_bytes} B)"
        out.append(line)
    for b in d.blackholes:
        before = f"{b.last_before_ms:.1f} ms before it" if b.last_before_ms is not None else "none before"
        after = f"{b.first_after_ms:.1f} ms after it" if b.first_after_ms is not None else "none after"
        span = f"{rel(b.fail_at)} … {rel(b.restore_at) if b.restore_at is not None else 'end'}"
        label = "blackhole  " if b.kind == "fail" else "link down  "
        out.append(f"    {label} {span}: sent {b.sent_inside}, crossed {b.crossed_inside}, dropped {b.dropped}; "
                   f"last crossing {before}, first {after}")
    if d.drops:
        shown = ", ".join(
            f"#{x.index} {rel(x.time)} {'+'.join(x.chunk_types) or '?'}"
            + (f" tsn {','.join(map(str, x.tsns))}" if x.tsns else "") + f" ({x.cause})"
            for x in d.drops[:MAX_DROPS_SHOWN]
        )
        more = f", … {len(d.drops) - MAX_DROPS_SHOWN} more (--json lists all)" if len(d.drops) > MAX_DROPS_SHOWN else ""
        out.append(f"    drops       {shown}{more}")
    for check in d.checks:
        out.append(f"    {'ok    ' if check.ok else 'FAILED'}  {check.name}: {check.detail}")
    return out
