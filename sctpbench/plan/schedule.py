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
# What one message costs on an IPv4 path as the rate limiter (tbf) charges it: Ethernet
# header (14) + IP (20) + SCTP common header (12) + DATA chunk header (16) per packet, a
# packet carrying at most the 1500-byte MTU less 48 bytes of the message.
PACKET_HEADERS = 48
ETHERNET_HEADER = 14
PACKET_PAYLOAD = 1500 - PACKET_HEADERS


def wire_bytes(size: int) -> int:
    """A message's bytes on an IPv4 path (no bundling, no SACKs): the offered load's unit."""
    return size + (PACKET_HEADERS + ETHERNET_HEADER) * max(1, -(-size // PACKET_PAYLOAD))


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


def mix(spec: Mix, duration_ns: int, seed: int, index: int = 0) -> list[Message]:
    """The stream's messages before `duration_ns`; `index` tells apart two entries of a mix on one stream."""
    rng = random.Random(f"sctpbench-mix:{seed}:{index}:{spec.stream}")
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


def looped(frames: list[videotrace.Frame], duration_ns: int, loop: bool) -> list[videotrace.Frame]:
    """The trace's frames before `duration_ns`, played again from the start while `loop`
    (one mean frame interval after its last frame), numbered on across the repeats."""
    if not frames:
        return []
    interval = frames[-1].time_ns // (len(frames) - 1) if len(frames) > 1 else 40_000_000
    period = frames[-1].time_ns + max(interval, 1)
    out: list[videotrace.Frame] = []
    for k in range(duration_ns // period + 1 if loop else 1):
        out += [videotrace.Frame(f.number + k * len(frames), f.time_ns + k * period, f.type, f.size)
                for f in frames if f.time_ns + k * period < duration_ns]
    return out


def render(messages: list[Message]) -> str:
    """The agent's schedule file; a video message's frame rides in the line's comment, so
    analysis reads frames back from the same file (`parse`)."""
    lines = ["# OFFSET_NS SIZE STREAM FLAGS LIFETIME_MS (workloads/agent/RECORDS.md) [# frame N TYPE]"]
    lines += [f"{m.offset_ns} {m.size} {m.stream} {'u' if m.unordered else '-'} {m.lifetime_ms}"
              + (f" # frame {m.frame} {m.frame_type}" if m.frame is not None else "") for m in messages]
    return "\n".join(lines) + "\n"


def parse(text: str) -> list[Message]:
    """A schedule `render` wrote, message i being the agent's sequence number i."""
    out = []
    for raw in text.splitlines():
        line, _, comment = raw.partition("#")
        fields = line.split()
        if not fields:
            continue
        offset, size, stream, flags, lifetime = fields
        frame = comment.split()
        is_frame = len(frame) == 3 and frame[0] == "frame"
        out.append(Message(int(offset), int(size), int(stream), flags == "u", int(lifetime),
                           int(frame[1]) if is_frame else None, frame[2] if is_frame else None))
    return out
