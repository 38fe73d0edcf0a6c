"""Seed 003 with random first paths: each run's mean delay and switches by how its six
sources started (on path one / path two), from the campaign's table and each run's drawn
first paths (plan.build: the draw is the repetition's seed's, so no run folder is needed).

    .venv/bin/python reproductions/003-two-paths/by_split.py FOLDER_OR_TABLE [CAMPAIGN_FILE]
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq

from sctpbench.campaign import expand
from sctpbench.campaign import spec as campaign_spec
from sctpbench.plan import build as plan

HERE = Path(__file__).resolve().parent


def splits(campaign_file: Path) -> dict[str, str]:
    """Run key → "k + (6-k)": sources starting on path one + on path two."""
    out = {}
    for run in expand.runs(campaign_spec.load(campaign_file)):
        firsts = plan.build(run.experiment, run.repetition, "agent").variation["first_path"].values()
        on_one = sum(p == "one" for p in firsts)
        out[run.run_key] = f"{max(on_one, 6 - on_one)} + {min(on_one, 6 - on_one)}"
    return out


def main(argv: list[str]) -> None:
    given = Path(argv[0])
    table = given / "campaign.parquet" if given.is_dir() else given
    campaign_file = Path(argv[1]) if len(argv) > 1 else HERE / "campaign-random-first.yaml"
    split_of = splits(campaign_file)
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for row in pq.read_table(table).to_pylist():
        if row["status"] == "ok":
            groups[split_of[row["run_key"]]].append((row["mtt_mean_ms"], row["path_switches"]))
    print("| split at the start | runs | mean delay (ms): median [min-max] | switches a run: median [min-max] |")
    print("|---|---|---|---|")
    for split in sorted(groups, key=lambda s: int(s.split()[-1]), reverse=True):
        delays, switches = zip(*groups[split], strict=True)
        print(f"| {split} | {len(delays)} | {statistics.median(delays):.1f} [{min(delays):.1f}-{max(delays):.1f}] | "
              f"{statistics.median(switches):g} [{min(switches):g}-{max(switches):g}] |")


if __name__ == "__main__":
    main(sys.argv[1:])
