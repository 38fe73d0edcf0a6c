#!/usr/bin/env python3
"""Campaign throughput (runs per hour) and timing error as parallelism grows, in one go.

    .venv/bin/python bench/campaign_throughput.py [--parallel 1,2,3,4] [--clocks virtual,real] [--reduced] [--campaign FILE]

Runs the whole example campaign (examples/campaigns/failover-tuning.yaml, 24 runs; with
--reduced one repetition, 8 runs) from scratch at each parallelism and prints, per
parallelism: wall time, runs per hour, the median run's duration, and the timing error
that parallel guests could add, median and max across the runs:
  - fail lag: how late the failure was applied after its scheduled time (events[].lag_ns);
  - MTT p50 error: the run's median MTT minus the configured one-way delay of the
    primary path (the stack's and the emulation's own cost; it grows when guests wait
    for a CPU).
The default parallelism (campaign/execute.py DEFAULT_PARALLEL) is the largest at which
both errors stay near the serial figures on the real clock. On virtual time guests do not
disturb each other's timing (the errors stay at their serial values), so there only the
throughput matters. CPU sensitive: run it on an otherwise idle host.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sctpbench.campaign import execute, expand, spec  # noqa: E402
from sctpbench.orchestration import capabilities  # noqa: E402


def _on_clock(runs: list[expand.Run], clock: str) -> list[expand.Run]:
    """The same runs on another clock (other results, so other run keys)."""
    return [run.with_experiment(run.experiment.model_copy(update={"clock": clock})) for run in runs]


def _errors(folder: Path, runs: list[expand.Run]) -> tuple[list[float], list[float], list[float], int]:
    lags, mtt_errors, durations, failed = [], [], [], 0
    for run in runs:
        summary = json.loads((execute.run_dir(folder, run) / "summary.json").read_text())
        if summary["status"] != "ok":
            failed += 1
            continue
        lags += [e["lag_ns"] / 1e6 for e in summary["events"] if e["kind"] == "fail"]
        delay_ms = run.experiment.topology.paths["primary"].direction("forward")["delay"] / 1e6
        if summary["metrics"].get("mtt_p50_ms") is not None:
            mtt_errors.append(summary["metrics"]["mtt_p50_ms"] - delay_ms)
    for entry in (folder / execute.LOG_FILE).read_text().splitlines():
        e = json.loads(entry)
        if e["event"] == "end" and "seconds" in e:
            durations.append(e["seconds"])
    return lags, mtt_errors, durations, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaign", type=Path, default=HERE.parent / "examples/campaigns/failover-tuning.yaml")
    parser.add_argument("--parallel", default="1,2,3,4")
    parser.add_argument("--reduced", action="store_true", help="one repetition per configuration")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--clocks", default="virtual,real", help="clocks to compare, comma-separated")
    args = parser.parse_args()
    loaded = spec.load(args.campaign)
    if args.reduced:
        loaded = loaded.model_copy(update={"campaign": loaded.campaign.model_copy(update={"repetitions": 1})})
    runs = expand.runs(loaded)
    backend, why = capabilities.choose_backend(args.backend)
    if backend is None:
        raise SystemExit(why)
    levels = [int(p) for p in args.parallel.split(",")]
    print(f"campaign {loaded.campaign.name}: {len(runs)} runs at each parallelism; host {os.cpu_count()} CPUs, backend {backend}")
    for clock in args.clocks.split(","):
        print(f"clock {clock}")
        _measure(loaded, _on_clock(runs, clock), backend, levels)


def _measure(loaded: spec.Loaded, runs: list[expand.Run], backend: str, levels: list[int]) -> None:
    print(f"{'parallel':>8} {'wall s':>7} {'runs/h':>7} {'run s':>6} {'fail lag ms med/max':>20} "
          f"{'MTT p50 err ms med/max':>23} {'failed':>6} {'load before':>11}")
    results: dict[int, float] = {}
    for p in levels:
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory(prefix="sctpbench-bench-") as out:
            folder = Path(out) / (loaded.campaign.name or "campaign")
            started = time.monotonic()
            outcome = execute.execute(folder, loaded, runs, backend, capabilities.agent_path(), lambda s: None, p)
            wall = time.monotonic() - started
            lags, mtt_errors, durations, failed = _errors(folder, runs)
        ok = len(outcome.ran) - len(outcome.failed)
        results[p] = ok / wall * 3600
        med_max = lambda xs: f"{statistics.median(xs):.2f}/{max(xs):.2f}" if xs else "-"  # noqa: E731
        print(f"{p:>8} {wall:>7.1f} {results[p]:>7.0f} {statistics.median(durations):>6.1f} {med_max(lags):>20} "
              f"{med_max(mtt_errors):>23} {failed:>6} {load:>11.2f}", flush=True)
    if 1 in results:
        print("throughput vs serial: " + ", ".join(f"parallel {p}: {results[p] / results[1]:.2f}x" for p in levels if p != 1))


if __name__ == "__main__":
    main()
