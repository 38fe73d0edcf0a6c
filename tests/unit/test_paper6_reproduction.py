"""reproductions/000-paper6-video-iw: its campaign lists every run (every configuration loaded, as
`campaign run --dry-run` does) and its claims name the campaign's metrics, axes and values
(evaluated on rows shaped like the campaign's, so an axis or value the runs lack is refused as
`check` would)."""

import itertools
import subprocess
import sys
from pathlib import Path

from sctpbench.analysis import claims
from sctpbench.campaign import expand, spec
from sctpbench.results import summary

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/000-paper6-video-iw"


def test_the_campaign_lists_every_run(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "campaign", "run", str(FOLDER / "campaign.yaml"), "--dry-run",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "24 runs (12 configurations × 2 repetitions)" in r.stdout + r.stderr


def test_the_target_path_is_idle_and_its_rtt_is_the_swept_one() -> None:
    """Paper VI has no competing traffic: the video alone meets the target path's window."""
    for run in expand.runs(spec.load(FOLDER / "campaign.yaml")):
        e = run.experiment
        assert not e.traffic and len(e.associations) == 1 and e.associations[0].type == "video"
        assert e.topology.paths["target"].delay == {"10ms": 10, "50ms": 50, "150ms": 150}[
            dict(run.config.params)["topology.paths.target.delay"]] * 1_000_000


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
    results = claims.evaluate(loaded, *_rows())  # raises SpecError on an axis or value the runs lack
    checks = {r.claim.id: len(r.checks) for r in results}
    assert list(checks) == [c.id for c in loaded.claims.claims]
    assert checks["penalty-marginal-at-small-rtt"] == 2  # at each video rate
    assert checks["penalty-large-at-long-rtt-and-high-rate"] == 1
