"""reproductions/000-paper6-video-iw: its campaign lists every run (every configuration loaded, as
`campaign run --dry-run` does) and its claims name the campaign's metrics, axes and values
(evaluated on rows shaped like the campaign's, so an axis or value the runs lack is refused as
`check` would)."""

from pathlib import Path

from sctpbench.analysis import claims
from sctpbench.campaign import expand, spec
from sctpbench.results import summary
from tests.support import reproduction

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/000-paper6-video-iw"


def test_the_campaign_lists_every_run(tmp_path: Path) -> None:
    assert "24 runs (12 configurations × 2 repetitions)" in reproduction.dry_run(FOLDER / "campaign.yaml", tmp_path)


def test_the_target_path_is_idle_and_its_rtt_is_the_swept_one() -> None:
    """Paper VI has no competing traffic: the video alone meets the target path's window."""
    for run in expand.runs(spec.load(FOLDER / "campaign.yaml")):
        e = run.experiment
        assert not e.traffic and len(e.associations) == 1 and e.associations[0].type == "video"
        assert e.topology.paths["target"].delay == {"10ms": 10, "50ms": 50, "150ms": 150}[
            dict(run.config.params)["topology.paths.target.delay"]] * 1_000_000



def test_the_claims_name_what_the_campaign_has() -> None:
    loaded = claims.load(FOLDER / "claims.yaml")
    assert loaded.claims.campaign == "campaign.yaml" and loaded.claims.paper.startswith("seed 000: ")
    assert {c.metric for c in loaded.claims.claims} <= set(summary.TABULATED_METRICS)
    results = claims.evaluate(loaded, *reproduction.rows(FOLDER / "campaign.yaml"))  # raises SpecError on an axis or value the runs lack
    checks = {r.claim.id: len(r.checks) for r in results}
    assert list(checks) == [c.id for c in loaded.claims.claims]
    assert checks["penalty-marginal-at-small-rtt"] == 2  # at each video rate
    assert checks["penalty-large-at-long-rtt-and-high-rate"] == 1
