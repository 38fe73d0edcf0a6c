#!/usr/bin/env python3
"""Seed 004's done-when table (issue 26) from a campaign folder of reproductions/004-handover.

    .venv/bin/python bench/seed004_table.py CAMPAIGN_FOLDER [CAMPAIGN_FOLDER ...]

Prints one Markdown row per direction, variant and per-source routing (the source-address
fix, `topology.source_routing`): chunks acknowledged 0.5, 1, 2 and 4 s after the primary
switch (the runs' `acked_*_after_switch` metrics), the time to 80 % of the new path's rate,
the chunks reordered at the receiver and the packets sent with another path's source
address, each as the mean over the configuration's ok runs and their range (min–max), with
the number of runs. Several folders (the same campaign run in parts, or a campaign without
and one with the fix) are read as one table; a run key found twice counts once.

The variant is told by the swept stack keys (`sctp.primary_cwnd_carry`,
`sctp.primary_cwnd_alpha_permille`, `sctp.buffer_retransmit`), the direction by the home
path's rate: 384 kbit/s is the 3G-like path, so a home path at that rate hands over from 3G
to Wi-Fi. The swept α is a label (the campaign's `adjust:` sets the Wi-Fi -> 3G value): the
table shows the value the kernel read back (kernel.json's `primary_cwnd_alpha`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sctpbench.outputs import folders  # noqa: E402
from sctpbench.results import kernel  # noqa: E402

THREE_G_RATE = "384kbit"
# (column heading, run metric, decimals)
COLUMNS = (
    ("+0.5 s", "acked_0_5s_after_switch", 0),
    ("+1 s", "acked_1s_after_switch", 0),
    ("+2 s", "acked_2s_after_switch", 0),
    ("+4 s", "acked_4s_after_switch", 0),
    ("to 80 % of the new rate, ms", "new_path_rate_time_ms", 0),
    ("reordered chunks", "reordered_chunks", 0),
    ("packets with another path's source", "foreign_source_packets", 0),
)
VARIANT_ORDER = ("original", "carried over", "α", "buffer", "α + buffer")


@dataclass(frozen=True, order=True)
class Configuration:
    """What tells one row from another: direction, variant and the source-address fix."""

    direction_index: int  # 0: 3G → Wi-Fi, 1: Wi-Fi → 3G
    variant_index: int
    source_routing: bool
    alpha_permille: str

    @property
    def direction(self) -> str:
        return ("3G → Wi-Fi", "Wi-Fi → 3G")[self.direction_index]

    @property
    def variant(self) -> str:
        name = VARIANT_ORDER[self.variant_index]
        if "α" in name and self.alpha_permille not in ("", "null"):
            name = name.replace("α", f"α {int(self.alpha_permille) / 1000:g}")
        return name


def configuration(run: dict[str, Any]) -> Configuration:
    """A run's row, from its swept parameters (the campaign table's `param.*` columns) and
    the α its kernel read back (`alpha_read_back`, set by ok_runs)."""
    def param(key: str) -> str:
        return str(run.get(f"param.{key}") or "")

    alpha = str(run.get("alpha_read_back") or param("sctp.primary_cwnd_alpha_permille"))
    has_alpha = param("sctp.primary_cwnd_alpha_permille") not in ("", "null")
    buffer = param("sctp.buffer_retransmit") == "true"
    carry = param("sctp.primary_cwnd_carry") == "true"
    if has_alpha:
        variant = "α + buffer" if buffer else "α"
    elif buffer:
        variant = "buffer"
    else:
        variant = "carried over" if carry else "original"
    return Configuration(0 if param("topology.paths.home.rate") == THREE_G_RATE else 1, VARIANT_ORDER.index(variant),
                         param("topology.source_routing") == "true", alpha)


def cell(values: list[float], decimals: int) -> str:
    """Mean (min–max) of the values there are; `–` when none."""
    if not values:
        return "–"
    def f(x: float) -> str:
        return f"{x:.{decimals}f}"
    return f"{f(statistics.fmean(values))} ({f(min(values))}–{f(max(values))})"


def alpha_read_back(run_dir: Path) -> str | None:
    """net.sctp.primary_cwnd_alpha as the run's kernel read it back (any host: all are set alike)."""
    state = kernel.read_kernel(run_dir)
    values = {str(v["primary_cwnd_alpha"]) for v in (state.sysctl.values() if state else []) if "primary_cwnd_alpha" in v}
    return values.pop() if len(values) == 1 else None


def ok_runs(campaigns: list[Path]) -> list[dict[str, Any]]:
    """Every ok run of the folders, each run key once, with the α its kernel read back."""
    seen: dict[str, dict[str, Any]] = {}
    for folder in campaigns:
        for run in folders.load_campaign(folder).runs:
            if run.get("status") == "ok" and str(run.get("run_key")) not in seen:
                seen[str(run.get("run_key"))] = {**run, "alpha_read_back": alpha_read_back(folder / str(run["directory"]))}
    return list(seen.values())


def table(runs: list[dict[str, Any]]) -> str:
    groups: dict[Configuration, list[dict[str, Any]]] = {}
    for run in runs:
        groups.setdefault(configuration(run), []).append(run)
    head = ["direction", "variant", "source routing", "runs", *[c[0] for c in COLUMNS]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for conf in sorted(groups):
        rows = groups[conf]
        cells = [cell([float(r[m]) for r in rows if r.get(m) is not None], d) for _, m, d in COLUMNS]
        lines.append("| " + " | ".join([conf.direction, conf.variant, "on" if conf.source_routing else "off",
                                         str(len(rows)), *cells]) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("campaigns", nargs="+", type=Path, help="campaign folders of reproductions/004-handover")
    args = parser.parse_args()
    runs = ok_runs(args.campaigns)
    if not runs:
        print("seed004_table: no ok runs in " + ", ".join(map(str, args.campaigns)), file=sys.stderr)
        return 1
    print(table(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
