#!/usr/bin/env python3
"""What collecting and analysing a run folder costs: CPU ms of `store.collect(run_dir)`,
the step the runner takes after the guest stops (and of `verify.verify_run`, with --verify).

    .venv/bin/python bench/collect_cost.py RUN_DIR [RUN_DIR …] [--times 5] [--verify]

Each go works on a fresh copy of the run folder (collect rewrites its tables and summary),
copied before the clock starts. Prints per run folder the median of `--times` goes: CPU ms
of this process plus its children (tshark, when the capture reader ran it), user+sys from
getrusage, and wall ms (time.perf_counter); a first go before them loads the modules and is
not counted. To compare two commits, run it with PYTHONPATH=<a checkout of the other> in
front: the package is imported from there.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def one_go(run_dir: Path, step: Callable[[Path], Any]) -> tuple[float, float]:
    """(CPU s, wall s) of `step` on a copy of `run_dir`."""
    with tempfile.TemporaryDirectory(prefix="collect-cost-") as tmp:
        copy = Path(tmp) / run_dir.name
        shutil.copytree(run_dir, copy)
        cpu, wall = cpu_s(), time.perf_counter()
        step(copy)
        return cpu_s() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dirs", nargs="+", type=Path)
    parser.add_argument("--times", type=int, default=5)
    parser.add_argument("--verify", action="store_true", help="time verify.verify_run instead of store.collect")
    args = parser.parse_args()
    if args.verify:
        from sctpbench.analysis import verify
        step: Callable[[Path], Any] = verify.verify_run
    else:
        from sctpbench.analysis import store
        step = store.collect
    print(f"{'run folder':<60} {'CPU ms':>8} {'wall ms':>8}  ({step.__module__}.{step.__name__}, median of {args.times})")
    for run_dir in args.run_dirs:
        one_go(run_dir, step)  # imports, first-use caches
        goes = [one_go(run_dir, step) for _ in range(args.times)]
        cpu, wall = statistics.median(g[0] for g in goes), statistics.median(g[1] for g in goes)
        print(f"{str(run_dir)[-60:]:<60} {cpu * 1e3:8.1f} {wall * 1e3:8.1f}")


if __name__ == "__main__":
    main()
