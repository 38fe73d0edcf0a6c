"""`campaign run FILE --until-conclusive CLAIMS`: rounds of repetitions where claims are undecided.

The runs here are simulated (a fake executor writes each run's row as the campaign's table
would), so the rounds' choices are checked without a guest: which configurations get more
runs, how many, and that the loop stops once the claims are settled or at the maximum.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sctpbench import cli
from sctpbench.campaign import expand, spec, table, until
from sctpbench.results import campaign as campaign_files

ROOT = Path(__file__).resolve().parents[2]
CAMPAIGN = ROOT / "tests/data/campaigns/tiny-virtual.yaml"
CLAIMS = ROOT / "tests/data/claims/tiny.claims.yaml"
KEY = "sctp.path_max_retrans"


class FakeCampaign:
    """Writes a row per run it is asked for: detection 306 / 714 ms by PMR with the repetition's
    noise on both (common seeds), failover the same at both PMRs but for `effect` ms."""

    def __init__(self, folder: Path, effect: float) -> None:
        self.folder, self.effect, self.rows, self.rounds = folder, effect, [], []  # type: ignore[var-annotated]
        folder.mkdir(parents=True)
        (folder / "campaign.json").write_text(json.dumps({"name": "tiny-virtual", "swept": [KEY]}))

    def __call__(self, loaded: spec.Loaded, runs: list[expand.Run], part: frozenset[str] | None) -> int:
        done = {r["run_key"] for r in self.rows}
        todo = [r for r in runs if (part is None or r.run_key in part) and r.run_key not in done]
        self.rounds.append(sorted((r.config.label, r.repetition) for r in todo))
        for r in todo:
            noise = random.Random(r.seed).gauss(0.0, 3.0)
            pmr = dict(r.config.params)[KEY]
            self.rows.append({"run_key": r.run_key, "config_key": r.config.key, "config": r.config.label, "repetition": r.repetition,
                              "seed": r.seed, "status": "ok", f"param.{KEY}": pmr,
                              "detection_time_ms": (306.0 if pmr == "1" else 714.0) + noise,
                              "failover_time_ms": 108.0 + noise + (self.effect if pmr == "2" else 0.0)})
        pq.write_table(pa.Table.from_pylist(self.rows), self.folder / campaign_files.RUNS_TABLE)
        return 0


def _run(tmp_path: Path, effect: float, most: int | None, step: int | None = None) -> tuple[FakeCampaign, list[str], int]:
    fake = FakeCampaign(tmp_path / "tiny-virtual", effect)
    said: list[str] = []
    status = until.run(spec.load(CAMPAIGN), fake.folder, CLAIMS, [], most, step, fake, said.append, frozenset({0, 1}))
    return fake, said, status


def test_more_runs_go_only_where_a_claim_is_undecided_until_it_is_settled(tmp_path: Path) -> None:
    """At 4 repetitions every claim is settled but detection-unimodal-per-setting, which needs 22
    runs of each setting to rule out a 20 % mode: its configurations double to 32, then stop."""
    fake, said, status = _run(tmp_path, effect=0.5, most=40)
    assert status == 0
    assert len(fake.rounds[0]) == 8  # the campaign's own 2 × 4
    assert fake.rounds[1] == [(f"{KEY}={p}", r) for p in ("1", "2") for r in range(5, 9)]
    assert [max(r for _, r in round_) for round_ in fake.rounds] == [4, 8, 16, 32]
    assert said[0] == "round 0: 7 hold, 2 contradicted, 1 inconclusive (sequential verdicts); 2 configurations get more runs"
    assert f"  more runs: {KEY}=1 to 8 repetitions" in said
    assert "round 3: 8 hold, 2 contradicted, 0 inconclusive (sequential verdicts); 0 configurations get more runs" in said
    verdicts = json.loads((fake.folder / campaign_files.CLAIMS).read_text())
    assert verdicts["sequential"] is True
    assert next(r for r in verdicts["results"] if r["id"] == "detection-unimodal-per-setting")["verdict"] == "holds"
    assert "(paired, n 32); sequential, at 99.9950% → holds" in next(r for r in verdicts["results"]
                                                                  if r["id"] == "fewer-retransmissions-detect-sooner")["line"]


def test_a_claim_that_stays_undecided_stops_at_the_maximum(tmp_path: Path) -> None:
    fake, said, _ = _run(tmp_path, effect=0.0, most=10, step=3)
    assert [max(r for _, r in round_) for round_ in fake.rounds] == [4, 7, 10]
    assert any(line.startswith(f"  still inconclusive at 10 repetitions: {KEY}=1 (") for line in said)


def test_the_maximum_is_the_claims_files_or_given(tmp_path: Path) -> None:
    with pytest.raises(until.SpecError, match="no repetitions: in the claims file and no --max-repetitions"):
        _run(tmp_path, effect=0.0, most=None)


def test_dry_run_plans_the_next_round_from_the_runs_so_far(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(shutil.copytree(ROOT / "tests/data/claims/campaign", tmp_path / "tiny-virtual"))
    loaded = spec.load(CAMPAIGN)
    table.write(folder, expand.runs(loaded), loaded.swept)
    assert cli.main(["campaign", "run", str(CAMPAIGN), "--out", str(tmp_path), "--dry-run", "--until-conclusive", str(CLAIMS),
                     "--max-repetitions", "6"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("round 0: ") and out[0].endswith("2 configurations get more runs")
    assert out[1:] == [f"  more runs: {KEY}=1 to 6 repetitions", f"  more runs: {KEY}=2 to 6 repetitions"]
