#!/usr/bin/env python3
"""Time from `sctpbench run` to the first message, with its phases, on the chosen backend.

    .venv/bin/python bench/first_message.py [--runs 3] [--backend auto]

The host notes when each progress line of the run arrives. The backend announces
"association up; t0 in 300 ms" just before it fixes t0 = now + 300 ms on the guest clock;
the first message's generation time (guest clock, from its records) minus t0 is added.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
LEAD_S = 0.3


def one(backend: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "sctpbench.cli", "run", str(HERE / "steady.yaml"), "--backend", backend,
             "--out", out, "--json", "--set", "workload.duration=1s"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        marks: dict[str, float] = {}
        assert proc.stderr
        for line in proc.stderr:
            now = time.monotonic() - start
            for key in ("booting the guest", "building the network", "association up"):
                if key in line and key not in marks:
                    marks[key] = now
        stdout, _ = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"run failed: {stdout}")
        run_dir = Path(json.loads(stdout)["runs"][0]["directory"])
        t0 = json.loads((run_dir / "backend.json").read_text())["t0_ns"]
        first = min(pq.read_table(run_dir / "messages.parquet", columns=["t_gen_ns"]).column(0).to_pylist())
        up = marks["association up"]
        return {
            "to_build_s": marks.get("building the network", 0.0),
            "to_association_s": up,
            "to_first_message_s": up + LEAD_S + (first - t0) / 1e9,
            "total_s": time.monotonic() - start,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()
    results = [one(args.backend) for _ in range(args.runs)]
    print(f"command → first message, {args.runs} runs, backend {args.backend} (median, min–max, seconds)")
    for key in results[0]:
        xs = [r[key] for r in results]
        print(f"  {key:<20} {statistics.median(xs):6.2f}  ({min(xs):.2f}–{max(xs):.2f})")


if __name__ == "__main__":
    main()
