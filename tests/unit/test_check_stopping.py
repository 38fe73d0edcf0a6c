"""`campaign check` on runs whose repetitions were added round by round (`--until-conclusive`):
their number was chosen by looking at the verdicts, so only sequential intervals are valid
(docs/claims.md#sequential), and check uses them without being asked."""

import shutil
from pathlib import Path

from sctpbench.analysis import claims
from sctpbench.campaign import check

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_003 = ROOT / "reproductions/003-two-paths/results"  # 3 to 48 repetitions a configuration


def _quiet(_: str) -> None:
    pass


def test_configurations_with_different_run_counts_were_added_round_by_round() -> None:
    even = [{"config_key": k} for k in ("a", "a", "b", "b")]
    assert not check.added_round_by_round(even)
    assert check.added_round_by_round(even + [{"config_key": "b"}])
    assert not check.added_round_by_round([])


def test_runs_added_round_by_round_get_the_sequential_verdicts_unasked() -> None:
    unasked, _, _, _ = check.evaluate(SHIPPED_003, None, [], say=_quiet)
    asked, _, _, _ = check.evaluate(SHIPPED_003, None, [], sequential=True, say=_quiet)
    assert [r.to_dict() for r in unasked] == [r.to_dict() for r in asked]
    # 9.1 ± 4.8 ms < 20 ms would hold at a fixed 95 %; at the confidence 48 looks spend it is 9.1 ± 11.3
    stable = next(r for r in unasked if r.claim.id == "rdc-stable-below-075")
    assert stable.verdict == "inconclusive"
    assert claims.counts(unasked) == {"holds": 6, "contradicted": 2, "inconclusive": 1, "not exercised": 2}


def test_the_header_says_why_the_verdicts_are_sequential_when_nobody_asked(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(SHIPPED_003, tmp_path / "results"))  # verdicts writes claims.json beside the runs
    why = "; sequential: each interval at the confidence its sample size spends"
    forced = " (the configurations have different numbers of runs: repetitions added round by round)"
    said: list[str] = []
    check.verdicts(folder, SHIPPED_003.parent / "claims.yaml", [], say=said.append)
    header = said[0]
    assert f"95% confidence{why}{forced}, " in header
    said.clear()
    check.verdicts(folder, SHIPPED_003.parent / "claims.yaml", [], sequential=True, say=said.append)
    assert said[0] == header.replace(forced, "")  # asked: no reason to give


SHIPPED_001 = ROOT / "reproductions/001-initial-window/results"  # its lc cells raised from 2 to 4 repetitions
CLAIMS_001 = SHIPPED_001.parent / "claims.yaml"


def test_more_runs_than_the_campaign_file_plans_get_the_sequential_verdicts(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(SHIPPED_001, tmp_path / "results"))
    planned = Path(shutil.copy(SHIPPED_001.parent / "campaign.yaml", tmp_path / "campaign.yaml"))  # its `file`: ../campaign.yaml
    rows, info = check._rows(folder)
    assert not check.added_round_by_round(rows)  # every configuration at 4: only the file tells
    assert check.planned_repetitions(folder, info) == 2
    assert check.why_sequential(folder, rows, info) == (
        "4 runs of a configuration where its campaign file plans 2: repetitions added after it")
    unasked, _, _, _ = check.evaluate(folder, CLAIMS_001, [], say=_quiet)
    asked, _, _, _ = check.evaluate(folder, CLAIMS_001, [], sequential=True, say=_quiet)
    assert [r.to_dict() for r in unasked] == [r.to_dict() for r in asked]
    # Had the file planned 4 from the start, nothing would say the runs were added after a look,
    # and the fixed-sample interval would be read: there `fairness-unchanged` holds.
    planned.write_text(planned.read_text().replace("repetitions: 2", "repetitions: 4"))
    assert check.why_sequential(folder, rows, info) == ""
    fixed, _, _, _ = check.evaluate(folder, CLAIMS_001, [], say=_quiet)
    verdict = {r.claim.id: r.verdict for r in fixed}
    assert verdict["fairness-unchanged"] == "holds"
    assert {r.claim.id: r.verdict for r in unasked}["fairness-unchanged"] == "inconclusive"
