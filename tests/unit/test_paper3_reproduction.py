"""reproductions/000-paper3-cmt: its campaign plans (every configuration loaded and planned, as
`campaign run --dry-run` does) and its claims name the campaign's metrics, axes and values."""

import subprocess
import sys
from pathlib import Path

import yaml

from sctpbench.campaign import spec
from sctpbench.results import summary

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reproductions/000-paper3-cmt"
KINDS = {"less", "greater", "lowest", "highest", "ratio_at_least", "ratio_at_most", "above", "below", "same"}


def test_the_campaign_plans_every_run(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "campaign", "run", str(FOLDER / "campaign.yaml"), "--dry-run",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "24 runs (8 configurations × 3 repetitions)" in r.stdout + r.stderr


def test_the_claims_name_what_the_campaign_has() -> None:
    loaded = spec.load(FOLDER / "campaign.yaml")
    values = {k: v for axis in loaded.axes for k, v in axis.items()}
    claims = yaml.safe_load((FOLDER / "claims.yaml").read_text())
    assert claims["campaign"] == "campaign.yaml" and claims["paper"].startswith("seed 000: ")
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
