"""Message schedules for the agent's `--arrival schedule` (workloads/agent/RECORDS.md):
one line per message, `OFFSET_NS SIZE STREAM FLAGS LIFETIME_MS`.

A workload that is more than fixed-size messages at a rate — a video frame trace whose
frames are cut into messages, a signaling mix with sizes and gaps from distributions,
on/off bursts, several streams — is compiled here, seeded, into the exact messages the
agent then sends. Analysis reads the same schedule back to map sequence numbers to frames.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from sctpbench.model import videotrace
from sctpbench.model.distributions import Distribution

MIN_SIZE = 16  # the agent's payload header
MAX_SIZE = 1_048_576


@dataclass(frozen=True)
class Message:
    offset_ns: int
    size: int
    stream: int = 0
    unordered: bool = False
    lifetime_ms: int = 0  # 0: reliable; otherwise PR-SCTP timed reliability
    frame: int | None = None  # the video frame it carries a piece of
    frame_type: str | None = None


def video(frames: list[videotrace.Frame], fragment: int, stream: int = 0, lifetime_ms: int = 0) -> list[Message]:
    """Each frame as one message, or several of at most `fragment` bytes, at the frame's time."""
    return [
        Message(f.time_ns, piece, stream, False, lifetime_ms, f.number, f.type)
        for f in frames
        for piece in _pieces(f.size, fragment)
    ]


def _pieces(size: int, fragment: int) -> list[int]:
    """Fragments that each carry the agent's header: a tail below it borrows from the piece before."""
    pieces = videotrace.fragments(max(size, MIN_SIZE), fragment)
    if len(pieces) > 1 and pieces[-1] < MIN_SIZE:
        pieces[-2:] = [pieces[-2] - (MIN_SIZE - pieces[-1]), MIN_SIZE]
    return pieces


@dataclass(frozen=True)
class Mix:
    """One stream's signaling traffic: sizes in bytes and gaps in ns from distributions,
    optionally in on/off bursts (no messages while off)."""

    size: Distribution
    gap: Distribution
    stream: int = 0
    unordered: bool = False
    lifetime_ms: int = 0
    on: Distribution | None = None  # length of a burst, ns
    off: Distribution | None = None  # silence between bursts, ns


def mix(spec: Mix, duration_ns: int, seed: int) -> list[Message]:
    rng = random.Random(f"sctpbench-mix:{seed}:{spec.stream}")
    return [
        Message(t, _size(spec.size.draw(rng)), spec.stream, spec.unordered, spec.lifetime_ms)
        for t in _times(spec, duration_ns, rng)
    ]


def _times(spec: Mix, duration_ns: int, rng: random.Random) -> Iterator[int]:
    t, burst_end = 0.0, float("inf")
    if spec.on is not None:
        burst_end = spec.on.draw(rng)
    while t < duration_ns:
        if t >= burst_end:
            assert spec.on is not None and spec.off is not None
            t = burst_end + spec.off.draw(rng)
            burst_end = t + spec.on.draw(rng)
            continue
        yield int(t)
        t += spec.gap.draw(rng)


def _size(value: float) -> int:
    return min(MAX_SIZE, max(MIN_SIZE, round(value)))


def merge(*streams: list[Message]) -> list[Message]:
    """Several streams' messages as one schedule, in time order (stable within a stream)."""
    return sorted((m for s in streams for m in s), key=lambda m: m.offset_ns)


def render(messages: list[Message]) -> str:
    lines = ["# OFFSET_NS SIZE STREAM FLAGS LIFETIME_MS (workloads/agent/RECORDS.md)"]
    lines += [f"{m.offset_ns} {m.size} {m.stream} {'u' if m.unordered else '-'} {m.lifetime_ms}" for m in messages]
    return "\n".join(lines) + "\n"
