"""Calibration runs are derived from the experiment: same topology and SCTP, own workload."""

from pathlib import Path

from sctpbench.testbed import calibrate, spec

ROOT = Path(__file__).resolve().parent.parent
S, MS = 1_000_000_000, 1_000_000


def test_probe_visits_every_association_path_and_captures_through_the_emulator() -> None:
    e = spec.load(ROOT / "examples/verify-shaping.yaml")
    probe = calibrate.probe_experiment(e)
    assert [(ev.at, ev.primary) for ev in probe.events] == [(0, "primary"), (2 * S, "secondary")]
    assert probe.workload.duration == 4 * S and probe.workload.ordered is False
    assert probe.measure.capture is True and probe.measure.calibrate is False and probe.repeat == 1
    assert probe.topology == e.topology and probe.sctp == e.sctp


def test_saturation_takes_loss_out_and_lasts_long_enough_for_long_paths() -> None:
    e = spec.load(ROOT / "examples/verify-shaping.yaml")
    sat = calibrate.saturate_experiment(e)
    assert sat.workload.arrival == "saturate"
    for path in sat.topology.paths.values():
        for d in ("forward", "reverse"):
            assert path.direction(d)["loss"] == 0 and path.direction(d)["gilbert_elliott"] is None
    assert sat.topology.paths["primary"].direction("forward")["delay"] == 20 * MS  # the rest is kept
    long = spec.load(ROOT / "examples/rate-calibration.yaml", ["topology.paths.wan.delay=300ms"])
    assert calibrate.saturate_slot(long) == (15 * 600 * MS, 8 * 600 * MS)


def test_tolerance_is_relative_for_delay_and_goodput_and_a_binomial_test_for_loss() -> None:
    m = calibrate.Measurement
    c = calibrate.Calibration(0.05, [
        m("a", "delay_ms", 20, 20.5, 0.025), m("a", "goodput_mbit", 5.6, 4.0, -0.29),
        m("a", "loss_pct", 5, 7.2, 2.2, within=True), m("b", "loss_pct", 0, 0.2, 0.2, within=False),
    ], "x")
    assert [(x.path, x.quantity) for x in c.exceeded] == [("a", "goodput_mbit"), ("b", "loss_pct")]
