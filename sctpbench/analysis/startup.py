"""The startup model of seed 000's Papers IV and V: each message's transfer time after a
path switch, with slow start on the new path against an ideal startup.

Paper IV (Eklund, Grinnemo, Brunstrom, *Theoretical Analysis of an Ideal Startup Scheme in
Multihomed SCTP*, EUNICE 2010) "present[s] a model to analytically compare and quantify the
degrading impact of slow-start on message transfer times" against "an ideal startup
mechanism, where the congestion window is not restricting the transfer"; Paper V (ICCCN
2011) validates it for constant-bit-rate traffic. The project's copy of the thesis holds the
summaries, not the papers' equations, so this module is the model as they describe it, in
the usual round-trip terms of slow start, written down so that every assumption shows:

- the path is a fixed one-way delay each way and a rate (a bottleneck that serialises each
  packet; its queue never drops), the return path carries only SACKs;
- each message is one packet of `wire_bytes`; messages become ready when generated, or at
  the switch when generated before it (a failover's backlog);
- the sender may send while its flight is below cwnd (RFC 9260 6.1 B, as Linux does: the
  last packet may overshoot); every packet is acknowledged at once (`sack_freq: 1`);
- slow start (RFC 9260 7.2.1, Linux's sctp_transport_raise_cwnd): a SACK that arrives while
  the window is fully used (flight ≥ cwnd, counted before the SACK) raises cwnd by the bytes
  it acknowledges, at most one MTU; the window starts at the new path's initial cwnd;
- the ideal startup: cwnd never limits; only the path's rate does.

Slow start thus doubles the window every round trip while the sender has a backlog, and a
message waits for the round whose window reaches it; the transfer time of message i is its
arrival at the receiver minus its generation. `transfer_times` computes it as a recurrence
over send and SACK events (exact for these assumptions; `rounds_to_send` is the closed form
for a backlog alone, which the unit tests check it against). Times are in milliseconds of
whatever clock the run's figures are in (the run's `clock`).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

# Linux 6.1 (net/sctp/transport.c): a path idle for a heartbeat interval falls to
# max(cwnd / 2, 4 * MTU) (SCTP_LOWER_CWND_INACTIVE): the window an unused alternate path has
# when traffic moves to it, with initial_cwnd unset.
IDLE_CWND_MTUS = 4
DEFAULT_MTU = 1500
# net.sctp.initial_cwnd_mtus at or above this (the project's `initial_cwnd: unrestricted`): a
# window that never limits, the ideal startup.
UNRESTRICTED_MTUS = 65535
# The messages a run's startup figures cover: generated from the switch's cause to this much
# after it (the same 2 s as the handover window's after-part, analysis/handover.py).
WINDOW_NS = 2_000_000_000


def initial_cwnd_bytes(initial_cwnd_mtus: int, mtu_bytes: int) -> float:
    """The window an idle path starts with when traffic moves to it, from the client's
    net.sctp.initial_cwnd_mtus (0 or absent: Linux's idle floor, 4 MTUs; unrestricted: inf)."""
    if initial_cwnd_mtus >= UNRESTRICTED_MTUS:
        return math.inf
    return float((initial_cwnd_mtus or IDLE_CWND_MTUS) * mtu_bytes)


@dataclass(frozen=True)
class Path:
    """The path switched to: one-way delays (ms) and its rate (bit/s; None: no limit)."""

    forward_ms: float
    return_ms: float
    rate_bps: float | None


@dataclass(frozen=True)
class Startup:
    """The new path's window at the switch (bytes; math.inf: the ideal startup) and its MTU."""

    cwnd_bytes: float
    mtu_bytes: int
    # Slow start while cwnd ≤ ssthresh, congestion avoidance (one MTU per window acknowledged)
    # above it. The papers' slow start has no threshold in the way (inf); Linux sets an idle
    # path's ssthresh to its lowered cwnd (RFC 4960 errata, SCTP_LOWER_CWND_INACTIVE).
    ssthresh_bytes: float = math.inf

    @property
    def ideal(self) -> bool:
        return math.isinf(self.cwnd_bytes)


@dataclass(frozen=True)
class Message:
    generated_ms: float
    payload_bytes: int  # what counts in flight (the DATA chunk's payload)
    wire_bytes: int  # what the bottleneck serialises


def transfer_times(path: Path, startup: Startup, messages: list[Message], switch_ms: float) -> list[float]:
    """Each message's transfer time (ms), sent in order on `path` from `switch_ms` on."""
    ready = [max(m.generated_ms, switch_ms) for m in messages]
    cwnd, flight, partial = startup.cwnd_bytes, 0.0, 0.0
    link_free = -math.inf
    sacks: list[tuple[float, int, int]] = []  # (arrival at the sender, order, bytes acknowledged)
    out = [math.nan] * len(messages)
    sent = 0
    while sent < len(messages):
        # The next moment anything can happen: a SACK, or the next message when the window has room.
        now = min([sacks[0][0]] if sacks else [], default=math.inf)
        if flight < cwnd:
            now = min(now, ready[sent])
        if sacks and sacks[0][0] <= now:  # one SACK at a time, each followed by a transmission (as Linux flushes)
            _, _, acked = heapq.heappop(sacks)
            cwnd, partial = _raise_cwnd(cwnd, partial, flight, acked, startup)
            flight -= acked
        while sent < len(messages) and ready[sent] <= now and flight < cwnd:
            m = messages[sent]
            serialise = 0.0 if path.rate_bps is None else m.wire_bytes * 8 / path.rate_bps * 1000
            link_free = max(now, link_free) + serialise
            arrival = link_free + path.forward_ms
            out[sent] = arrival - m.generated_ms
            flight += m.payload_bytes
            heapq.heappush(sacks, (arrival + path.return_ms, sent, m.payload_bytes))
            sent += 1
    return out


def _raise_cwnd(cwnd: float, partial: float, flight: float, acked: int, startup: Startup) -> tuple[float, float]:
    """cwnd and partial_bytes_acked after a SACK (Linux's sctp_transport_raise_cwnd; flight
    counted before the SACK): slow start grows a fully used window by what is acknowledged, at
    most an MTU; congestion avoidance by an MTU per window's worth acknowledged."""
    if cwnd <= startup.ssthresh_bytes:
        return (cwnd + min(acked, startup.mtu_bytes) if flight >= cwnd else cwnd), partial
    partial += acked
    if partial > cwnd and flight < cwnd:
        partial = cwnd
    if partial >= cwnd and flight >= cwnd:
        return cwnd + startup.mtu_bytes, partial - cwnd
    return cwnd, partial


def rounds_to_send(backlog: int, initial_window: int) -> int:
    """Round trips after the first before the last of `backlog` messages ready at once leaves,
    in slow start from `initial_window` messages doubling each round (no rate limit, a SACK
    per packet): the least k with initial_window · (2^(k+1) − 1) ≥ backlog."""
    if backlog <= 0 or initial_window <= 0:
        raise ValueError("backlog and initial_window must be positive")
    k = 0
    while initial_window * (2 ** (k + 1) - 1) < backlog:
        k += 1
    return k


@dataclass(frozen=True)
class Prediction:
    """The model's figures for one set of messages: with the run's startup, slow start, ideal."""

    mtt_mean_ms: float
    mmtt_ms: float
    slow_start_mtt_mean_ms: float
    slow_start_mmtt_ms: float
    ideal_mtt_mean_ms: float
    ideal_mmtt_ms: float
    initial_cwnd_bytes: float  # the run's startup window (inf: ideal)
    # The run's window with Linux's idle rule, ssthresh = cwnd: congestion avoidance from the start.
    idle_ssthresh_mtt_mean_ms: float
    idle_ssthresh_mmtt_ms: float
    switch_ms: float
    messages: int

    @property
    def penalty_mean(self) -> float:
        """Slow start's mean transfer time over the ideal startup's, minus one (0.75: +75 %)."""
        return self.slow_start_mtt_mean_ms / self.ideal_mtt_mean_ms - 1

    @property
    def penalty_max(self) -> float:
        return self.slow_start_mmtt_ms / self.ideal_mmtt_ms - 1

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "mtt_mean_ms": self.mtt_mean_ms, "mmtt_ms": self.mmtt_ms,
            "slow_start_mtt_mean_ms": self.slow_start_mtt_mean_ms, "slow_start_mmtt_ms": self.slow_start_mmtt_ms,
            "ideal_mtt_mean_ms": self.ideal_mtt_mean_ms, "ideal_mmtt_ms": self.ideal_mmtt_ms,
            "penalty_mean": self.penalty_mean, "penalty_max": self.penalty_max,
            "initial_cwnd_bytes": None if math.isinf(self.initial_cwnd_bytes) else self.initial_cwnd_bytes,
            "idle_ssthresh_mtt_mean_ms": self.idle_ssthresh_mtt_mean_ms, "idle_ssthresh_mmtt_ms": self.idle_ssthresh_mmtt_ms,
            "switch_ms": self.switch_ms, "messages": self.messages,
        }


def predict(path: Path, startup: Startup, messages: list[Message], switch_ms: float) -> Prediction:
    """The model for `messages` with the run's own startup, and with slow start from Linux's
    idle window and the ideal startup beside it; and the run's window with Linux's idle rule
    (ssthresh = cwnd), which is what the kernel does where the papers' model slow-starts."""
    if not messages:
        raise ValueError("no messages to predict")
    slow = Startup(float(IDLE_CWND_MTUS * startup.mtu_bytes), startup.mtu_bytes)
    ideal = Startup(math.inf, startup.mtu_bytes)
    idle = Startup(startup.cwnd_bytes, startup.mtu_bytes, ssthresh_bytes=startup.cwnd_bytes)
    own, ss, best, linux = (transfer_times(path, s, messages, switch_ms) for s in (startup, slow, ideal, idle))
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    return Prediction(mean(own), max(own), mean(ss), max(ss), mean(best), max(best), startup.cwnd_bytes,
                      mean(linux), max(linux), switch_ms, len(messages))
