"""`campaign check` on runs whose repetitions were added round by round (`--until-conclusive`):
their number was chosen by looking at the verdicts, so only sequential intervals are valid
(docs/claims.md#sequential), and check uses them without being asked."""

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
