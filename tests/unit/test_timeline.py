"""Compound events expand into steps deterministically: flap, trace, ping-pong, degrade."""

import itertools
from pathlib import Path

import pytest

from sctpbench.model import spec, timeline
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan

ROOT = Path(__file__).resolve().parents[2]
S, MS = 1_000_000_000, 1_000_000


def _steps(name: str, overrides: list[str] = ()) -> list[timeline.Step]:
    e = spec.load(ROOT / "examples" / name, list(overrides))
    configured = {n: {d: p.direction(d) for d in timeline.DIRECTIONS} for n, p in e.topology.paths.items()}
    return timeline.expand(e.events, configured, e.seed, e.workload.start + e.workload.duration)


def test_flap_is_fail_and_restore_pairs_until_the_end() -> None:
    flap = [(s.at_ns, s.kind) for s in _steps("link-faults.yaml") if s.path == "secondary"]
    assert flap == [(8 * S, "fail"), (8250 * MS, "restore"), (9 * S, "fail"), (9250 * MS, "restore")]


def test_degrade_accumulates_and_carries_the_complete_values() -> None:
    steps = _steps("link-faults.yaml", ["events.0.direction=forward"])
    degrade = next(s for s in steps if s.kind == "degrade")
    assert degrade.direction == "forward"
    assert (degrade.values["delay"], degrade.values["jitter"], degrade.values["rate"]) == (30 * MS, 2 * MS, 100_000_000)


def test_trace_file_becomes_delay_steps_in_both_directions() -> None:
    steps = [(s.at_ns, s.direction, s.values["delay"]) for s in _steps("delay-step.yaml")]
    assert steps == [
        (2 * S, "forward", 80 * MS), (2 * S, "reverse", 80 * MS),
        (4 * S, "forward", 40 * MS), (4 * S, "reverse", 40 * MS),
        (6 * S, "forward", 20 * MS), (6 * S, "reverse", 20 * MS),
    ]


def test_pingpong_repeats_exactly_with_the_same_seed_and_differs_with_another() -> None:
    a = _steps("pingpong.yaml")
    assert a == _steps("pingpong.yaml")
    assert [s.at_ns for s in a] != [s.at_ns for s in _steps("pingpong.yaml", ["seed=3"])]
    moves = sorted({s.at_ns for s in a})
    assert moves[0] == 1 * S
    assert all(1 * S <= b - a <= 3 * S for a, b in itertools.pairwise(moves))
    # at each move one network turns good and the other bad
    first = [s for s in a if s.at_ns == moves[0]]
    assert {(s.path, s.values["delay"]) for s in first} == {("neta", 10 * MS), ("netb", 100 * MS)}


def test_pingpong_with_switch_primary_hands_over_at_each_move() -> None:
    shaping_only = _steps("pingpong.yaml")
    assert not [s for s in shaping_only if s.kind in ("primary", "peer_primary")]
    steps = _steps("pingpong.yaml", ["events.0.switch_primary=true", "events.0.peer=true"])
    # the same moves, each now also making the path moved onto the primary, here and at the peer
    assert [s for s in steps if s.kind == "degrade"] == shaping_only
    moves = sorted({s.at_ns for s in steps})
    handovers = [(s.at_ns, s.kind, s.path) for s in steps if s.kind in ("primary", "peer_primary")]
    expected = [(t, kind, ("neta", "netb")[i % 2]) for i, t in enumerate(moves) for kind in ("primary", "peer_primary")]
    assert handovers == expected


def test_pingpong_peer_needs_primary() -> None:
    with pytest.raises(SpecError, match=r"peer: only with switch_primary: true"):
        _steps("pingpong.yaml", ["events.0.peer=true"])


def test_trace_rows_are_checked_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("# t v\n0s 10ms\n1s fast\n")
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology: dual-homed\nworkload: {client: client, server: server, duration: 5s}\n"
        "events:\n  - {at: 0s, trace: primary, field: delay, file: t.txt}\n"
    )
    with pytest.raises(SpecError, match=r"t.txt:3: 'fast' is not a duration"):
        spec.load(f)


def test_inline_trace_steps_and_mahimahi_free_units(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology: dual-homed\nworkload: {client: client, server: server, duration: 5s}\n"
        "events:\n  - {at: 1s, trace: primary, field: rate, direction: forward, steps: [[0s, 6mbit], [2s, 1mbit]]}\n"
    )
    e = spec.load(f)
    assert e.events[0].steps == [(0, 6_000_000), (2 * S, 1_000_000)]


@pytest.mark.parametrize("event, message", [
    ("{at: 1s, fail: primary, period: 1s}", "period: unknown key; allowed: at, fail"),
    ("{at: 1s, flap: primary}", "period: required key is missing"),
    ("{at: 1s, degrade: primary, set: {queue: 5}}", "the queue is fixed when the path is built"),
    ("{at: 1s, trace: primary, field: delay}", "trace needs steps"),
    ("{at: 1s, pingpong: [primary, secondary], good: {delay: 1ms}, bad: {delay: 9ms}, dwell: [2s, 1s]}", "dwell: [min, max]"),
])
def test_bad_events_say_what_is_allowed(tmp_path: Path, event: str, message: str) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(f"topology: dual-homed\nworkload: {{client: client, server: server, duration: 5s}}\nevents:\n  - {event}\n")
    with pytest.raises(SpecError, match=rf"x.yaml:4: events.0.*{message.replace('[', '.').replace(']', '.')}"):
        spec.load(f)


def test_down_and_up_act_on_both_hosts_and_up_restores_routes() -> None:
    p = plan.build(spec.load(ROOT / "examples/link-faults.yaml"), 1, "agent")
    down = next(t for t in p.timeline if t.kind == "down")
    up = next(t for t in p.timeline if t.kind == "up")
    assert {c.host for c in down.commands} == {"client", "server"}
    assert [c.args[:2] for c in up.commands].count(["route", "replace"]) == 4


def test_mahimahi_delivery_opportunities_become_rate_steps_that_parse_back() -> None:
    text = "0\n0\n5\n10\n10\n10\n150\n160\n250\n"  # ms of 1500 B delivery opportunities
    steps = timeline.mahimahi_rate_steps(text, 100 * MS, "t")
    assert steps == [(0, 720_000), (100 * MS, 240_000), (200 * MS, 120_000)]
    rendered = timeline.format_trace(steps, "rate")
    assert timeline.parse_trace(rendered, "rate", "t") == steps
    with pytest.raises(ValueError, match="t:2: expected a time in ms"):
        timeline.mahimahi_rate_steps("0\nx\n", 100 * MS, "t")
