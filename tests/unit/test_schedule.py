"""Message schedules compiled for the agent: video traces and signaling mixes (no kernel)."""

from __future__ import annotations

from pathlib import Path

from scipy import stats

from sctpbench.model import distributions as d
from sctpbench.model import videotrace
from sctpbench.plan import schedule

TRACE = Path(__file__).resolve().parents[2] / "sctpbench" / "workloads" / "video" / "testsrc2-cif-1M.trace"


def test_a_video_trace_becomes_fragments_at_each_frames_time() -> None:
    frames = videotrace.parse(TRACE.read_text(), str(TRACE))
    messages = schedule.video(frames, fragment=1200)
    for f in frames:
        pieces = [m for m in messages if m.frame == f.number]
        assert sum(m.size for m in pieces) == max(f.size, schedule.MIN_SIZE)
        assert {m.offset_ns for m in pieces} == {f.time_ns} and all(m.size <= 1200 for m in pieces)
        assert {m.frame_type for m in pieces} == {f.type}


def test_exponential_gaps_pass_a_goodness_of_fit_test() -> None:
    spec = schedule.Mix(size=d.Constant(200), gap=d.Exponential(10e6))
    times = [m.offset_ns for m in schedule.mix(spec, 60_000_000_000, seed=7)]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert stats.kstest(gaps, "expon", args=(0, 10e6)).pvalue > 0.01
    # The same seed gives the same schedule; another seed another one.
    assert schedule.mix(spec, 1_000_000_000, seed=7) == schedule.mix(spec, 1_000_000_000, seed=7)
    assert schedule.mix(spec, 1_000_000_000, seed=7) != schedule.mix(spec, 1_000_000_000, seed=8)


def test_sizes_follow_their_distribution_within_the_agents_bounds() -> None:
    pareto = schedule.Mix(size=d.Pareto(shape=1.5, mean=300), gap=d.Constant(1e6))
    sizes = [m.size for m in schedule.mix(pareto, 20_000_000_000, seed=1)]
    assert min(sizes) >= 100 and max(sizes) <= schedule.MAX_SIZE
    empirical = schedule.Mix(size=d.Empirical((100, 1000), (3, 1)), gap=d.Constant(1e6))
    sizes = [m.size for m in schedule.mix(empirical, 4_000_000_000, seed=1)]
    assert set(sizes) == {100, 1000} and 0.7 < sizes.count(100) / len(sizes) < 0.8


def test_on_off_bursts_leave_silences() -> None:
    spec = schedule.Mix(size=d.Constant(100), gap=d.Constant(10e6), on=d.Constant(100e6), off=d.Constant(400e6))
    times = [m.offset_ns for m in schedule.mix(spec, 1_000_000_000, seed=1)]
    assert times[:10] == [i * 10_000_000 for i in range(10)]
    assert times[10] == 500_000_000  # 100 ms on, then 400 ms off
    assert len(times) == 20


def test_streams_merge_in_time_order_and_render_in_the_agents_format() -> None:
    a = schedule.mix(schedule.Mix(size=d.Constant(100), gap=d.Constant(30e6), stream=0), 100_000_000, seed=1)
    b = schedule.mix(schedule.Mix(size=d.Constant(50), gap=d.Constant(40e6), stream=1, unordered=True, lifetime_ms=20),
                     100_000_000, seed=1)
    merged = schedule.merge(a, b)
    assert [m.offset_ns for m in merged] == sorted(m.offset_ns for m in merged)
    lines = schedule.render(merged).splitlines()
    assert lines[1:4] == ["0 100 0 - 0", "0 50 1 u 20", "30000000 100 0 - 0"]
