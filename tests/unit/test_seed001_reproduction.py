"""reproductions/001-initial-window: its campaigns (all of Table I, and the TCP flows without the
videos) list every run (every configuration loaded, as `campaign run --dry-run` does), `--only`
picks the part run on one machine, and its claims name the campaigns' metrics, axes and values
(evaluated on rows shaped like the campaigns', so an axis or value the runs lack is refused as
`check` would)."""

from pathlib import Path

import pytest

from sctpbench.analysis import claims
from sctpbench.campaign import expand, spec
from sctpbench.results import summary
from tests.support import reproduction

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/001-initial-window"


PART = ["--only", "traffic.0.name=lc1x1", "--only", "traffic.0.name=lc2x2"]
WINDOWS = ["--only", "sctp.initial_cwnd=3", "--only", "sctp.initial_cwnd=10", "--only", "sctp.initial_cwnd=unrestricted"]


@pytest.mark.parametrize(("file", "only", "listed"), [
    ("campaign.yaml", [], "104 runs (52 configurations × 2 repetitions)"),  # Table I: 13 cells x 4 windows
    ("campaign.yaml", PART + WINDOWS, "12 runs (6 configurations × 2 repetitions)"),  # the part run here
    ("campaign-tcp-alone.yaml", [], "26 runs (13 configurations × 2 repetitions)"),
    ("campaign-tcp-alone.yaml", PART, "4 runs (2 configurations × 2 repetitions)"),
])
def test_the_campaigns_list_every_run(tmp_path: Path, file: str, only: list[str], listed: str) -> None:
    assert listed in reproduction.dry_run(FOLDER / file, tmp_path, *only)


def test_the_tcp_alone_campaign_is_the_same_cells_without_the_handover() -> None:
    main, alone = spec.load(FOLDER / "campaign.yaml"), spec.load(FOLDER / "campaign-tcp-alone.yaml")
    assert alone.axes[0] == main.axes[0]  # the same Table I cells, zipped alike
    for cell in ("lc2x2", "hc10x5"):
        one, bare = (next(r.experiment for r in expand.runs(c) if dict(r.config.params)["traffic.0.name"] == cell)
                     for c in (main, alone))
        assert one.events and not bare.events
        assert (bare.traffic, bare.associations, bare.topology) == (one.traffic, one.associations, one.topology)



def test_the_claims_name_what_the_campaign_has() -> None:
    loaded = claims.load(FOLDER / "claims.yaml")
    assert loaded.claims.campaign == "campaign.yaml" and loaded.claims.paper.startswith("seed 001: ")
    assert {c.metric for c in loaded.claims.claims} <= set(summary.TABULATED_METRICS)
    assert loaded.claims.campaigns == {"alone": "campaign-tcp-alone.yaml"}
    rows, swept = reproduction.rows(FOLDER / "campaign.yaml")
    alone = reproduction.rows(FOLDER / "campaign-tcp-alone.yaml")
    results = claims.evaluate(loaded, rows, swept, {"alone": alone})  # raises SpecError on an axis or value the runs lack
    assert [r.claim.id for r in results] == [c.id for c in loaded.claims.claims]
    # The TCP and fairness claims are checked in every cell of Table I, the video's in one.
    checks = {r.claim.id: len(r.checks) for r in results}
    assert checks["competing-tcp-pays-no-penalty"] == checks["fairness-unchanged"] == 13
    assert checks["competing-tcp-same-without-video"] == checks["competing-tcp-same-without-video-default"] == 13
    assert checks["large-window-cuts-worst-transfer-time"] == 1
    # each without-video check compares the video's runs with the baseline's of the same cell: 2 and 2
    same = next(r for r in results if r.claim.id == "competing-tcp-same-without-video")
    assert all("(n 2)" in c.figures and c.figures.count("(n 2)") == 2 for c in same.checks)


def test_the_claims_check_on_the_part_run_here() -> None:
    """The part of Table I run on one machine (lc1x1 at 3, 10 MTUs and unrestricted, and the TCP flow
    alone there): every claim checks, those on cells or windows not run with no runs."""
    loaded = claims.load(FOLDER / "claims.yaml")
    rows, swept = reproduction.rows(FOLDER / "campaign.yaml")
    alone_rows, alone_swept = reproduction.rows(FOLDER / "campaign-tcp-alone.yaml")
    part = [r for r in rows if r["param.traffic.0.name"] == "lc1x1" and r["param.sctp.initial_cwnd"] in {"3", "10", "unrestricted"}]
    declared = {k: v for g in spec.load(FOLDER / "campaign.yaml").axes for k, v in g.items()}
    results = claims.evaluate(loaded, part, swept, {"alone": ([r for r in alone_rows if r["param.traffic.0.name"] == "lc1x1"],
                                                              alone_swept)}, declared)
    by_id = {r.claim.id: r for r in results}
    assert len(by_id["competing-tcp-same-without-video"].checks) == 1  # lc1x1 only
    assert "(n 2) vs b" in by_id["competing-tcp-same-without-video"].checks[0].figures
    assert "vs b no runs" not in by_id["competing-tcp-same-without-video"].checks[0].figures
    assert "no runs" in by_id["no-gain-without-fair-share"].checks[0].figures  # lc2x2 was not run
    assert by_id["no-gain-without-fair-share"].verdict == "inconclusive"
