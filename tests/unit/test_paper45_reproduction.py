"""reproductions/000-paper45-startup: its campaign plans (every configuration loaded and planned, as
`campaign run --dry-run` does) and its claims name the campaign's metrics, axes and values (evaluated
on rows shaped like the campaign's, so an axis or value the runs lack is refused as `check` would)."""

from pathlib import Path

from sctpbench.analysis import claims
from sctpbench.results import summary
from tests.support import reproduction

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/000-paper45-startup"


def test_the_campaign_plans_every_run(tmp_path: Path) -> None:
    assert "32 runs (16 configurations × 2 repetitions)" in reproduction.dry_run(FOLDER / "campaign.yaml", tmp_path)



def test_the_claims_name_what_the_campaign_has() -> None:
    loaded = claims.load(FOLDER / "claims.yaml")
    assert loaded.claims.campaign == "campaign.yaml" and loaded.claims.paper.startswith("seed 000: ")
    assert {c.metric for c in loaded.claims.claims} <= set(summary.TABULATED_METRICS)
    rows, swept = reproduction.rows(FOLDER / "campaign.yaml")
    results = claims.evaluate(loaded, rows, swept)  # raises SpecError on an axis or value the runs lack
    assert [r.claim.id for r in results] == [c.id for c in loaded.claims.claims]
    checks = {r.claim.id: len(r.checks) for r in results}
    # Both scenarios at the long RTT; both scenarios at both RTTs; every slow-start configuration.
    assert checks["slow-start-adds-to-transfer-time-at-high-load"] == 2
    assert checks["increase-up-to-75-percent"] == checks["little-gain-at-low-load"] == 4
    assert checks["model-predicts-slow-start-transfer-times"] == 8
