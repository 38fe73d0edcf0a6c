"""The seed examples' campaigns sweep what their comments say they sweep (no kernel).

Seed 003's utilisation is the seed's own (its eq. 2): the sources' rates over the sum of the
paths' capacities, each message costing a link what the rate limiter charges. Seed 002's
configurations of a repetition must move the terminal the same way, or the policies would be
compared on different movements.
"""

from pathlib import Path

import pytest

from sctpbench.campaign import expand, spec
from sctpbench.campaign.expand import Run
from sctpbench.model.events.base import changes
from sctpbench.model.events.pingpong import PingpongEvent
from sctpbench.plan.schedule import wire_bytes

ROOT = Path(__file__).resolve().parents[2]
SEED003 = ["seed003-policies.yaml", "seed003-policies-3paths.yaml"]
SEED003_RHO = {0.72, 0.81, 0.90, 0.99}


def _runs(name: str) -> list[Run]:
    return expand.runs(spec.load(ROOT / "examples/campaigns" / name))


def _aggregate_utilisation(run: Run) -> float:
    e = run.experiment
    (w,) = e.workloads or []
    capacity = sum(p.rate for p in e.topology.paths.values())
    return float(w.count * w.rate * wire_bytes(w.size) * 8 / capacity)


@pytest.mark.parametrize("name", SEED003)
def test_seed003_sweeps_the_seeds_aggregate_utilisation_over_link_paths(name: str) -> None:
    runs = _runs(name)
    assert {round(_aggregate_utilisation(r), 3) for r in runs} == SEED003_RHO
    for r in runs:
        paths = r.experiment.topology.paths.values()
        assert {(p.rate, p.rate_model) for p in paths} == {(1_000_000, "link")}
        assert [w.count for w in r.experiment.workloads or []] == [6]


@pytest.mark.parametrize("name", SEED003)
def test_seed003_compares_reactive_and_predictive_with_and_without_guard(name: str) -> None:
    policies = {w.policy for r in _runs(name) for w in r.experiment.workloads or []}
    assert {p.partition(":")[0] for p in policies} == {"delay-centric", "predictive"}
    assert {"guard=1000-4000" in p for p in policies} == {True, False}
    assert all("threshold=70" in p for p in policies if p.startswith("predictive"))


def test_seed002_every_configuration_of_a_repetition_moves_the_same_way() -> None:
    runs = _runs("seed002-pingpong.yaml")
    moves: dict[int, set[tuple[int, ...]]] = {}
    for r in runs:
        (event,) = r.experiment.events
        assert isinstance(event, PingpongEvent)
        steps = event.expand(r.seed, r.experiment.end_ns)
        moves.setdefault(r.repetition, set()).add(tuple(sorted({s.at_ns for s in steps if s.kind == "degrade"})))
    assert all(len(m) == 1 for m in moves.values()), moves
    assert len({next(iter(m)) for m in moves.values()}) == len(moves)  # repetitions move differently


def test_seed002_reference_is_mobility_driven_and_the_policies_are_not() -> None:
    for r in _runs("seed002-pingpong.yaml"):
        (event,) = r.experiment.events
        assert isinstance(event, PingpongEvent)
        (workload,) = r.experiment.associations
        policy = workload.policy
        assert event.switch_primary == (policy == "static"), (policy, event.switch_primary)


def test_seed002_gaps_straddle_beta() -> None:
    gaps = set()
    for r in _runs("seed002-pingpong.yaml"):
        (event,) = r.experiment.events
        assert isinstance(event, PingpongEvent)
        good, bad = changes(event.good)["delay"], changes(event.bad)["delay"]
        assert r.experiment.topology.paths["netb"].delay == bad
        gaps.add(2 * (bad - good))  # RTT gap, ns
    assert sorted(gaps) == [50_000_000, 500_000_000]  # below and above beta = 100 ms
