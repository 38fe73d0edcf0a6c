"""Calibration runs are derived from the experiment: same topology and SCTP, own workload."""

import math
from pathlib import Path

from sctpbench.model import spec
from sctpbench.orchestration import calibrate

ROOT = Path(__file__).resolve().parents[2]
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
    # 6 Mbit/s over 600 ms: 12 round trips of slow start (423 kB) and 2 more, then 7 to measure
    assert calibrate.saturate_slot(long) == (21 * 600 * MS, 14 * 600 * MS)
    # 1 Gbit/s over 40 ms: slow start needs about 18 round trips (1.5× each) to fill 4.7 MB
    fast = spec.load(ROOT / "examples/rate-calibration.yaml", ["topology.paths.wan.rate=1gbit"])
    assert calibrate.saturate_slot(fast) == (3 * S, 20 * 40 * MS)


def test_tolerance_is_relative_for_delay_and_goodput_and_a_binomial_test_for_loss() -> None:
    m = calibrate.Measurement
    c = calibrate.Calibration(0.05, [
        m("a", "delay_ms", 20, 20.5, 0.025), m("a", "goodput_mbit", 5.6, 4.0, -0.29),
        m("a", "loss_pct", 5, 7.2, 2.2, within=True), m("b", "loss_pct", 0, 0.2, 0.2, within=False),
    ], "x")
    assert [(x.path, x.quantity) for x in c.exceeded] == [("a", "goodput_mbit"), ("b", "loss_pct")]


def test_saturation_bounds_the_window_to_the_round_trip_plus_half_the_queue() -> None:
    # Unbounded (8 MB buffers) slow start overflowed the 1000-packet queue, and the 3 s slot
    # measured SCTP's loss recovery: 21 of 42 Mbit/s at 45, 10 of 94 at 100.
    e = spec.load(ROOT / "examples/rate-calibration.yaml", ["topology.paths.wan.rate=100mbit"])
    sat = calibrate.saturate_experiment(e)
    pipe = 100e6 / 8 * calibrate.PAYLOAD_SHARE * 0.040
    window = calibrate.saturate_window(sat)
    assert window == int(pipe + 1000 * calibrate.SATURATE_SIZE / 2)
    assert sat.sctp.rcvbuf == 2 * window  # Linux advertises half the receive buffer
    assert sat.sctp.sndbuf >= calibrate.SNDBUF_PER_WINDOW * window
    assert sat.topology.paths["wan"].direction("forward")["queue"] == 1000  # deep enough already
    assert e.sctp.rcvbuf == 8_000_000  # the experiment itself is left alone


def test_saturation_deepens_a_queue_too_shallow_for_slow_start() -> None:
    e = spec.load(ROOT / "examples/rate-calibration.yaml", ["topology.paths.wan.rate=1gbit"])
    wan = calibrate.saturate_experiment(e).topology.paths["wan"]
    pipe_packets = 1e9 / 8 * 0.040 / 1062
    assert wan.direction("forward")["queue"] == math.ceil(pipe_packets)
    assert wan.direction("forward")["rate"] == 1e9 and wan.direction("reverse")["queue"] == 1000  # SACKs: as configured


def test_a_path_the_shared_window_cannot_fill_is_refused_with_the_reason() -> None:
    # One association, one receive window: a 1 Gbit/s path beside a 1 Mbit/s one with a short
    # queue cannot be filled without overflowing the slow path's queue.
    e = spec.load(ROOT / "examples/verify-shaping.yaml", [
        "topology.paths.primary.rate=1mbit", "topology.paths.primary.queue=20",
        "topology.paths.secondary.rate=1gbit"])
    assert calibrate.window_limited(calibrate.saturate_topology(e), "primary") == ""
    why = calibrate.window_limited(calibrate.saturate_topology(e), "secondary")
    assert "calibrate it alone" in why
