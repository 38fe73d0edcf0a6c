"""What each reproduction's unit test does with its folder: list the campaign's runs as
`campaign run --dry-run` does (every configuration loaded and planned), and make rows shaped
like the campaign's table, so its claims file is evaluated as `campaign check` would."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

from sctpbench.campaign import spec
from sctpbench.results import summary


def dry_run(campaign: Path, out: Path, *extra: str) -> str:
    """What `campaign run CAMPAIGN --dry-run` prints; it must succeed."""
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "campaign", "run", str(campaign), "--dry-run",
                        "--out", str(out), *extra], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr


def rows(campaign: Path, repetitions: int = 2) -> tuple[list[dict[str, object]], list[str]]:
    """`repetitions` ok runs of every configuration the campaign sweeps, each metric a number
    (1, 2, …, by repetition), and the swept keys."""
    groups = spec.load(campaign).axes
    swept = [k for g in groups for k in g]
    out: list[dict[str, object]] = []
    for choice in itertools.product(*[range(len(next(iter(g.values())))) for g in groups]):
        params = {f"param.{k}": g[k][i] for g, i in zip(groups, choice, strict=True) for k in g}
        out += [{"status": "ok", **params, **dict.fromkeys(summary.TABULATED_METRICS, float(rep + 1))}
                for rep in range(repetitions)]
    return out, swept
