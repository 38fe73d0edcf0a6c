"""Writes the delay traces of seed 002's reproduction (traces/*.txt beside this file).

The seed emulates the RTT of each network as proportional to the terminal's distance from
that network's access point (NISTNET, its Sec. 4), the terminal moving back and forth at
random in the overlapping region (ping-pong, its Fig. 2). Here the terminal sits at a
position x in [0, 1] on the line from AP A (x = 0) to AP B (x = 1); the RTT over network A is
x * S and over B (1 - x) * S, S the sum of the two RTTs, so each path's one-way delay is half
of that. It dwells 3-8 s at a position on one side of the middle, then crosses to a random
position on the other side in 2 s (0.5 s steps): gaps at rest |2x - 1| * S.

  small  S = 1 s, x in [0.05, 0.45] or [0.55, 0.95]: gaps 0.1-0.9 s (the seed: below 1 s)
  large  S = 10 s, the same positions: gaps 1-9 s (the seed: 1 to 9 s)
  mixed  each dwell draws S = 1 s or 10 s (moving between the two during the crossing):
         small and large gaps in one run (the seed's Fig. 4)

At DURATION_S, when the workload stops, both networks go to CLOSING_MS one way: the data
left in the send buffer drains and the association closes in seconds, not minutes (nothing
is measured after that). The draws are seeded (random.Random(f"seed002:{case}")), so the files are the same every
time: `python3 reproductions/002-switching/make_traces.py` rewrites them identically.
"""

from __future__ import annotations

import random
from pathlib import Path

DURATION_S = 30.0
STEP_S = 0.5
CROSSING_S = 2.0
DWELL_S = (3.0, 8.0)
CLOSING_MS = 50
SUMS_S = {"small": (1.0,), "large": (10.0,), "mixed": (1.0, 10.0)}


def positions(case: str) -> list[tuple[float, float, float]]:
    """(time s, x, S s) every STEP_S from 0 to DURATION_S."""
    rng = random.Random(f"seed002:{case}")
    t, x, s = 0.0, 0.15, rng.choice(SUMS_S[case])
    out: list[tuple[float, float, float]] = []
    while t < DURATION_S:
        for _ in range(round(rng.uniform(*DWELL_S) / STEP_S)):
            out.append((t, x, s))
            t += STEP_S
        # Cross to the other side of the middle.
        target = rng.uniform(0.55, 0.95) if x < 0.5 else rng.uniform(0.05, 0.45)
        target_s = rng.choice(SUMS_S[case])
        n = round(CROSSING_S / STEP_S)
        for i in range(1, n + 1):
            out.append((t, x + (target - x) * i / n, s + (target_s - s) * i / n))
            t += STEP_S
        x, s = target, target_s
    return [p for p in out if p[0] < DURATION_S]


def write(case: str, folder: Path) -> None:
    rows = positions(case)
    for network, share in (("a", lambda x: x), ("b", lambda x: 1 - x)):
        lines = [f"# seed 002 reproduction, {case} RTT gaps, network {network.upper()}: one-way delay "
                 f"(half the RTT, {'x' if network == 'a' else '(1 - x)'} * S); written by make_traces.py",
                 "# time   one-way delay"]
        lines += [f"{t:g}s {round(share(x) * s * 1000 / 2)}ms" for t, x, s in rows]
        lines += ["# after the measurement: both networks at CLOSING_MS, so the association drains and closes",
                  f"{DURATION_S:g}s {CLOSING_MS}ms"]
        (folder / f"{case}-{network}.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    here = Path(__file__).parent / "traces"
    here.mkdir(exist_ok=True)
    for case in SUMS_S:
        write(case, here)
