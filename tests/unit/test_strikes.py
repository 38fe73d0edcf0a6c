"""A run whose failed path timed out more often than Path.Max.Retrans + 1 before it was
declared unreachable is flagged in its summary's notes, with the reason (analysis/strikes.py)."""

from __future__ import annotations

from sctpbench.analysis import strikes

MS = 1_000_000
FAIL = 1000 * MS


def _samples(*rtos: float, every_ms: int = 50) -> list[tuple[int, float]]:
    """The RTO at the failure, then one sample per value after it."""
    return [(FAIL - 10 * MS, rtos[0])] + [(FAIL + (i + 1) * every_ms * MS, r) for i, r in enumerate(rtos[1:])]


def test_seed000_paper1_four_backoffs_with_pmr_2_are_flagged() -> None:
    """100 → 1,600 ms before the unreachable notification: four timeouts where the model has three."""
    found = strikes.count("primary", _samples(100, 200, 400, 800, 1600), FAIL, FAIL + 3100 * MS, 60_000)
    assert found is not None and (found.backoffs, found.capped) == (4, False)
    note = strikes.note("main", found, path_max_retrans=2, sack_delay_ms=200)
    assert note is not None and note[:2] == ("timeouts", "main")
    assert "path primary's RTO backed off 4 times after the failure (100 → 200 → 400 → 800 → 1600 ms)" in note[2]
    assert "the model has Path.Max.Retrans + 1 = 3" in note[2] and "sctp_check_transmitted" in note[2]
    assert "(the peer's SACK delay is 200 ms)" in note[2]


def test_the_model_s_own_count_is_not_flagged() -> None:
    """PMR 2: three back-offs (the last with the declaration) are what the model says."""
    found = strikes.count("primary", _samples(100, 200, 400, 800), FAIL, FAIL + 1500 * MS, 60_000)
    assert found is not None and found.backoffs == 3
    assert strikes.note("main", found, 2, 200) is None
    # later samples (heartbeats to the unreachable path back off further) do not count
    later = _samples(100, 200, 400, 800, 1600, 3200)
    assert strikes.count("primary", later, FAIL, FAIL + 150 * MS, 60_000).backoffs == 3  # type: ignore[union-attr]


def test_a_fresh_rto_starts_the_count_again_and_a_skipped_sample_still_counts() -> None:
    # 200 → 800: two back-offs between two samples; 800 → 350: an RTT measurement, not a timeout
    found = strikes.count("b", _samples(200, 800, 350, 700), FAIL, FAIL + 10_000 * MS, 60_000)
    assert found is not None and found.backoffs == 3


def test_the_project_kernels_relaxed_backoff_and_rto_max() -> None:
    """net.sctp.rto_backoff_pct 150: 100 → 150 → 225 → 337 → 505; RTO.max caps and marks a lower bound."""
    found = strikes.count("a", _samples(100, 150, 225, 337, 505), FAIL, FAIL + 5000 * MS, 60_000, backoff_pct=150)
    assert found is not None and found.backoffs == 4
    capped = strikes.count("a", _samples(100, 200, 400, 500, 500), FAIL, FAIL + 5000 * MS, 500)
    assert capped is not None and capped.capped and capped.backoffs == 3
    note = strikes.note("main", capped, path_max_retrans=1, sack_delay_ms=None)
    assert note is not None and "backed off at least 3 times" in note[2] and "SACK delay" not in note[2]


def test_no_notification_or_no_sample_before_the_failure_is_no_count() -> None:
    assert strikes.count("a", _samples(100, 200), FAIL, None, 60_000) is None
    assert strikes.count("a", [(FAIL + MS, 200.0)], FAIL, FAIL + 2 * MS, 60_000) is None
