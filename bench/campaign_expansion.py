#!/usr/bin/env python3
"""How fast a campaign expands and lists: runs per second of `campaign run --dry-run`.

    .venv/bin/python bench/campaign_expansion.py [--campaign FILE] [--repeat 3]

By default a 9,000-configuration grid (one repetition each) of examples/failover.yaml:
sctp.rto_min 10–300 ms × sctp.path_max_retrans 1–10 × sctp.hb_interval 0.1–3 s. Prints,
per go: the grid's size, the seconds and runs per second of expanding it in this process
(spec.load + expand.runs: every configuration loaded, validated and given its run key),
and of the whole `sctpbench campaign run FILE --dry-run` listing as a command (Python's
start and imports included, its output thrown away), with the load average before each
go. Clock: wall (time.perf_counter). The figures move with the machine's load: quote
them with the load column.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRID = """\
name: expansion-grid
experiment: {experiment}
sweep:
  sctp.rto_min: {{from: 10ms, to: 300ms, step: 10ms}}
  sctp.path_max_retrans: {{from: 1, to: 10, step: 1}}
  sctp.hb_interval: {{from: 100ms, to: 3000ms, step: 100ms}}
repetitions: 1
"""


def expand_once(campaign: Path) -> tuple[int, int, float]:
    from sctpbench.campaign import expand, spec

    started = time.perf_counter()
    runs = expand.runs(spec.load(campaign))
    seconds = time.perf_counter() - started
    return len(runs), len({r.config.key for r in runs}), seconds


def list_once(campaign: Path, out: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sctpbench.cli", "campaign", "run", str(campaign), "--dry-run",
                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaign", type=Path, help="a campaign file (default: the 9,000-configuration grid)")
    parser.add_argument("--repeat", type=int, default=3, help="goes (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sctpbench-expansion-") as tmp:
        campaign = args.campaign
        if campaign is None:
            campaign = Path(tmp) / "grid.yaml"
            campaign.write_text(GRID.format(experiment=ROOT / "examples/failover.yaml"))
        print(f"{'go':>3} {'runs':>6} {'configs':>7} {'expand s':>9} {'runs/s':>7} {'list s':>7} {'runs/s':>7} "
              f"{'load before':>11}   clock: wall")
        for go in range(1, args.repeat + 1):
            load = os.getloadavg()[0]
            runs, configs, expand_s = expand_once(campaign)
            list_s = list_once(campaign, Path(tmp) / "out")
            print(f"{go:>3} {runs:>6} {configs:>7} {expand_s:>9.2f} {runs / expand_s:>7.0f} {list_s:>7.2f} "
                  f"{runs / list_s:>7.0f} {load:>11.2f}", flush=True)


if __name__ == "__main__":
    main()
