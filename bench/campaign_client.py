#!/usr/bin/env python3
"""The campaign client's CPU per run as the campaign grows, with stand-in runs (no guest).

    .venv/bin/python bench/campaign_client.py [--runs 100,4000] [--window N] [--configurations 20]

A campaign of N runs (--configurations configurations of examples/failover.yaml, sctp.rto_min
swept, N / configurations repetitions each) goes through the bookkeeping both executors
share (campaign/execute.py, Session): open (lock, describe, what is done, the tables),
then per run what the executor does around a run (set its old folder aside, `started`,
`ended`: runs.jsonl, the run's summary, the tables), and close. The runs are stand-ins,
said so in the output: a run's folder is made by this process, outside the measured CPU,
with a copy of one of the six real summary.json files of tests/data/results-v1/campaign
(today's format; metrics scaled run by run so the statistics are not degenerate), where a
worker would have left a whole run folder. What a run itself costs (its guest, its
worker process, a Dask task's archive) is not here: bench/campaign_throughput.py measures
runs.

A campaign of two runs goes first, not shown: the modules a client imports once (pyarrow's
Parquet writer takes about half a CPU-second) are not a cost per run. Per N it prints the
client's CPU for open, for the runs (mean per run and over the last 100), for close, and
per run all included; then the per-run ratio of the largest N to the smallest.

--window W: only the last W runs of each campaign go through the session, the first N − W
made done before it opens (a resumed campaign): the cost of a run when the campaign holds
N − W already, without paying for a whole campaign at large N (the client that rewrote its
tables from every run folder after each run would need hours of CPU for 4,000 runs).

Clock: CPU is time.process_time (user + sys of this process, all its threads: pyarrow
writes with threads); wall is time.perf_counter. The figures move with the machine's load
(the CPU less than the wall): quote them with the load column.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sctpbench.campaign import execute, expand, spec  # noqa: E402
from sctpbench.results import summary as results_summary  # noqa: E402
from sctpbench.results import version  # noqa: E402

REAL_RUNS = HERE.parent / "tests/data/results-v1/campaign/runs"
CAMPAIGN = """\
name: client-cost
experiment: {experiment}
sweep:
  sctp.rto_min: [{values}]
repetitions: {repetitions}
"""
TAIL = 100  # the "last runs" column
WARM_UP = 2  # runs of a campaign measured first and not shown


@dataclass
class Figures:
    runs: int
    done_before: int
    open_s: float
    per_run_ms: list[float]  # CPU of each measured run's client steps
    close_s: float
    wall_s: float
    load: float

    @property
    def all_ms(self) -> float:
        """CPU per measured run, open and close included."""
        return (self.open_s + self.close_s) * 1000 / len(self.per_run_ms) + sum(self.per_run_ms) / len(self.per_run_ms)


def real_summaries() -> list[dict[str, Any]]:
    found = [results_summary.read_document(d) for d in sorted(REAL_RUNS.iterdir())]
    return [s for s in found if s]


def _scaled(value: Any, factor: float) -> Any:
    return value * factor if isinstance(value, float) else value


def stand_in(summaries: list[dict[str, Any]], i: int) -> str:
    """The i-th stand-in run's summary.json: a real one, ok (four of the six were disturbed by
    the load they ran under), its float metrics scaled by 0.9–1.1."""
    document = json.loads(json.dumps(summaries[i % len(summaries)]))
    document |= {"status": "ok", "error": None}
    document["selfcheck"] = (document.get("selfcheck") or {}) | {"ok": True, "reasons": []}
    factor = 1 + ((i * 7919) % 21 - 10) / 100
    document["metrics"] = {k: _scaled(v, factor) for k, v in document.get("metrics", {}).items()}
    for assoc in (document.get("associations") or {}).values():
        assoc["metrics"] = {k: _scaled(v, factor) for k, v in (assoc.get("metrics") or {}).items()}
    return json.dumps(document, indent=2)


def make_run_folder(folder: Path, text: str) -> None:
    """What a worker leaves: the run folder, marked, with its summary (here the only file)."""
    folder.mkdir(parents=True)
    version.mark(folder, "run")
    (folder / results_summary.NAME).write_text(text)


def campaign_file(tmp: Path, runs: int, configurations: int) -> Path:
    path = tmp / "campaign.yaml"
    values = ", ".join(f"{10 * (i + 1)}ms" for i in range(configurations))
    path.write_text(CAMPAIGN.format(experiment=HERE.parent / "examples/failover.yaml", values=values,
                                    repetitions=max(1, runs // configurations)))
    return path


def set_aside(session: Any, run: expand.Run) -> None:
    """What the executor does before starting a run (Session.set_aside; make_room before it)."""
    if hasattr(session, "set_aside"):
        session.set_aside(run)
    else:
        execute.make_room(session.folder, run)


def measure(n: int, window: int, configurations: int, summaries: list[dict[str, Any]]) -> Figures:
    with tempfile.TemporaryDirectory(prefix="sctpbench-client-") as tmp:
        loaded = spec.load(campaign_file(Path(tmp), n, configurations))
        runs = expand.runs(loaded)
        folder = Path(tmp) / "out" / "client-cost"
        texts = [stand_in(summaries, i) for i in range(len(runs))]
        before = len(runs) - min(window, len(runs))
        for i, run in enumerate(runs[:before]):
            make_run_folder(execute.run_dir(folder, run), texts[i])
        load = os.getloadavg()[0]
        wall = time.perf_counter()
        cpu = time.process_time()
        session = execute.Session.open(folder, loaded, runs, lambda s: None, None, None)
        open_s = time.process_time() - cpu
        per_run = []
        index = {r.run_key: i for i, r in enumerate(runs)}
        for run in session.pending:
            i = index[run.run_key]
            cpu = time.process_time()
            set_aside(session, run)
            session.started(run, pid=0)
            spent = time.process_time() - cpu
            make_run_folder(execute.run_dir(folder, run), texts[i])  # the worker's part: not the client's
            cpu = time.process_time()
            session.ended(run, 1.0, "", 0, len(runs) - i - 1, 2)  # ok: never run again
            per_run.append((spent + time.process_time() - cpu) * 1000)
        cpu = time.process_time()
        session.close()
        close_s = time.process_time() - cpu
        return Figures(len(runs), before, open_s, per_run, close_s, time.perf_counter() - wall, load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="100,4000", help="campaign sizes, comma-separated (default 100,4000)")
    parser.add_argument("--window", type=int, help="run only the last W runs of each campaign (default: all)")
    parser.add_argument("--configurations", type=int, default=20, help="configurations per campaign (default 20)")
    args = parser.parse_args()
    summaries = real_summaries()
    measure(WARM_UP, WARM_UP, 1, summaries)  # imports (pyarrow's parquet writer: about half a CPU-second) not counted
    print(f"stand-in runs: no guest; each run folder is a copy of one of the {len(summaries)} real summary.json files "
          f"of {REAL_RUNS.relative_to(HERE.parent)}, made outside the measured CPU; {os.cpu_count()} CPUs")
    print("clock: CPU = time.process_time (user+sys, this process), wall = time.perf_counter; ms per run unless said")
    print(f"{'runs':>6} {'done before':>11} {'measured':>8} {'open CPU s':>10} {'runs: CPU/run':>13} "
          f"{f'last {TAIL}':>9} {'close CPU s':>11} {'all: CPU/run':>12} {'wall s':>7} {'load before':>11}")
    figures = []
    for n in [int(x) for x in args.runs.split(",")]:
        f = measure(n, args.window or n, args.configurations, summaries)
        figures.append(f)
        tail = f.per_run_ms[-TAIL:]
        print(f"{f.runs:>6} {f.done_before:>11} {len(f.per_run_ms):>8} {f.open_s:>10.3f} "
              f"{sum(f.per_run_ms) / len(f.per_run_ms):>13.2f} {sum(tail) / len(tail):>9.2f} {f.close_s:>11.3f} "
              f"{f.all_ms:>12.2f} {f.wall_s:>7.1f} {f.load:>11.2f}", flush=True)
    if len(figures) > 1:
        first, last = figures[0], figures[-1]
        print(f"CPU per run, all included, at {last.runs} runs / at {first.runs}: {last.all_ms / first.all_ms:.2f} "
              f"({last.all_ms:.2f} ms / {first.all_ms:.2f} ms)")


if __name__ == "__main__":
    main()
