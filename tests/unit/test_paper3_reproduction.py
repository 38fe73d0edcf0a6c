"""reproductions/000-paper3-cmt: its campaigns (Linux, and usrsctp in campaign-usrsctp.yaml) plan
(every configuration loaded and planned, as `campaign run --dry-run` does) and their claims name
the campaign's metrics, axes and values."""

from pathlib import Path

import pytest
import yaml

from sctpbench.campaign import spec
from sctpbench.results import summary
from tests.support import reproduction

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/000-paper3-cmt"
KINDS = {"less", "greater", "lowest", "highest", "ratio_at_least", "ratio_at_most", "above", "below", "same"}


CAMPAIGNS = [("campaign.yaml", "claims.yaml", "24 runs (8 configurations × 3 repetitions)"),
             ("campaign-usrsctp.yaml", "claims-usrsctp.yaml", "32 runs (8 configurations × 4 repetitions)")]


@pytest.mark.parametrize("campaign, claims_file, runs", CAMPAIGNS)
def test_the_campaign_plans_every_run(tmp_path: Path, campaign: str, claims_file: str, runs: str) -> None:
    assert runs in reproduction.dry_run(FOLDER / campaign, tmp_path)


@pytest.mark.parametrize("campaign, claims_file, runs", CAMPAIGNS)
def test_the_claims_name_what_the_campaign_has(campaign: str, claims_file: str, runs: str) -> None:
    loaded = spec.load(FOLDER / campaign)
    values = {k: v for axis in loaded.axes for k, v in axis.items()}
    claims = yaml.safe_load((FOLDER / claims_file).read_text())
    assert claims["campaign"] == campaign and claims["paper"].startswith("seed 000: ")
    ids = [c["id"] for c in claims["claims"]]
    assert len(ids) == len(set(ids))
    for c in claims["claims"]:
        assert c["kind"] in KINDS and c["metric"] in summary.TABULATED_METRICS, c
        for side in ("a", "b", "at"):
            for key, value in (c.get(side) or {}).items():
                assert key in values, (c["id"], key)
                assert all(v in values[key] for v in (value if isinstance(value, list) else [value])), (c["id"], value)
        for key in c.get("for_each", []) + ([c["among"]] if "among" in c else []):
            assert key in values, (c["id"], key)
        if c["kind"] in ("lowest", "highest"):
            assert c["which"] in values[c["among"]]


def test_usrsctp_checks_the_same_claims_as_linux() -> None:
    """The two stacks' verdicts compare only if their claims are the same checks."""
    linux, usrsctp = (yaml.safe_load((FOLDER / f).read_text()) for f in ("claims.yaml", "claims-usrsctp.yaml"))
    assert usrsctp["claims"] == linux["claims"] and usrsctp["paper"] == linux["paper"]
    assert [yaml.safe_load((FOLDER / f).read_text())["seed"] for f in ("campaign.yaml", "campaign-usrsctp.yaml")] == [1, 1]
