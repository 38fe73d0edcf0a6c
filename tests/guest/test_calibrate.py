"""Calibration in the guest: achieved delay and rate within 5 % of the configuration."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# Buffers of a few bandwidth-delay products: enough to fill the path, and drained in seconds.
@pytest.mark.parametrize("rate, delay, buffer", [("1mbit", "300ms", "256KB"), ("6mbit", "20ms", "256KB")])
def test_rate_and_delay_are_within_5_percent(tmp_path: Path, rate: str, delay: str, buffer: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "check", "--calibrate", str(ROOT / "examples/rate-calibration.yaml"),
         "--set", f"topology.paths.wan.rate={rate}", "--set", f"topology.paths.wan.delay={delay}",
         "--set", f"sctp.sndbuf={buffer}", "--set", f"sctp.rcvbuf={buffer}", "--out", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    measured = {m["quantity"]: m for m in json.loads(r.stdout)["measurements"]}
    assert abs(measured["goodput_mbit"]["error"]) <= 0.05, measured["goodput_mbit"]
    assert abs(measured["delay_ms"]["error"]) <= 0.05, measured["delay_ms"]
    assert measured["loss_pct"]["achieved"] == 0.0


def test_45_mbit_on_virtual_time_is_within_2_percent_of_the_ceiling(tmp_path: Path) -> None:
    # With the window unbounded, slow start overflowed the queue and the slot measured SCTP's
    # loss recovery (21 of 42.4 Mbit/s); bounded, virtual time gives the ceiling to 0.01 %.
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "check", "--calibrate", str(ROOT / "examples/rate-calibration.yaml"),
         "--set", "topology.paths.wan.rate=45mbit", "--out", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    goodput = next(m for m in json.loads(r.stdout)["measurements"] if m["quantity"] == "goodput_mbit")
    assert abs(goodput["error"]) <= 0.02, goodput
