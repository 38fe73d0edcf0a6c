#!/usr/bin/env python3
"""Campaign throughput (runs per hour) and timing error as parallelism grows, in one go.

    .venv/bin/python bench/campaign_throughput.py [--parallel 1,2,3,4] [--clocks virtual,real] [--reduced] [--campaign FILE]
                                                  [--dask 1,2]

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

With --dask N,…: the same runs on the distributed executor (campaign run --scheduler), on
a `dask scheduler` and N `dask worker`s (one thread, i.e. one guest, each) started here on
127.0.0.1, against the local executor at --parallel N; and the scheduler's own cost per
run: the round trip of a task that does nothing, and per run the client's wall time less
the run's own time on its worker (packing, sending and committing the run folder, the
scheduler, the client's polling), with the run folder's size.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
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
    parser.add_argument("--dask", help="workers: compare the distributed executor on this many local workers, comma-separated")
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
        if args.dask:
            _measure_dask(loaded, _on_clock(runs, clock), backend, [int(n) for n in args.dask.split(",")])
        else:
            _measure(loaded, _on_clock(runs, clock), backend, levels)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _cluster(workers: int) -> Iterator[str]:
    """A scheduler and `workers` one-thread workers on 127.0.0.1 (dashboards too)."""
    import distributed

    dask = str(Path(sys.executable).parent / "dask")
    address = f"tcp://127.0.0.1:{_port()}"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                               "--dashboard-address", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    procs += [subprocess.Popen([dask, "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                                "--dashboard-address", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
              for _ in range(workers)]
    try:
        with distributed.Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for p in reversed(procs):  # the workers first: they say goodbye to the scheduler
            p.terminate()
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _noop() -> None:
    return None


def _task_round_trip_ms(address: str, n: int = 200) -> float:
    import distributed

    with distributed.Client(address, timeout=30, set_as_default=False) as client:
        started = time.monotonic()
        for _ in range(n):
            client.submit(_noop, pure=False).result()
        return (time.monotonic() - started) / n * 1000


def _measure_dask(loaded: spec.Loaded, runs: list[expand.Run], backend: str, levels: list[int]) -> None:
    from sctpbench.campaign import distributed as on_dask

    print(f"{'workers':>7} {'executor':>11} {'wall s':>7} {'runs/h':>7} {'run s':>6} {'cost/run s':>10} "
          f"{'folder MB':>9} {'task ms':>7} {'failed':>6} {'load before':>11}")
    for n in levels:
        for kind in ("local", "distributed"):
            load = os.getloadavg()[0]
            with tempfile.TemporaryDirectory(prefix="sctpbench-bench-") as out, contextlib.ExitStack() as stack:
                folder = Path(out) / (loaded.campaign.name or "campaign")
                task_ms = None
                started = time.monotonic()
                if kind == "local":
                    outcome = execute.execute(folder, loaded, runs, backend, capabilities.agent_path(), lambda s: None, n)
                else:
                    address = stack.enter_context(_cluster(n))
                    task_ms = _task_round_trip_ms(address)
                    started = time.monotonic()
                    outcome = on_dask.execute_on(address, folder, loaded, runs, backend, lambda s: None)
                wall = time.monotonic() - started
                _, _, durations, failed = _errors(folder, runs)
                size = sum(f.stat().st_size for f in (folder / "runs").rglob("*") if f.is_file()) / max(1, len(runs)) / 1e6
            ok = len(outcome.ran) - len(outcome.failed)
            # Client wall time per run and worker, less the run's own time there (runs.jsonl's seconds).
            cost = wall * n / max(1, len(outcome.ran)) - statistics.mean(durations)
            print(f"{n:>7} {kind:>11} {wall:>7.1f} {ok / wall * 3600:>7.0f} {statistics.median(durations):>6.1f} "
                  f"{cost:>10.2f} {size:>9.2f} {task_ms if task_ms is not None else float('nan'):>7.1f} {failed:>6} "
                  f"{load:>11.2f}", flush=True)


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
