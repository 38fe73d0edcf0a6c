"""Video frame traces: one line per frame, in the order a sender hands frames to the network.

    # frame  time_ms  type  size_bytes
    0        0.000    I     9155
    1        40.000   P     3944

The columns are those of the public video trace libraries' frame traces (frame number,
time in ms, frame type, size in bytes); a library that orders them otherwise is read with
`columns=`. Times are offsets from the first frame and must not go backwards. Traces made
here (`scripts/make-video-traces`) list an encode's packets in decoding order, with the
decoding time as the send time, which is how a streaming sender emits them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

COLUMNS = ("number", "time", "type", "size")
FRAME_TYPES = ("I", "P", "B")


@dataclass(frozen=True)
class Frame:
    number: int
    time_ns: int  # from the first frame
    type: str  # I, P or B
    size: int  # bytes


def parse(text: str, source: str, columns: Sequence[str] = COLUMNS) -> list[Frame]:
    """Frame lines → frames; a bad line raises ValueError naming source:line."""
    if sorted(columns) != sorted(COLUMNS):
        raise ValueError(f"columns must name each of {', '.join(COLUMNS)} once, got {', '.join(columns)}")
    frames: list[Frame] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            frame = _frame(dict(zip(columns, line.split(), strict=True)))
        except ValueError as e:
            raise ValueError(f"{source}:{number}: {_reason(e, len(columns))}") from None
        if frames and frame.time_ns < frames[-1].time_ns:
            raise ValueError(f"{source}:{number}: times must not go backwards")
        frames.append(frame)
    if not frames:
        raise ValueError(f"{source}: no frames")
    start = frames[0].time_ns
    return [Frame(f.number, f.time_ns - start, f.type, f.size) for f in frames]


def _reason(error: ValueError, n_columns: int) -> str:
    text = str(error)
    return f"expected {n_columns} columns ({', '.join(COLUMNS)})" if "zip()" in text else text


def _frame(fields: dict[str, str]) -> Frame:
    kind = fields["type"].upper()
    if kind not in FRAME_TYPES:
        raise ValueError(f"frame type {fields['type']!r}; allowed: {', '.join(FRAME_TYPES)}")
    if not fields["number"].isdigit():
        raise ValueError(f"frame number {fields['number']!r} is not a whole number")
    if not fields["size"].isdigit() or int(fields["size"]) == 0:
        raise ValueError(f"size {fields['size']!r}: a whole number of bytes above 0")
    try:
        time_ms = float(fields["time"])
    except ValueError:
        raise ValueError(f"time {fields['time']!r} is not a number of milliseconds") from None
    return Frame(int(fields["number"]), round(time_ms * 1e6), kind, int(fields["size"]))


def from_ffprobe(entries: list[dict[str, str]]) -> list[Frame]:
    """`ffprobe -show_packets -show_frames -of json` entries → frames in decoding order.

    Packets come in decoding order with their size and decoding time; the frame type is
    the decoded frame's with the same presentation time.
    """
    types = {e["pts_time"]: e["pict_type"] for e in entries if e.get("type") == "frame"}
    packets = [e for e in entries if e.get("type") == "packet"]
    if not packets:
        raise ValueError("ffprobe listed no packets")
    first = float(packets[0]["dts_time"])
    return [Frame(i, round((float(p["dts_time"]) - first) * 1e9), types.get(p["pts_time"], "P"), int(p["size"]))
            for i, p in enumerate(packets)]


def render(frames: list[Frame], comment: str) -> str:
    lines = [f"# {line}" for line in comment.splitlines()] + ["# frame  time_ms  type  size_bytes"]
    lines += [f"{f.number}\t{f.time_ns / 1e6:.3f}\t{f.type}\t{f.size}" for f in frames]
    return "\n".join(lines) + "\n"


def bitrate(frames: list[Frame]) -> float:
    """Mean bit/s over the trace, the last frame lasting one mean frame interval."""
    span_ns = frames[-1].time_ns + (frames[-1].time_ns / (len(frames) - 1) if len(frames) > 1 else 0)
    return sum(f.size for f in frames) * 8 / (span_ns / 1e9) if span_ns else 0.0


def fragments(size: int, max_size: int) -> list[int]:
    """A frame of `size` bytes cut into messages of at most `max_size` bytes."""
    full, rest = divmod(size, max_size)
    return [max_size] * full + ([rest] if rest else [])
