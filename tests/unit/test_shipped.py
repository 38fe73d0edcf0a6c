"""Shipped tables (campaign/shipped.py): a campaign's run table without runs or captures.

From a real campaign's runs (tests/data/claims/campaign, as test_claims.py): shipped, its table
gives `campaign check` the same verdicts as the full folder, with no run folder beside it; it
names the commit, kernel and host of each run; it stays small; and a campaign run with
`--tables` on a folder without runs counts the shipped runs as done, also when another commit
gave them other run keys.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sctpbench import cli
from sctpbench.campaign import execute, expand, shipped, table
from sctpbench.campaign import spec as campaign_spec
from sctpbench.results import campaign as campaign_files

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/data/claims"
CLAIMS = DATA / "tiny.claims.yaml"
CAMPAIGN = ROOT / "tests/data/campaigns/tiny-virtual.yaml"
FACTS = {"commit": "0123abcd", "kernel_key": "4d8ecd6ad8f14838", "host": "builder"}


@pytest.fixture
def runs() -> list[expand.Run]:
    return expand.runs(campaign_spec.load(CAMPAIGN))


@pytest.fixture
def campaign(tmp_path: Path, runs: list[expand.Run]) -> Path:
    """The real campaign's folder, its tables made and its log as a `campaign run` writes it."""
    folder = Path(shutil.copytree(DATA / "campaign", tmp_path / "campaign"))
    table.write(folder, runs, campaign_spec.load(CAMPAIGN).swept)
    log = [campaign_files.LogEntry("2026-11-26T10:00:00.000+00:00", "first", "campaign-start", dict(FACTS))]
    log += [campaign_files.LogEntry(f"2026-11-26T10:0{i}:30.000+00:00", "first", "end",
                                    {"run_key": r.run_key, "status": "ok", "seconds": 20.5}) for i, r in enumerate(runs)]
    for entry in log:
        campaign_files.log(folder, entry)
    return folder


def _check(folder: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    status = cli.main(["campaign", "check", str(folder), str(CLAIMS)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1  # the file's two contradicted claims
    return [line for line in lines if line.split(" ", 1)[0] in ("HOLDS", "CONTRADICTED", "INCONCLUSIVE")]


def test_check_on_shipped_tables_gives_the_full_folders_verdicts(campaign: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    dest = tmp_path / "repo/reproductions/tiny/results"
    shipped.ship(campaign, dest, CAMPAIGN)
    assert sorted(p.name for p in dest.iterdir()) == ["campaign.json", "campaign.parquet", "format.json", "shipped.json"]
    full = _check(campaign, capsys)
    assert len(full) == 10
    assert _check(dest, capsys) == full


def test_shipped_tables_say_what_made_each_run_and_stay_small(campaign: Path, tmp_path: Path, runs: list[expand.Run]) -> None:
    dest = tmp_path / "results"
    made = shipped.ship(campaign, dest, CAMPAIGN)
    rows = table.read(dest)
    assert {(r["commit"], r["kernel_key"], r["host"], r["seconds"]) for r in rows} == {("0123abcd", "4d8ecd6ad8f14838", "builder", 20.5)}
    assert all(r["directory"] is None for r in rows)
    document = json.loads((dest / campaign_files.SHIPPED).read_text())
    assert document == made.to_dict()
    assert (made.runs, made.ok, made.configurations, made.repetitions_min, made.repetitions_max) == (8, 8, 2, 4, 4)
    assert made.run_seconds == 8 * 20.5 and made.commits == ["0123abcd"] and made.hosts == ["builder"]
    # campaign.json names the campaign file relative to the shipped folder, not the machine's path
    assert (dest / json.loads((dest / campaign_files.INFO).read_text())["file"]).resolve() == CAMPAIGN.resolve()
    size = sum(p.stat().st_size for p in dest.iterdir())
    assert size < 64_000, f"{size} bytes for 8 runs"


def test_a_run_logged_before_provenance_was_says_unknown(campaign: Path, tmp_path: Path) -> None:
    (campaign / campaign_files.LOG).unlink()
    shipped.ship(campaign, tmp_path / "results", CAMPAIGN)
    rows = table.read(tmp_path / "results")
    assert {r["commit"] for r in rows} == {"unknown"} and {r["seconds"] for r in rows} == {None}


def _pending(folder: Path, runs: list[expand.Run]) -> list[expand.Run]:
    session = execute.Session.open(folder, campaign_spec.load(CAMPAIGN), runs, lambda _: None, None, None)
    try:
        return session.pending
    finally:
        session.close()


def test_a_campaign_resumes_from_shipped_tables_without_running_them_again(campaign: Path, tmp_path: Path,
                                                                            runs: list[expand.Run]) -> None:
    dest = tmp_path / "results"
    shipped.ship(campaign, dest, CAMPAIGN)
    fresh = tmp_path / "fresh/tiny-virtual"
    assert len(_pending(tmp_path / "other/tiny-virtual", runs)) == 8  # without the shipped tables: all to run
    assert shipped.carry(dest, fresh, runs) == 8
    assert _pending(fresh, runs) == []
    # the fresh folder's own table holds the carried runs, and ships them back with what made them
    assert len(table.read(fresh)) == 8
    again = shipped.ship(fresh, tmp_path / "again", CAMPAIGN)
    assert again.commits == ["0123abcd"] and again.runs == 8


def test_shipped_runs_are_found_by_configuration_repetition_and_seed(campaign: Path, tmp_path: Path,
                                                                     runs: list[expand.Run]) -> None:
    """Another commit's experiment model gives the same runs other keys: they are still done;
    a repetition the table lacks, or another seed, is not."""
    dest = tmp_path / "results"
    shipped.ship(campaign, dest, CAMPAIGN)
    rows = table.read(dest)
    for r in rows:
        r["run_key"] = "old-" + r["run_key"]
    rows[0]["seed"] += 100
    info = json.loads((dest / campaign_files.INFO).read_text())
    campaign_files.write_table(dest / campaign_files.RUNS_TABLE, rows,
                               table.runs_schema(info["swept"], [], campaign_files.PROVENANCE))
    fresh = tmp_path / "fresh/tiny-virtual"
    assert shipped.carry(dest, fresh, runs) == 7
    assert len(_pending(fresh, runs)) == 1


def test_campaign_ship_command(campaign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dest = tmp_path / "shipped"
    assert cli.main(["campaign", "ship", str(campaign), str(CAMPAIGN), "--to", str(dest)]) == 0
    assert "8 runs (8 ok), 2 configurations, 4-4 repetitions" in capsys.readouterr().out
    assert shipped.default_folder(Path("r/x/campaign-usrsctp.yaml")) == Path("r/x/results-usrsctp")
    assert shipped.default_folder(Path("r/x/campaign.yaml")) == Path("r/x/results")


def test_campaign_run_with_tables_carries_before_and_ships_after(campaign: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """`campaign run FILE --tables DIR` on a machine without the runs: nothing left to run, and
    the table shipped back (the executor here runs nothing: what it is asked to run is recorded)."""
    from sctpbench.campaign import command

    dest = tmp_path / "results"
    shipped.ship(campaign, dest, CAMPAIGN)
    (dest / campaign_files.SHIPPED).unlink()
    asked: list[int] = []

    def execute_nothing(args: object, loaded: campaign_spec.Loaded, runs: list[expand.Run], folder: Path,
                        only: frozenset[str] | None) -> int:
        asked.append(len(_pending(folder, runs)))
        table.write(folder, runs, loaded.swept)  # as the session's close does
        return 0

    monkeypatch.setattr(command, "_execute", execute_nothing)
    status = cli.main(["campaign", "run", str(CAMPAIGN), "--tables", str(dest), "--out", str(tmp_path / "out")])
    assert status == 0 and asked == [0]
    assert campaign_files.read_shipped(dest) is not None and len(table.read(dest)) == 8


def test_shipping_a_round_of_fewer_repetitions_keeps_the_runs_already_shipped(campaign: Path, tmp_path: Path,
                                                                               runs: list[expand.Run]) -> None:
    """--until-conclusive resumed from shipped tables first runs its file's repetitions: the
    table shipped after that round still holds every run shipped before."""
    dest = tmp_path / "results"
    shipped.ship(campaign, dest, CAMPAIGN)
    first_round = Path(shutil.copytree(campaign, tmp_path / "round/tiny-virtual"))
    table.write(first_round, [r for r in runs if r.repetition <= 2], campaign_spec.load(CAMPAIGN).swept)
    assert len(table.read(first_round)) == 4
    made = shipped.ship(first_round, dest, CAMPAIGN)
    assert (made.runs, made.repetitions_min, made.repetitions_max) == (8, 4, 4)
    assert sorted((r["config"], r["repetition"]) for r in table.read(dest)) == sorted(
        (r.config.label, r.repetition) for r in runs)
