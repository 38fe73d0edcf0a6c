"""Seed 000 Papers IV/V's startup model (analysis/startup.py): the recurrence against the
closed forms of slow start and of the ideal startup, and against what the papers say of it.

The papers' own equations are not in the project's copy of the thesis; what they say of
the model's results is: "for high load traffic, the transfer times for an individual message
may in some cases increase by up to 75% as standard slow-start is used compared to an ideal
startup mechanism" (thesis summary of Paper IV), "the most prominent performance gain is
seen for applications generating high traffic loads" and "an increasing impact of an
improved startup mechanism with increasing RTTs" (Paper IV's abstract). The last tests hold
the model to those at the reproduction's setup (reproductions/000-paper45-startup)."""

import math
import shutil
from pathlib import Path

import pytest

from sctpbench.analysis import startup, store
from sctpbench.outputs import report, summary_text
from sctpbench.plan import schedule
from sctpbench.results.summary import RunMetrics

MTU = 1500


def _backlog(n: int, size: int = 1000) -> list[startup.Message]:
    return [startup.Message(0.0, size, size + 48) for _ in range(n)]


def _cbr(size: int, interval_ms: float, until_ms: float = 2000.0) -> list[startup.Message]:
    return [startup.Message(i * interval_ms, size, size + 48) for i in range(int(until_ms / interval_ms))]


@pytest.mark.parametrize(("backlog", "window"), [(1, 4), (4, 4), (5, 4), (12, 4), (13, 4), (100, 4), (100, 10), (1000, 3)])
def test_a_backlog_in_slow_start_leaves_in_the_closed_form_number_of_round_trips(backlog: int, window: int) -> None:
    """No rate limit, a SACK per packet: the last message of the backlog leaves after k round
    trips, k the least with window · (2^(k+1) − 1) ≥ backlog, and arrives a one-way delay later."""
    path = startup.Path(forward_ms=25.0, return_ms=25.0, rate_bps=None)
    # Messages of a whole MTU, so that each SACK raises the window by one message.
    times = startup.transfer_times(path, startup.Startup(window * MTU, MTU), _backlog(backlog, MTU), switch_ms=0.0)
    k = startup.rounds_to_send(backlog, window)
    assert max(times) == pytest.approx(k * 50.0 + 25.0)
    assert startup.rounds_to_send(4, 4) == 0 and startup.rounds_to_send(5, 4) == 1 and startup.rounds_to_send(13, 4) == 2


def test_the_ideal_startup_is_the_path_alone_one_way_delay_and_serialisation() -> None:
    """An unrestricted window sends a backlog at once: message i arrives after i + 1 packets'
    serialisation at the path's rate and the one-way delay."""
    path = startup.Path(forward_ms=10.0, return_ms=10.0, rate_bps=8_000_000.0)  # 1048 B take 1.048 ms
    times = startup.transfer_times(path, startup.Startup(math.inf, MTU), _backlog(50), switch_ms=0.0)
    assert times == pytest.approx([10.0 + (i + 1) * 1.048 for i in range(50)])


def test_a_backlog_waits_for_the_switch_and_counts_from_its_generation() -> None:
    path = startup.Path(forward_ms=10.0, return_ms=10.0, rate_bps=None)
    messages = [startup.Message(float(g), 200, 248) for g in (0, 100, 300)]
    times = startup.transfer_times(path, startup.Startup(math.inf, MTU), messages, switch_ms=200.0)
    assert times == pytest.approx([210.0, 110.0, 10.0])


def test_congestion_avoidance_from_the_idle_window_is_slower_than_slow_start() -> None:
    """Linux's idle rule (ssthresh = cwnd) grows the window by an MTU a round trip: a backlog of
    48 one-MTU messages from 4 needs rounds of 4, 5, 6, 7, 8, 9, 10 (49 ≥ 48): six round
    trips after the first, against slow start's three (4 + 8 + 16 + 32 ≥ 48)."""
    path = startup.Path(forward_ms=25.0, return_ms=25.0, rate_bps=None)
    slow = startup.transfer_times(path, startup.Startup(4 * MTU, MTU), _backlog(48, MTU), 0.0)
    avoid = startup.transfer_times(path, startup.Startup(4 * MTU, MTU, ssthresh_bytes=4 * MTU), _backlog(48, MTU), 0.0)
    assert max(slow) == pytest.approx(3 * 50.0 + 25.0)
    assert max(avoid) == pytest.approx(6 * 50.0 + 25.0)


def test_the_window_read_back_maps_to_the_model() -> None:
    assert startup.initial_cwnd_bytes(0, MTU) == 4 * MTU  # Linux's idle floor, 4 MTUs
    assert startup.initial_cwnd_bytes(10, MTU) == 10 * MTU
    assert math.isinf(startup.initial_cwnd_bytes(startup.UNRESTRICTED_MTUS, MTU))


def _penalty(size: int, interval_ms: float, one_way_ms: float, switch_ms: float) -> startup.Prediction:
    path = startup.Path(one_way_ms, one_way_ms, 10_000_000.0)
    return startup.predict(path, startup.Startup(4.0 * MTU, MTU), _cbr(size, interval_ms), switch_ms)


def test_slow_start_costs_nothing_at_low_load_and_most_at_high_load_and_long_rtt() -> None:
    """Paper IV: the gain of an ideal startup is most prominent at high load and grows with
    the RTT. Signaling at 50 messages/s of 200 B never fills the 4-MTU window: no penalty. At
    2 Mbit/s (1000 B every 4 ms) a hot swap costs nothing at 20 ms RTT and a quarter of the
    mean at 100 ms."""
    low = _penalty(200, 20.0, 50.0, 0.0)
    assert low.penalty_mean == pytest.approx(0.0) and low.penalty_max == pytest.approx(0.0)
    short, long = _penalty(1000, 4.0, 10.0, 0.0), _penalty(1000, 4.0, 50.0, 0.0)
    assert short.penalty_mean == pytest.approx(0.0, abs=1e-9)
    assert 0.2 < long.penalty_mean < 0.3 and long.penalty_max > 2.0


def test_after_a_failover_at_high_load_and_long_rtt_slow_start_adds_about_the_papers_75_percent() -> None:
    """"for high load traffic, the transfer times for an individual message may in some cases
    increase by up to 75%": a failover detected after 800 ms leaves a backlog of 200 messages;
    at 100 ms RTT slow start adds 73 % to the mean transfer time of the messages of the two
    seconds after the failure, at 20 ms RTT 6 %."""
    assert _penalty(1000, 4.0, 50.0, 800.0).penalty_mean == pytest.approx(0.73, abs=0.01)
    assert _penalty(1000, 4.0, 10.0, 800.0).penalty_mean == pytest.approx(0.06, abs=0.01)


# A recorded run of reproductions/000-paper45-startup (UML guest, virtual time): the low-load hot
# swap at 20 ms RTT with slow start from 4 MTUs (200 B at 50 messages/s, the primary set to the
# secondary path at 5.998 s), its plan, kernel read-back, timeline and agent records.
HOT_SWAP_RUN = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "paper45-hot-swap-run"


def test_a_recorded_hot_swap_is_collected_beside_the_model_with_its_own_window(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(HOT_SWAP_RUN, run)
    (run / "captures").mkdir()
    summary = store.collect(run)
    model, m = summary["startup_model"], summary["metrics"]
    assert (model["scenario"], model["path"], model["switch_ms"]) == ("primary change", "secondary", 0.0)
    assert model["initial_cwnd_bytes"] == 4 * MTU and model["mtu_bytes"] == MTU  # initial_cwnd: 4, read back
    assert model["messages"] == 100 and model["undelivered"] == 0  # 2 s at 50 messages/s
    # Signaling never fills 4 MTUs: the model's slow start is its ideal startup, 10 ms and a packet at 10 Mbit/s.
    assert model["mtt_mean_ms"] == model["ideal_mtt_mean_ms"] == pytest.approx(10.0 + schedule.wire_bytes(200) * 8 / 10e6 * 1000)
    assert m["startup_mtt_mean_ms"] == pytest.approx(10.0, abs=0.05)
    assert m["startup_model_error_share"] == pytest.approx(abs(m["startup_mtt_mean_ms"] - model["mtt_mean_ms"]) / model["mtt_mean_ms"])
    table = report.metrics_table(summary, RunMetrics.from_dict(m, "summary"))
    assert "MTT after the primary change to secondary, 100 messages in 2 s: mean / max (ms, virtual clock)" in table
    assert "startup model of Papers IV/V, cwnd 6000 B, switch at +0 ms: mean / max (ms)" in table
    line = summary_text.startup_line(RunMetrics.from_dict(m, "summary"), model, summary["clock"])
    assert line.startswith("startup   primary change to secondary, 100 messages from the cause to +2 s (virtual clock)")
    assert "startup model (Papers IV/V, cwnd 6000 B, switch at +0 ms) mean 10.2 max 10.2 ms" in line
