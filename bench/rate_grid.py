#!/usr/bin/env python3
"""Rate fidelity: configured rate, the goodput ceiling, achieved goodput, error and wall time.

    .venv/bin/python bench/rate_grid.py [--rates 6,45,100,1000] [--set clock=real] [--set …]

Each rate is one `sctpbench check --calibrate examples/rate-calibration.yaml` (one 20 ms path
through the emulator, queue 1000 packets): its saturate run sends 1000 B messages with the
window bounded to the path's round trip plus half its queue (`calibrate.saturate_window`).

ceiling   the configured rate times the payload share of what tbf charges per message
          (1000 of 1000 + 16 DATA + 12 SCTP + 20 IP + 14 Ethernet bytes = 94.16 %);
achieved  payload bytes delivered to the server application per second, after slow start;
error     achieved / ceiling - 1;
wall      wall-clock seconds of the whole calibration (boot, probe run, saturate run).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sctpbench.orchestration.calibrate import PAYLOAD_SHARE

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENT = ROOT / "examples" / "rate-calibration.yaml"


def calibrate(mbit: float, overrides: list[str]) -> tuple[dict[str, Any], float]:
    """The goodput measurement of one calibration, and its wall time in seconds."""
    out = tempfile.mkdtemp(prefix="sctpbench-rate-")
    sets = [f"topology.paths.wan.rate={round(mbit * 1000)}kbit", *overrides]
    began = time.monotonic()
    # Exit 1 only says a figure is off: the figures are what this prints.
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "check", "--calibrate", str(EXPERIMENT), "--out", out,
                        "--json", *[a for s in sets for a in ("--set", s)]], capture_output=True, text=True)
    wall = time.monotonic() - began
    if r.returncode not in (0, 1) or not r.stdout.strip():
        raise SystemExit(f"calibration at {mbit:g} Mbit/s failed:\n{r.stderr}")
    measured = json.loads(r.stdout)["measurements"]
    return next(m for m in measured if m["quantity"] == "goodput_mbit"), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="6,45,100,1000", help="Mbit/s, comma-separated")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    label = ", ".join(args.overrides) or "clock=virtual (default)"
    print(f"rate grid ({label}); ceiling = configured × {PAYLOAD_SHARE:.2%}")
    print(f"  {'configured':>10} {'ceiling':>10} {'achieved':>10} {'error':>8} {'wall s':>8}  note")
    for mbit in (float(x) for x in args.rates.split(",") if x):
        m, wall = calibrate(mbit, args.overrides)
        ceiling = mbit * PAYLOAD_SHARE
        if m["achieved"] is None:
            print(f"  {mbit:10g} {ceiling:10.3f} {'-':>10} {'-':>8} {wall:8.1f}  {m['note']}", flush=True)
            continue
        error = m["achieved"] / ceiling - 1
        print(f"  {mbit:10g} {ceiling:10.3f} {m['achieved']:10.3f} {error:+8.2%} {wall:8.1f}  {m['note']}", flush=True)


if __name__ == "__main__":
    main()
