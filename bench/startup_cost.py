#!/usr/bin/env python3
"""What `sctpbench` costs before it does anything: Python's start-up and the imports.

    .venv/bin/python bench/startup_cost.py [--times 5] [--run]

Runs `python -m sctpbench.cli plan examples/failover.yaml` (and with --run `sctpbench run
examples/failover.yaml`, which boots a guest) `--times` times and prints the medians: wall
ms until the first line on stderr (run's first progress line; for plan, none: its end),
wall ms to the end, and CPU ms (user+sys of the process, from getrusage). Also `-X
importtime`'s total for the modules `run` imports before its first progress line. Clock: wall (time.perf_counter) and CPU. To compare with
another commit, run it with PYTHONPATH=<a checkout of the other> in front and from outside
this folder (the package is imported from there).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAILOVER = ROOT / "examples/failover.yaml"


def one_go(argv: list[str]) -> tuple[float, float, float]:
    """(wall s to the first stderr line, wall s to the end, CPU s) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    first_s = time.perf_counter() - start
    proc.stderr.read()
    if proc.wait() != 0:
        raise SystemExit(f"{' '.join(argv)}: exit status {proc.returncode}")
    end_s = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return (first_s if first else end_s), end_s, cpu


RUN_IMPORTS = "import sctpbench.cli.run, sctpbench.orchestration.calibrate"  # before run's first progress line


def importtime_ms() -> float:
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", RUN_IMPORTS], capture_output=True, text=True, check=True)
    return sum(int(m) for m in re.findall(r"^import time:\s+(\d+) \|", r.stderr, re.M)) / 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=5)
    parser.add_argument("--run", action="store_true", help="also `sctpbench run examples/failover.yaml` (boots a guest)")
    args = parser.parse_args()
    python = [sys.executable, "-m", "sctpbench.cli"]
    commands = {"plan failover.yaml": python + ["plan", str(FAILOVER)]}
    with tempfile.TemporaryDirectory(prefix="startup-cost-") as out:
        if args.run:
            commands["run failover.yaml"] = python + ["run", str(FAILOVER), "--out", out]
        print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.times}")
        print(f"{'command':<20} {'first line ms':>14} {'end ms':>9} {'CPU ms':>8}")
        for name, argv in commands.items():
            goes = [one_go(argv) for _ in range(args.times)]
            first, end, cpu = (statistics.median(g[i] for g in goes) for i in range(3))
            print(f"{name:<20} {first * 1e3:14.0f} {end * 1e3:9.0f} {cpu * 1e3:8.0f}")
    print(f"importtime total of `{RUN_IMPORTS}`: {statistics.median(importtime_ms() for _ in range(args.times)):.0f} ms "
          f"(self times summed, median of {args.times})")


if __name__ == "__main__":
    main()
