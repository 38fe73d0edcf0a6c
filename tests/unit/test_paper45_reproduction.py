"""reproductions/000-paper45-startup: its campaign plans (every configuration loaded and planned, as
`campaign run --dry-run` does) and its claims name the campaign's metrics, axes and values (evaluated
on rows shaped like the campaign's, so an axis or value the runs lack is refused as `check` would)."""

import itertools
import subprocess
import sys
from pathlib import Path

from sctpbench.analysis import claims
from sctpbench.campaign import spec
from sctpbench.results import summary

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/000-paper45-startup"


def test_the_campaign_plans_every_run(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "campaign", "run", str(FOLDER / "campaign.yaml"), "--dry-run",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "32 runs (16 configurations × 2 repetitions)" in r.stdout + r.stderr


def _rows() -> tuple[list[dict[str, object]], list[str]]:
    """Two ok runs of every configuration the campaign sweeps, each metric a number."""
    groups = spec.load(FOLDER / "campaign.yaml").axes
    swept = [k for g in groups for k in g]
    rows = []
    for choice in itertools.product(*[range(len(next(iter(g.values())))) for g in groups]):
        params = {f"param.{k}": g[k][i] for g, i in zip(groups, choice, strict=True) for k in g}
        rows += [{"status": "ok", **params, **dict.fromkeys(summary.TABULATED_METRICS, float(rep + 1))} for rep in range(2)]
    return rows, swept


def test_the_claims_name_what_the_campaign_has() -> None:
    loaded = claims.load(FOLDER / "claims.yaml")
    assert loaded.claims.campaign == "campaign.yaml" and loaded.claims.paper.startswith("seed 000: ")
    assert {c.metric for c in loaded.claims.claims} <= set(summary.TABULATED_METRICS)
    rows, swept = _rows()
    results = claims.evaluate(loaded, rows, swept)  # raises SpecError on an axis or value the runs lack
    assert [r.claim.id for r in results] == [c.id for c in loaded.claims.claims]
    checks = {r.claim.id: len(r.checks) for r in results}
    # Both scenarios at the long RTT; both scenarios at both RTTs; every slow-start configuration.
    assert checks["slow-start-adds-to-transfer-time-at-high-load"] == 2
    assert checks["increase-up-to-75-percent"] == checks["little-gain-at-low-load"] == 4
    assert checks["model-predicts-slow-start-transfer-times"] == 8
