"""Where t0 falls, and how exactly the run's processes wake: what keeps a run's figures the
same whatever its set-up cost (docs/clocks.md, "What moves a run's figures")."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

from sctpbench.backends.netns import engine as netns_engine
from sctpbench.backends.netns.engine import START_GRID_NS, T0_LEAD_NS, TICK_NS, WholePlan, on_tick


def test_on_tick_is_the_first_grid_point_at_or_after_the_time() -> None:
    assert on_tick(5_000_000) == 5_000_000
    assert on_tick(5_000_001) == 6_000_000
    assert on_tick(5_999_999) == 6_000_000
    assert on_tick(12_345_678, 10_000_000) == 20_000_000


@dataclass
class _Clock:
    """A clock that moves 1 µs per read, as a guest's set-up moves its clock."""

    t: int

    def __call__(self) -> int:
        self.t += 1_000
        return self.t


@dataclass
class _Engine:
    clock: _Clock
    plan: Any
    started: list[tuple[str, int]] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)

    def start_process(self, p: Any) -> None:
        self.started.append((p, self.clock.t))
        self.clock.t += 3_333_333  # a process start costs an awkward amount of time

    def report(self, line: str) -> None:
        self.reports.append(line)


def _start(after_setup_ns: int, monkeypatch: pytest.MonkeyPatch) -> tuple[_Engine, int]:
    clock = _Clock(after_setup_ns)

    def sleep(seconds: float) -> None:
        clock.t += int(seconds * 1e9)

    monkeypatch.setattr(netns_engine.time, "sleep", sleep)

    class Share(WholePlan):
        now = staticmethod(clock)

    class Plan:
        processes = ["server", "client"]
        clock = "virtual"

    engine = _Engine(clock, Plan())
    t0 = Share().start_processes(engine)  # type: ignore[arg-type]
    return engine, t0


def test_processes_start_on_the_grid_and_t0_falls_on_the_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    for setup_ns in (1_234_567, 1_734_567, 98_765_432):
        engine, t0 = _start(setup_ns, monkeypatch)
        grid_point = on_tick(setup_ns, START_GRID_NS)
        # The wait ends a few clock reads past the grid point (each a µs here).
        assert grid_point <= engine.started[0][1] <= grid_point + 3_000
        assert t0 % TICK_NS == 0
        assert t0 >= engine.started[-1][1] + T0_LEAD_NS
        assert engine.reports == ["association up; t0 in 300 ms"]


def test_a_set_up_a_little_longer_or_shorter_moves_nothing_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two set-ups that end within one grid step give the same start and t0 to the ns."""
    a_engine, a_t0 = _start(40_100_000, monkeypatch)
    b_engine, b_t0 = _start(49_900_000, monkeypatch)
    assert [t for _, t in a_engine.started] == [t for _, t in b_engine.started]
    assert a_t0 == b_t0


def test_exact_timers_reach_the_processes_started_after() -> None:
    """The engine's timer slack of 1 ns is what its agents, captures and tc sessions inherit."""
    code = ("import subprocess\n"
            "from sctpbench.backends.netns import inside\n"
            "inside.exact_timers()\n"
            "print(open('/proc/self/timerslack_ns').read().strip())\n"
            "subprocess.run(['cat', '/proc/self/timerslack_ns'], check=True)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["1", "1"]


def test_without_exact_timers_the_default_slack_is_what_a_process_has() -> None:
    """The test above can fail: a process that did not ask has the kernel's 50 µs."""
    out = subprocess.run(["cat", "/proc/self/timerslack_ns"], capture_output=True, text=True, check=True).stdout
    assert int(out) > 1


def test_on_virtual_time_a_wait_sleeps_to_its_deadline_and_never_spins(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spin reads the clock ~7,800 times per 2 ms in a guest (each a trapped system call)."""
    clock = _Clock(1_000_000)
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.t += int(seconds * 1e9)

    monkeypatch.setattr(netns_engine.time, "sleep", sleep)
    before = clock.t
    netns_engine.sleep_until(501_000_000, clock, 0)
    assert len(sleeps) == 1 and clock.t >= 501_000_000
    assert (clock.t - before - int(sleeps[0] * 1e9)) // 1_000 <= 3  # three clock reads, no spin


def test_only_the_real_clock_spins() -> None:
    class Plan:
        clock = "real"

    assert netns_engine.spin_ns(Plan()) == netns_engine.SPIN_NS  # type: ignore[arg-type]
    for clock in ("virtual", "paced"):
        Plan.clock = clock
        assert netns_engine.spin_ns(Plan()) == 0  # type: ignore[arg-type]
