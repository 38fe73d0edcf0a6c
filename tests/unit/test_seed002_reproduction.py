"""reproductions/002-switching: its campaign plans (every configuration loaded and planned, as
`campaign run --dry-run` does), its traces are what make_traces.py writes, and its claims name the
campaign's metrics, axes and values (evaluated on rows shaped like the campaign's, so an axis or
value the runs lack is refused as `check` would)."""

import runpy
from pathlib import Path

from sctpbench.analysis import claims
from sctpbench.results import summary
from tests.support import reproduction

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/002-switching"


def test_the_campaign_plans_every_run(tmp_path: Path) -> None:
    assert "16 runs (8 configurations × 2 repetitions)" in reproduction.dry_run(FOLDER / "campaign.yaml", tmp_path)


def test_the_traces_are_make_traces_output(tmp_path: Path) -> None:
    make = runpy.run_path(str(FOLDER / "make_traces.py"))
    for case in ("small", "large", "mixed"):
        make["write"](case, tmp_path)
        for network in ("a", "b"):
            name = f"{case}-{network}.txt"
            assert (tmp_path / name).read_text() == (FOLDER / "traces" / name).read_text(), name
    # The seed's gaps: below 1 s (small); 1 to 9 s (large) where the terminal dwells, which is
    # most of the time (a crossing passes through 0).
    small = [abs(2 * x - 1) * total for _, x, total in make["positions"]("small")]
    large = sorted(abs(2 * x - 1) * total for _, x, total in make["positions"]("large"))
    assert max(small) < 1.0 and max(large) <= 9.0 and large[len(large) // 2] >= 1.0



def test_the_claims_name_what_the_campaign_has() -> None:
    loaded = claims.load(FOLDER / "claims.yaml")
    assert loaded.claims.campaign == "campaign.yaml" and loaded.claims.paper.startswith("seed 002: ")
    assert {c.metric for c in loaded.claims.claims} <= set(summary.TABULATED_METRICS)
    rows, swept = reproduction.rows(FOLDER / "campaign.yaml")
    results = claims.evaluate(loaded, rows, swept)  # raises SpecError on an axis or value the runs lack
    assert [r.claim.id for r in results] == [c.id for c in loaded.claims.claims]
    checks = {r.claim.id: len(r.checks) for r in results}
    # α 8 (α 4) against both rivals; the switching claim at both gap sizes.
    assert checks["small-gap-alpha8-best"] == checks["large-gap-alpha4-best"] == 2
    assert checks["small-alpha-switches-more"] == 2 and checks["mixed-gaps-9-3-beats-3-9"] == 1
