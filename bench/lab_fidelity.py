#!/usr/bin/env python3
"""A lab of guests on one virtual time, idle and beside N busy loops: do the results move?

    .venv/bin/python bench/lab_fidelity.py [--loads 0,2] [--clock virtual|real] [--experiment FILE]

For each load it starts a fresh lab (`sctpbench lab up`), runs the experiment through the
emulator on it with the ansible backend, ends the lab, and prints the metrics, the run's
status and where the wall time went (lab up, prepare.yml, run.yml, clean.yml). On virtual
time the metrics should agree at every load to within the microseconds that clock reads
cost in a guest; on the real clock (`--clock real`) load moves them and the self-check says
so. Needs root (the lab's namespace and taps).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.clock_fidelity import METRICS, busy_loops, stop  # noqa: E402
from sctpbench.lab import lifecycle  # noqa: E402


def one(experiment: Path, clock: str, load: int, work: Path) -> dict[str, object]:
    folder = work / f"lab-{load}"
    started = time.monotonic()
    lifecycle.up(experiment, folder, overrides=["topology.emulator=true"], clock=clock)
    up_s = time.monotonic() - started
    loops = busy_loops(load)
    try:
        started = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--set", "topology.emulator=true",
                            "--backend", "ansible", "--inventory", str(folder / "inventory.yaml"), "--json",
                            "--out", str(work / f"out-{load}")], capture_output=True, text=True, timeout=1800)
        run_s = time.monotonic() - started
    finally:
        stop(loops)
        lifecycle.down(folder)
    if r.returncode not in (0, 1):
        return {"load": load, "status": f"exit {r.returncode}: {r.stderr.strip().splitlines()[-1:]}"}
    run = json.loads(r.stdout)["runs"][0]
    folder_run = Path(run["directory"])
    phases = json.loads((folder_run / "ansible.json").read_text())
    summary = json.loads((folder_run / "summary.json").read_text())
    return {"load": load, "status": run["status"], "metrics": {m: summary["metrics"].get(m) for m in METRICS},
            "lab_up_s": round(up_s, 1), "whole_s": round(run_s, 1),
            **{k: phases.get(k) for k in ("prepare_s", "run_s", "clean_s")},
            "clock": json.loads((folder_run / "plan.json").read_text())["clock"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", default="0,2")
    ap.add_argument("--clock", default="virtual", choices=("virtual", "real"))
    ap.add_argument("--experiment", type=Path, default=ROOT / "examples/failover.yaml")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sblab-bench-") as tmp:
        outcomes = [one(args.experiment, args.clock, int(n), Path(tmp)) for n in args.loads.split(",")]
    print(f"lab on the {args.clock} clock, {args.experiment.name} through the emulator (wall clock for the times)")
    print(f"{'load':>4} {'status':<10} {'clock':<7} " + " ".join(f"{m:>18}" for m in METRICS)
          + "  lab up s  prepare s  run.yml s  clean s  whole run s")
    for o in outcomes:
        metrics = o.get("metrics") or {}
        assert isinstance(metrics, dict)
        print(f"{o['load']:>4} {o['status']:<10} {o.get('clock', '-')!s:<7} "
              + " ".join(f"{metrics.get(m) if metrics.get(m) is not None else '-':>18}" for m in METRICS)
              + f"  {o.get('lab_up_s', '-')!s:>8} {o.get('prepare_s', '-')!s:>10} {o.get('run_s', '-')!s:>10}"
              f" {o.get('clean_s', '-')!s:>8} {o.get('whole_s', '-')!s:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
