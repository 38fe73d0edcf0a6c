"""random_first_path: each association's first path drawn from the repetition's seed, so a
campaign's repetitions start from different splits of the sources over the paths (seed 003's
"initial conditions") while every configuration of one repetition starts from the same one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan
from sctpbench.plan.data import Plan

ROOT = Path(__file__).resolve().parents[2]
SEED003 = ROOT / "examples" / "seed003-policies.yaml"
TWO_PATHS = "topology:\n  hosts: [a, b]\n  paths:\n    one: {between: [a, b]}\n    two: {between: [a, b]}\n    three: {between: [a, b]}\n"


def _plan(overrides: list[str], repetition: int) -> Plan:
    return plan.build(spec.load(SEED003, ["workloads.0.random_first_path=true", *overrides]), repetition, "agent")


def _firsts(p: Plan) -> list[str]:
    return [a.paths[0].path for a in p.associations]


def test_the_same_seed_draws_the_same_first_paths() -> None:
    assert _firsts(_plan([], 3)) == _firsts(_plan([], 3))
    # The draw is the repetition's seed's (seed + repetition - 1), as every other draw of a run.
    assert _firsts(_plan(["seed=3"], 1)) == _firsts(_plan([], 3))
    # A campaign's configurations of one repetition start alike: the rate is not in the draw.
    assert _firsts(_plan(["workloads.0.rate=96.15/s"], 3)) == _firsts(_plan([], 3))


def test_repetitions_and_sources_draw_apart() -> None:
    draws = [_firsts(_plan([], r)) for r in range(1, 21)]
    assert len({tuple(d) for d in draws}) > 10
    # Each source draws on its own, not one split for all: both paths in most repetitions.
    assert sum(len(set(d)) == 2 for d in draws) >= 15
    # Over 20 × 6 draws both paths are taken about evenly.
    ones = sum(d.count("one") for d in draws)
    assert 40 <= ones <= 80, ones


def test_the_drawn_path_is_the_kernels_primary_and_the_plan_says_which() -> None:
    p = _plan([], 2)
    assert p.variation["first_path"] == {a.name: a.paths[0].path for a in p.associations}
    for a in p.associations:
        client = next(x for x in p.processes if x.name == a.client_agent)
        # sctp_connectx's first address: the path the INIT takes and the kernel's first primary.
        peers = client.argv[client.argv.index("--peer") + 1].split(",")
        assert peers == [x.server_address for x in a.paths]


def test_draws_only_among_the_first_path_list(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(TWO_PATHS + "workloads:\n  - {name: s, count: 4, client: a, server: b, duration: 2s, "
                             "first_path: [three, one], random_first_path: true}\n")
    e = spec.load(f)
    seen = {path for r in range(1, 30) for path in _firsts(plan.build(e, r, "agent"))}
    assert seen == {"one", "three"}


def test_unset_it_keeps_the_dealt_out_first_paths_and_run_ids() -> None:
    p = plan.build(spec.load(SEED003, ["workloads.0.first_path=[one, two]"]), 4, "agent")
    assert _firsts(p) == ["one", "two"] * 3 and "first_path" not in p.variation
    assert spec.load(SEED003, ["workloads.0.random_first_path=false"]) == spec.load(SEED003)
    assert plan.run_id(plan.identity(spec.load(SEED003, ["workloads.0.random_first_path=false"])), 1) == "47b95db25797"


def test_an_event_on_a_path_that_may_be_drawn_first_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(TWO_PATHS + "workload: {client: a, server: b, duration: 5s, first_path: [one, two], random_first_path: true}\n"
                             "events:\n  - {at: 1s, add_address: two}\n")
    with pytest.raises(SpecError, match="'two' is an association's first path"):
        spec.load(f)
