"""A message schedule for the agent's `--arrival schedule --schedule FILE`, shared by its
command-line tests (unit/) and its runs in the guest (guest/)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"
DURATION_MS = 2000


def build_agent() -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)


@dataclass(frozen=True)
class Message:
    offset_ns: int
    size: int
    stream: int
    unordered: bool
    lifetime_ms: int


def schedule() -> list[Message]:
    """A 25 frame/s video on stream 0 (each frame one to three fragments, a key frame
    every 12 with a 20 kB fragment that SCTP itself splits), signaling on stream 1 at
    uneven gaps, unordered probes with a PR-SCTP lifetime on stream 2, and a burst of
    messages at one instant; two messages at or after the duration, which are not sent."""
    msgs: list[Message] = []
    for frame in range(DURATION_MS // 40):
        t = frame * 40_000_000
        sizes = [20_000, 1200, 700] if frame % 12 == 0 else [1200, 300 + 37 * frame][: 1 + frame % 2]
        msgs += [Message(t, size, 0, False, 0) for size in sizes]
    gap = 13_000_000
    t = 1_000_000
    while t < DURATION_MS * 1_000_000:
        msgs.append(Message(t, 16 + t % 251, 1, False, 0))
        t += gap
        gap = 5_000_000 + (gap * 7) % 30_000_000
    msgs += [Message(k * 150_000_000 + 3_000_000, 64, 2, True, 500) for k in range(13)]
    msgs += [Message(777_000_000, 100 + i, 3, False, 0) for i in range(20)]
    msgs += [Message(DURATION_MS * 1_000_000, 100, 0, False, 0), Message(DURATION_MS * 1_000_000 + 5, 100, 1, False, 0)]
    msgs.sort(key=lambda m: m.offset_ns)  # stable: fragments keep their order
    return msgs


def write(msgs: list[Message], path: Path) -> None:
    lines = ["# OFFSET_NS SIZE STREAM FLAGS LIFETIME_MS", ""]
    lines += [f"{m.offset_ns} {m.size} {m.stream} {'u' if m.unordered else '-'} {m.lifetime_ms}  # {i}"
              for i, m in enumerate(msgs)]
    path.write_text("\n".join(lines) + "\n")
