"""Clocks and seeded variation: which clock a run gets, and repetitions that vary on purpose."""

import shutil
from pathlib import Path

import pytest

from sctpbench.backends.uml import backend as uml
from sctpbench.backends.uml import kernel as uml_kernel
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.orchestration import clock
from sctpbench.plan import build as plan

ROOT = Path(__file__).resolve().parents[2]
FAILOVER = ROOT / "examples" / "failover.yaml"


def _load(*overrides: str) -> spec.Experiment:
    return spec.load(FAILOVER, list(overrides))


def _build(experiment: spec.Experiment, repetition: int) -> plan.Plan:
    return plan.build(experiment, repetition, "/opt/sctpbench-agent")


def test_virtual_is_the_default_clock_and_part_of_the_run_identity() -> None:
    virtual, real = _build(_load(), 1), _build(_load("clock=real"), 1)
    assert virtual.clock == "virtual" and real.clock == "real"
    assert virtual.run_id != real.run_id


def test_an_unknown_clock_is_bad_input() -> None:
    with pytest.raises(SpecError, match=r"clock: 'sundial' is not allowed; allowed: 'virtual', 'paced' or 'real'"):
        _load("clock=sundial")


def test_the_netns_backend_turns_the_default_clock_into_the_real_one() -> None:
    decision = clock.for_backend(_load(), "netns", "failover.yaml")
    assert decision.experiment.clock == "real"
    assert "host's own clock" in decision.note


def test_a_virtual_clock_asked_for_on_the_netns_backend_is_refused() -> None:
    with pytest.raises(SpecError, match=r"failover.yaml: clock: 'virtual' is not available here: .*allowed: real"):
        clock.for_backend(_load("clock=virtual"), "netns", "failover.yaml")


@pytest.mark.skipif(shutil.which("ansible-playbook") is None, reason="the ansible backend needs ansible-playbook")
def test_machines_on_one_virtual_time_turn_the_default_clock_into_paced(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    inventory = tmp_path / "inventory.yaml"
    monkeypatch.setenv("SCTPBENCH_INVENTORY", str(inventory))
    machines = "machines:\n  client: {address: 198.19.255.2}\n"
    inventory.write_text(machines + "clock: {bound: 5ms, shared: paced, epochs: {client: 1}}\n")
    decision = clock.for_backend(_load(), "ansible", "failover.yaml")
    assert decision.experiment.clock == "paced" and "share one virtual time" in decision.note
    with pytest.raises(SpecError, match="clock: 'virtual' is not available here"):
        clock.for_backend(_load("clock=virtual"), "ansible", "failover.yaml")
    inventory.write_text(machines)  # machines with clocks of their own
    assert clock.for_backend(_load(), "ansible", "failover.yaml").experiment.clock == "real"
    with pytest.raises(SpecError, match="do not share one virtual time"):
        clock.for_backend(_load("clock=paced"), "ansible", "failover.yaml")


def test_the_real_clock_is_kept_on_every_backend() -> None:
    for backend in ("netns", "uml"):
        experiment = _load("clock=real")
        assert clock.for_backend(experiment, backend, "x").experiment is experiment


def test_without_vary_repetitions_differ_only_in_seed() -> None:
    first, second = _build(_load(), 1), _build(_load(), 2)
    assert first.variation == second.variation == {}
    assert [a.at_ns for a in first.timeline] == [a.at_ns for a in second.timeline]


def test_vary_draws_event_phases_and_start_offsets_within_their_windows() -> None:
    experiment = _load("vary.event_phase=20ms", "vary.start=5ms")
    base = _build(_load(), 1)
    for repetition in range(1, 30):
        p = _build(experiment, repetition)
        assert 0 <= p.variation["start_offset_ns"] < 5_000_000
        assert all(0 <= ph < 20_000_000 for ph in p.variation["event_phase_ns"])
        start = next(a for a in p.timeline if a.kind == "start")
        assert start.at_ns == p.variation["start_offset_ns"]
        assert p.end_ns == base.end_ns + p.variation["start_offset_ns"]
        moved = sorted(a.at_ns - b.at_ns for a, b in zip(
            (a for a in p.timeline if a.kind != "start"), (b for b in base.timeline if b.kind != "start"), strict=True))
        assert moved == sorted(p.variation["event_phase_ns"])


def test_the_same_seed_draws_the_same_variation_and_another_seed_another() -> None:
    experiment = _load("vary.event_phase=20ms", "vary.start=5ms")
    again = _load("vary.event_phase=20ms", "vary.start=5ms")
    assert _build(experiment, 3).variation == _build(again, 3).variation
    draws = {tuple(_build(experiment, r).variation["event_phase_ns"]) for r in range(1, 11)}
    assert len(draws) == 10


def test_variation_leaves_the_workload_schedule_seed_alone() -> None:
    plain, varied = _build(_load(), 2), _build(_load("vary.start=5ms"), 2)
    assert plain.seed == varied.seed
    client = lambda p: next(x.argv for x in p.processes if x.role == "client")  # noqa: E731
    assert client(plain) == client(varied)


def test_the_guest_wall_clock_is_set_back_only_on_virtual_time() -> None:
    virtual = _build(_load(), 1)
    assert uml.wall_offset_ns(virtual) == virtual.end_ns + virtual.drain_timeout_ns
    assert uml.wall_offset_ns(_build(_load("clock=real"), 1)) == 0


def test_the_kernel_cache_key_follows_the_config_fragment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = uml_kernel.build_key()
    if key is None:
        pytest.skip("linux-source-6.1 is not installed")
    fragment = tmp_path / "uml.config"
    fragment.write_text(uml_kernel.FRAGMENT.read_text() + "CONFIG_EXTRA=y\n")
    monkeypatch.setattr(uml_kernel, "FRAGMENT", fragment)
    assert uml_kernel.build_key() != key


def test_identical_repetitions_are_pointed_out_on_virtual_time_only() -> None:
    assert "will agree" in clock.repetition_note(_load("repeat=3"))
    assert clock.repetition_note(_load("repeat=3", "vary.event_phase=20ms")) == ""
    assert clock.repetition_note(_load("repeat=3", "clock=real")) == ""
    assert clock.repetition_note(_load("repeat=1")) == ""


@pytest.mark.parametrize("netem", ["topology.paths.primary.loss=1%", "topology.paths.secondary.forward.jitter=2ms",
                                   "topology.paths.primary.reorder=5%"])
def test_netem_drawing_at_random_varies_repetitions_with_their_seeds(netem: str) -> None:
    # The guest kernel's random numbers come from each repetition's seed (kernel/patches/0005).
    assert clock.repetition_note(_load("repeat=3", netem)) == ""


def test_a_degrade_event_that_adds_loss_varies_repetitions_and_one_that_adds_delay_does_not(tmp_path: Path) -> None:
    for values, note in (("{loss: 2%}", False), ("{delay: 50ms}", True)):
        f = tmp_path / "degrade.yaml"
        f.write_text(FAILOVER.read_text().replace("events:\n", f"events:\n  - {{at: 1s, degrade: secondary, set: {values}}}\n"))
        assert ("will agree" in clock.repetition_note(spec.load(f, ["repeat=3"]))) is note, values
