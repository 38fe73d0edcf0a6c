"""The retransmission timeouts (T3-rtx expiries) of a failed path, read from the sender's
own captures, against the RTO that should have timed them.

After a path fails, each expiry of its T3-rtx timer shows on the wire as a burst of
retransmissions (on the alternate path) that no SACK triggered. The timer was started:
- for the first expiry, by the last SACK that reached the sender before the failure while
  data was outstanding, or else by the first DATA sent after it;
- for each later one, by the first DATA the sender put on the failed path after the
  previous expiry (RFC 9260 6.3.2 R1; Linux restarts it only then, or on a SACK, and no
  SACK arrives any more).
Gap i should be min(RTO·2^i, RTO.max) (RTO·b^i with the project kernel's relaxed back-off b,
net.sctp.rto_backoff_pct), rounded up by the kernel's timer wheel: a timer
due in d jiffies lands in a bucket of 8^level jiffies (level 0 below 63 jiffies, 1 below
504, 2 below 4032, …), so it fires up to one bucket later.

The sender's captures see its outgoing packets after its egress qdisc (netem's delay):
their send time is the capture time less that path's own lag, measured from first
transmissions, whose payload carries the agents' generation time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sctpbench.analysis import metrics
from sctpbench.collectors import captures, records
from sctpbench.results import backend as results_backend
from sctpbench.results import events as results_events
from sctpbench.results import jsonfile as results_jsonfile
from sctpbench.results import kernel as results_kernel
from sctpbench.results import plan as results_plan

SAME_INSTANT_NS = 1_000_000  # packets this close belong to one burst (virtual time: 0)
# Send times on two paths are each capture time (tcpdump stamps µs) less that path's egress
# lag, estimated per path: sends of one instant can come out apart by up to a µs or so (256 ns
# seen on usrsctp while capture times were still read as float seconds).
ACROSS_PATHS_NS = 10_000


@dataclass(frozen=True)
class Expiry:
    index: int  # 0 for the first expiry after the failure
    started_ns: int  # agents' clock (CLOCK_MONOTONIC)
    expired_ns: int
    rto_ms: float  # the model's RTO for this expiry: min(RTO·2^i, RTO.max)
    granularity_ms: float  # the timer wheel's bucket for such a timeout

    @property
    def gap_ms(self) -> float:
        return (self.expired_ns - self.started_ns) / 1e6

    @property
    def within(self) -> bool:
        """Not before the RTO, and no later than one wheel bucket (plus a jiffy of phase) after it."""
        return self.rto_ms - 1.0 <= self.gap_ms <= self.rto_ms + self.granularity_ms + 1.0


@dataclass(frozen=True)
class Expiries:
    path: str
    failed_ns: int
    expiries: list[Expiry]
    unreachable_ns: int | None  # the sender's ADDR_UNREACHABLE for the failed path

    @property
    def detection_after_last_expiry_ms(self) -> float | None:
        if self.unreachable_ns is None or not self.expiries:
            return None
        return (self.unreachable_ns - self.expiries[-1].expired_ns) / 1e6


@dataclass(frozen=True)
class _Sent:
    t_ns: int  # when the sender's kernel sent it (capture less the egress lag)
    path: str
    tsns: list[int]


def analyse(run_dir: Path, association: str | None = None) -> Expiries:
    """The failed path's expiries in a run captured with `measure.capture: true`, as the
    client of `association` (default: the first association that path carries) saw them."""
    plan = results_plan.read(run_dir)
    # Expiries need the whole run: its clock anchor, its HZ and its timeline.
    backend, kernel = results_backend.read(run_dir), results_kernel.read_kernel(run_dir)
    if backend is None or backend.t0_ns is None or backend.t0_realtime_ns is None:
        raise results_jsonfile.ResultsFileError(f"{run_dir / results_backend.NAME}: missing or without t0; "
                                                f"{results_jsonfile.ALLOWED}")
    if kernel is None or kernel.hz is None:
        raise results_jsonfile.ResultsFileError(f"{run_dir / results_kernel.KERNEL}: missing or without hz; "
                                                f"{results_jsonfile.ALLOWED}")
    fail = _first_failure(run_dir)
    path = fail.target
    owner = plan.association(association) if association else next(
        (a for a in plan.associations if path in a.path_names), plan.associations[0])
    client_host = owner.client
    client = records.read(run_dir / owner.client_records)
    # A dual-stack path is two SCTP paths (one per family): its packets are those of both;
    # the RTO and the unreachable address are its first (IPv4) one's.
    assoc = {a.path: a for a in reversed(owner.paths)}
    local = {name: {a.client_address for a in owner.paths if a.path == name} for name in assoc}
    peer = {name: {a.server_address for a in owner.paths if a.path == name} for name in assoc}
    to_mono = backend.t0_realtime_ns - backend.t0_ns
    sent: list[_Sent] = []
    sacks: list[tuple[int, str]] = []
    for name in assoc:
        packets = captures.read(run_dir / "captures" / f"{name}-{client_host}.pcap")
        out = [p for p in packets if p.src in local[name]]
        lag = _egress_lag_ns(out, to_mono)
        sent += [_Sent(_mono(p, to_mono) - lag, name, p.tsns) for p in out if p.tsns]
        sacks += [(_mono(p, to_mono), name) for p in packets if p.src in peer[name] and "SACK" in p.chunk_types]
    sent.sort(key=lambda s: s.t_ns)
    sacks.sort()
    failed_ns = fail.applied_ns
    bursts = _expiry_bursts(sent, [t for t, _ in sacks], failed_ns)
    rto_ms, rto_max_ms = _rto_at(client, assoc[path].server_address, failed_ns), float(client.params["rto_max_ms"])
    hz = int(kernel.hz)
    backoff = metrics.backoff_pct(kernel.sysctl.get(client_host, {}))
    expiries = []
    rtos = metrics.rto_series(rto_ms, rto_max_ms, len(bursts), backoff)
    for i, (burst, rto) in enumerate(zip(bursts, rtos, strict=True)):
        started = _first_start(sent, sacks, path, failed_ns, burst) if i == 0 else _next_send(sent, path, bursts[i - 1].t_ns)
        gran = metrics.timer_wheel_bucket_ms(rto, hz)
        expiries.append(Expiry(i, started, burst.t_ns, rto, gran))
    unreachable = next((c.t_ns for c in client.addr
                        if c.addr == assoc[path].server_address and c.state == "ADDR_UNREACHABLE" and c.t_ns >= failed_ns), None)
    return Expiries(path, failed_ns, expiries, unreachable)


def _first_failure(run_dir: Path) -> results_events.TimelineEvent:
    for event in results_events.read(run_dir):
        if event.kind == "fail":
            return event
    raise ValueError(f"{run_dir}: no fail event on the timeline")


def _mono(p: captures.Packet, to_mono: int) -> int:
    # The exact ns: `time`, a float of seconds since the epoch, keeps only ~0.24 µs there, so
    # a repeated run's gaps moved by that much with the host's time of day.
    return p.time_ns - to_mono


def _egress_lag_ns(out: list[captures.Packet], to_mono: int) -> int:
    """Capture time less generation time, at its least: the egress qdisc's delay on this path."""
    lags = [_mono(p, to_mono) - c.t_gen_ns for p in out for c in p.chunks if c.t_gen_ns is not None]
    return min(lags) if lags else 0


@dataclass(frozen=True)
class _Burst:
    t_ns: int
    earliest_tsn: int  # the lowest TSN it retransmits: the oldest chunk the timer guarded


def _expiry_bursts(sent: list[_Sent], sack_times: list[int], failed_ns: int) -> list[_Burst]:
    """Retransmission bursts after the failure that are timeouts.

    Not a timeout: retransmissions a SACK arrival let out (the window opened), and those of
    chunks already marked at the previous timeout that went out later, with the next send
    (the window on the alternate path had been full). A timeout retransmits chunks first
    sent on the failed path after the previous one."""
    first_sent: dict[int, int] = {}
    bursts: list[_Burst] = []
    for s in sent:
        again = [t for t in s.tsns if t in first_sent]
        for t in s.tsns:
            first_sent.setdefault(t, s.t_ns)
        if not again or s.t_ns < failed_ns or (bursts and s.t_ns - bursts[-1].t_ns < SAME_INSTANT_NS):
            continue
        if any(0 <= s.t_ns - t < SAME_INSTANT_NS for t in sack_times):
            continue
        earliest = min(again)
        # Sent in the previous timeout's own instant (with its retransmissions, on the other
        # path) is sent after it, not marked by it: the stack sends new data once it has
        # handled the expiry.
        if bursts and first_sent[earliest] < bursts[-1].t_ns - ACROSS_PATHS_NS:
            continue
        bursts.append(_Burst(s.t_ns, earliest))
    return bursts


def _first_start(sent: list[_Sent], sacks: list[tuple[int, str]], path: str, failed_ns: int, burst: _Burst) -> int:
    """A SACK restarts a running timer; with nothing outstanding, the next DATA starts it.
    So: the later of the oldest lost chunk's first send and the last SACK before the failure."""
    first_send = next(s.t_ns for s in sent if burst.earliest_tsn in s.tsns)
    last_sack = max((t for t, p in sacks if p == path and t < failed_ns), default=first_send)
    return max(first_send, last_sack)


def _next_send(sent: list[_Sent], path: str, after_ns: int) -> int:
    """The first DATA on the failed path from the previous expiry's instant on."""
    return next(s.t_ns for s in sent if s.path == path and s.t_ns >= after_ns - ACROSS_PATHS_NS)


def _rto_at(client: records.Records, peer: str, t_ns: int) -> float:
    """The sender's RTO for the path at the failure, from its own path samples."""
    before = [s for s in client.path if s.addr == peer and s.t_ns <= t_ns]
    if not before:
        raise ValueError(f"no path samples of {peer} before the failure")
    return float(before[-1].rto_ms)
