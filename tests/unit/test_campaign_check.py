"""`campaign check`'s own rules in process, beside tests/unit/test_claims.py's runs of the
command: where the claims file and the runs come from (and the one line when they cannot be
found), the swept keys, the modes lines, and the header and record a user reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sctpbench import cli
from sctpbench.campaign import check, expand, table
from sctpbench.campaign import spec as campaign_spec
from sctpbench.model.errors import SpecError
from sctpbench.results import campaign as campaign_files

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/data/claims"
CLAIMS = DATA / "tiny.claims.yaml"


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    """tests/data/claims/campaign with its tables (test_claims.py's fixture)."""
    folder = Path(shutil.copytree(DATA / "campaign", tmp_path / "campaign"))
    loaded = campaign_spec.load(ROOT / "tests/data/campaigns/tiny-virtual.yaml")
    table.write(folder, expand.runs(loaded), loaded.swept)
    return folder


def test_the_runs_come_from_a_campaign_folder_or_one_line_says_why_not(tmp_path: Path, campaign: Path) -> None:
    with pytest.raises(SpecError, match=f"^{tmp_path / 'nowhere'}: not a folder; allowed: a campaign folder "
                                        rf"\(with {campaign_files.RUNS_TABLE}\)$"):
        check._rows(tmp_path / "nowhere")
    with pytest.raises(SpecError, match=f"^{tmp_path}: no {campaign_files.RUNS_TABLE}; allowed: a campaign folder after "
                                        "`sctpbench campaign run`$"):
        check._rows(tmp_path)
    (campaign / "campaign.json").write_text("{not json")
    with pytest.raises(SpecError) as refused:
        check._rows(campaign)
    assert str(refused.value).startswith(str(campaign / "campaign.json")) and "\n" not in str(refused.value)
    (campaign / "campaign.json").unlink()
    rows, info = check._rows(campaign)
    assert (len(rows), info) == (8, {})  # no campaign.json: the runs alone


def test_the_swept_keys_are_campaign_jsons_or_else_the_tables_param_columns() -> None:
    rows = [{"config": "x", "param.sctp.rto_min": "1s", "param.load": "high", "mmtt_ms": 1.0}]
    assert check._swept(rows, {"swept": ["a", "b"]}) == ["a", "b"]
    assert check._swept(rows, {"swept": []}) == ["sctp.rto_min", "load"]
    assert check._swept(rows, {}) == ["sctp.rto_min", "load"]
    assert check._swept([], {}) == []


def test_the_claims_file_is_the_one_given_or_claims_yaml_beside_the_campaign_file(tmp_path: Path) -> None:
    given = tmp_path / "given.yaml"
    assert check.claims_file(tmp_path, given, {"file": "x/campaign.yaml"}) == given
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "claims.yaml").write_text("")
    assert check.claims_file(tmp_path, None, {"file": "x/campaign.yaml"}) == tmp_path / "x" / "claims.yaml"  # relative to the folder
    with pytest.raises(SpecError, match=rf"^{tmp_path}: no claims file given and no claims.yaml beside its campaign file \(y/campaign.yaml\); "
                                        "allowed: sctpbench campaign check FOLDER CLAIMS$"):
        check.claims_file(tmp_path, None, {"file": "y/campaign.yaml"})
    with pytest.raises(SpecError, match=r"\(not recorded\)"):
        check.claims_file(tmp_path, None, {})


def test_mode_lines_per_configuration_in_order_over_its_ok_runs() -> None:
    rows: list[dict[str, Any]] = [
        {"config": "b", "status": "ok", "m": 10.0}, {"config": "b", "status": "ok", "m": 12.0},
        {"config": "b", "status": "failed", "m": 500.0}, {"config": "a", "status": "ok", "m": 7.0},
        {"config": "a", "status": "disturbed", "m": 9.0}, {"config": "c", "status": "ok", "m": None}]
    assert check.mode_lines(rows, ["m"]) == [
        "  a  m 7.0 (n 1); modes 7.0 (100%, 1 run)",
        "  b  m 11.0 ± 12.7 (n 2); modes 11.0 [10.0–12.0] (100%, 2 runs)",  # t(0.975, 1) = 12.71 × 1.0
        "  c  m - (n 0); modes -"]


def test_the_header_and_the_record_of_the_verdicts(campaign: Path) -> None:
    said: list[str] = []
    results, loaded, rows = check.verdicts(campaign, CLAIMS, [], True, said.append)
    assert said[0] == (f"tiny-virtual: 10 claims of tests: Path.Max.Retrans and failure detection ({CLAIMS}), 95% confidence; "
                       "sequential: each interval at the confidence its sample size spends, 8 runs (8 ok)")
    assert said[1:] == [r.line() for r in results]
    written = json.loads((campaign / campaign_files.CLAIMS).read_text())
    assert {k: v for k, v in written.items() if k != "results"} == {
        "claims_file": str(CLAIMS), "paper": loaded.claims.paper, "confidence": 0.95, "sequential": True,
        "runs": 8, "runs_ok": 8, "counts": {"holds": 6, "contradicted": 2, "inconclusive": 2}}
    assert len(written["results"]) == 10 and len(rows) == 8


def test_the_header_counts_ok_runs_and_names_the_folder_without_a_campaign_json(campaign: Path) -> None:
    rows = table.read(campaign)
    rows[0]["status"] = "failed"
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_pylist(rows), campaign / campaign_files.RUNS_TABLE)
    (campaign / "campaign.json").unlink()
    said: list[str] = []
    check.verdicts(campaign, CLAIMS, [], False, said.append)
    assert said[0].startswith("campaign: 10 claims of") and said[0].endswith("95% confidence, 8 runs (7 ok)")
    assert json.loads((campaign / campaign_files.CLAIMS).read_text())["runs_ok"] == 7


def test_modes_of_an_unknown_metric_are_refused(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["campaign", "check", str(campaign), str(CLAIMS), "--modes", "detection_time_ms,nope"]) == 2
    assert "--modes: nope: unknown metric; allowed: mtt_mean_ms" in capsys.readouterr().err


TWO = f"""paper: "tests: two campaigns"
campaign: {ROOT}/tests/data/campaigns/tiny-virtual.yaml
campaigns: {{again: {ROOT}/tests/data/campaigns/tiny-virtual.yaml}}
axes:
  pmr: {{key: sctp.path_max_retrans, values: {{one: 1, two: 2}}}}
claims:
  - {{id: same, says: "x", where: "test", metric: detection_time_ms, kind: same, a: {{campaign: this}}, b: {{campaign: again}}}}
"""


def test_the_compared_campaigns_folder_is_given_found_beside_by_its_name_or_shipped(tmp_path: Path) -> None:
    from sctpbench.analysis import claims
    from sctpbench.campaign import shipped

    path = tmp_path / "two.claims.yaml"
    path.write_text(TWO)
    loaded = claims.load(path)
    folder = tmp_path / "runs" / "this"
    folder.mkdir(parents=True)
    assert check.other_folders(folder, loaded, ["again=/x/y"]) == {"again": Path("/x/y")}
    assert check.other_folders(folder, loaded, []) == {"again": tmp_path / "runs" / "tiny-virtual"}  # its campaign's name
    (folder / campaign_files.SHIPPED).write_text("{}")
    assert check.other_folders(folder, loaded, []) == {"again": shipped.default_folder(ROOT / "tests/data/campaigns/tiny-virtual.yaml")}
    (tmp_path / "runs" / "tiny-virtual").mkdir()  # beside it after all: that one
    assert check.other_folders(folder, loaded, []) == {"again": tmp_path / "runs" / "tiny-virtual"}
    assert check.other_folders(folder, loaded, ["again=/x/loss=0.1"]) == {"again": Path("/x/loss=0.1")}  # split at the first =
    none = claims.load(CLAIMS)
    with pytest.raises(SpecError, match="campaigns: none$"):
        check.other_folders(folder, none, ["again=/x"])


@pytest.mark.parametrize("bad", ["again", "other=/x"])
def test_a_with_without_a_name_of_the_claims_files_campaigns_is_refused(tmp_path: Path, bad: str) -> None:
    from sctpbench.analysis import claims

    path = tmp_path / "two.claims.yaml"
    path.write_text(TWO)
    with pytest.raises(SpecError, match=f"^--with {bad}: allowed: NAME=FOLDER with NAME one of the claims file's campaigns: again$"):
        check.other_folders(tmp_path, claims.load(path), [bad])


def test_the_with_refusal_lists_every_campaign_of_the_claims_file(tmp_path: Path) -> None:
    from sctpbench.analysis import claims

    path = tmp_path / "three.claims.yaml"
    path.write_text(TWO.replace("campaigns: {again: ", f"campaigns: {{more: {ROOT}/tests/data/campaigns/tiny-virtual.yaml, again: "))
    with pytest.raises(SpecError, match="campaigns: more, again$"):
        check.other_folders(tmp_path, claims.load(path), ["other=/x"])


def test_check_prints_the_modes_and_the_tally_with_where_the_verdicts_went(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["campaign", "check", str(campaign), str(CLAIMS), "--modes", "detection_time_ms,failover_time_ms"]) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index("modes across runs (analysis/modes.py):")
    assert [line.split()[:2] for line in out[at + 1:at + 5]] == [
        ["sctp.path_max_retrans=1", "detection_time_ms"], ["sctp.path_max_retrans=1", "failover_time_ms"],
        ["sctp.path_max_retrans=2", "detection_time_ms"], ["sctp.path_max_retrans=2", "failover_time_ms"]]
    assert out[-1] == f"6 hold, 2 contradicted, 2 inconclusive; verdicts in {campaign / campaign_files.CLAIMS}"
    assert at + 5 == len(out) - 1  # the modes, then the tally


def test_the_tally_counts_claims_not_exercised_and_nothing_contradicted_exits_0(tmp_path: Path, campaign: Path,
                                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "unmet.claims.yaml"
    path.write_text(f"""paper: "tests: unmet"
campaign: {ROOT}/tests/data/campaigns/tiny-virtual.yaml
axes:
  pmr: {{key: sctp.path_max_retrans, values: {{one: 1, two: 2}}}}
claims:
  - id: sooner
    says: "x"
    where: "test"
    metric: detection_time_ms
    kind: less
    a: {{pmr: one}}
    b: {{pmr: two}}
  - id: unmet
    says: "x"
    where: "test"
    metric: detection_time_ms
    kind: less
    a: {{pmr: one}}
    b: {{pmr: two}}
    requires: [{{metric: detection_time_ms, below: 1ms}}]
""")
    assert cli.main(["campaign", "check", str(campaign), str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"1 hold, 0 contradicted, 0 inconclusive, 1 not exercised; verdicts in {campaign / campaign_files.CLAIMS}")


def _quiet(_: str) -> None:
    pass


def _lines(results: list[Any]) -> list[str]:
    return [r.line() for r in results]


def test_sequential_verdicts_when_asked_and_only_then(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixed = _lines(check.evaluate(campaign, CLAIMS, [], say=_quiet)[0])  # the four runs a configuration: not added round by round
    asked = _lines(check.evaluate(campaign, CLAIMS, [], True, _quiet)[0])
    assert fixed == _lines(check.evaluate(campaign, CLAIMS, [], False, _quiet)[0])
    assert "; sequential, at 99.5833% → holds" in asked[0] and "sequential" not in fixed[0]
    said: list[str] = []
    assert _lines(check.verdicts(campaign, CLAIMS, [], True, said.append)[0]) == asked
    assert _lines(check.verdicts(campaign, CLAIMS, [], say=said.append)[0]) == fixed
    assert "sequential" not in said[-len(fixed) - 1] and json.loads((campaign / campaign_files.CLAIMS).read_text())["sequential"] is False
    assert cli.main(["campaign", "check", str(campaign), str(CLAIMS), "--sequential"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1:-1] == asked and json.loads((campaign / campaign_files.CLAIMS).read_text())["sequential"] is True


def test_a_value_swept_but_not_run_yet_makes_a_check_of_no_runs(campaign: Path) -> None:
    rows = [r for r in table.read(campaign) if r["param.sctp.path_max_retrans"] == "1"]  # `campaign run --only` one value
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_pylist(rows), campaign / campaign_files.RUNS_TABLE)
    info = json.loads((campaign / "campaign.json").read_text())
    (campaign / "campaign.json").write_text(json.dumps(info | {"values": {"sctp.path_max_retrans": ["1", "2"]}}))
    results = check.evaluate(campaign, CLAIMS, [], say=_quiet)[0]
    assert results[0].line() == ("INCONCLUSIVE fewer-retransmissions-detect-sooner: detection_time_ms <; a 306.1 ± 5.1 (n 4) "
                                 "vs b no runs, a − b no interval (unpaired) → inconclusive (RFC 9260, Sec. 8.2)")


def test_the_compared_campaigns_swept_keys_come_from_its_table_without_a_campaign_json(tmp_path: Path, campaign: Path,
                                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    other = Path(shutil.copytree(campaign, tmp_path / "again"))
    (other / "campaign.json").unlink()
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_pylist([r | {"param.loss": "0.1"} for r in table.read(other)]), other / campaign_files.RUNS_TABLE)
    path = tmp_path / "two.claims.yaml"
    path.write_text(TWO.replace("b: {campaign: again}", "tolerance: 1%, b: {campaign: again, loss: 0.1}"))
    said: list[str] = []
    results = check.verdicts(campaign, path, [f"again={other}"], say=said.append)[0]
    assert said[0] == f"compared with again: {other} (8 runs)" and capsys.readouterr().out == ""  # told to the caller
    assert results[0].line() == ("INCONCLUSIVE same: detection_time_ms ≈; a 510.1 ± 182.3 (n 8) vs b 510.1 ± 182.3 (n 8), "
                                 "a − b [-233.9, 233.9] (unpaired; within ±5.1) → inconclusive (test)")
    assert cli.main(["campaign", "check", str(campaign), str(path), "--with", f"again={other}"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"compared with again: {other} (8 runs)"


def test_modes_refusal_lists_every_metric(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sctpbench.analysis import metrics

    assert cli.main(["campaign", "check", str(campaign), str(CLAIMS), "--modes", "nope"]) == 2
    assert f"--modes: nope: unknown metric; allowed: {', '.join(metrics.METRIC_KEYS)}" in capsys.readouterr().err


def test_check_help_names_each_argument_and_says_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    """The words a user reads to learn the command (`campaign check --help`, `campaign --help`)."""
    with pytest.raises(SystemExit):
        cli.main(["campaign", "check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: sctpbench campaign check [-h] [--with NAME=FOLDER] [--sequential] [--modes METRIC[,METRIC]] "
                           "folder [claims] ")
    for words in ("folder the campaign folder",
                  "claims the claims file (default: claims.yaml beside the campaign file the folder was run from)",
                  "--with NAME=FOLDER the folder of a campaign the claims file's campaigns: names (default: the folder of that "
                  "campaign's name beside FOLDER; for shipped tables, that campaign's shipped tables)",
                  "--sequential each interval at the confidence a campaign run until conclusive spends at its sample size "
                  "(docs/claims.md#sequential): the verdicts `campaign run --until-conclusive` stops on",
                  "--modes METRIC[,METRIC] also print each configuration's modes of these metrics across its runs (docs/claims.md)"):
        assert words in text
    assert text.endswith("across its runs (docs/claims.md)")
    with pytest.raises(SystemExit):
        cli.main(["campaign", "--help"])
    assert " check check a claims file on a campaign's runs; exit 1 on a contradicted claim options:" in " ".join(capsys.readouterr().out.split())


def test_a_campaign_run_here_compares_with_the_others_shipped_tables_when_it_was_not_run_beside(tmp_path: Path) -> None:
    """--until-conclusive's rounds check the folder under --out: a compared campaign run only
    elsewhere (its tables shipped) is found there; one run beside the folder is preferred."""
    from sctpbench.analysis import claims as claims_model

    background = Path(__file__).resolve().parents[2] / "reproductions/003-background"
    loaded = claims_model.load(background / "claims.yaml")
    folder = tmp_path / "out/003-background"
    found = check.other_folders(folder, loaded, [])
    assert list(found) == ["no-background"] and found["no-background"].resolve() == background.parent / "003-two-paths/results"
    (tmp_path / "out/003-two-paths").mkdir(parents=True)
    assert check.other_folders(folder, loaded, []) == {"no-background": tmp_path / "out/003-two-paths"}
