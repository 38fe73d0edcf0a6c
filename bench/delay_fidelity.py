#!/usr/bin/env python3
"""Configured vs measured one-way delay: MTT of steady signaling over netem, per delay.

    .venv/bin/python bench/delay_fidelity.py [--delays 1,10,50,150] [--backend auto]

MTT is the application-to-application transfer time of 200 B messages (kernel SCTP,
Nagle off); its excess over the configured one-way delay is the emulation's and the
stack's own cost.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent


def measure(delay_ms: float, backend: str) -> np.ndarray:
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run(
            [sys.executable, "-m", "sctpbench.cli", "run", str(HERE / "steady.yaml"), "--backend", backend,
             "--out", out, "--json", "--set", f"topology.paths.primary.delay={delay_ms:g}ms"],
            capture_output=True, text=True,
        )
        if r.returncode != 0:
            raise SystemExit(f"run at {delay_ms} ms failed:\n{r.stderr}")
        run_dir = Path(json.loads(r.stdout)["runs"][0]["directory"])
        mtt = pq.read_table(run_dir / "messages.parquet", columns=["mtt_ns"]).column(0).to_numpy()
        return mtt / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", default="1,10,50,150")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()
    print("one-way delay: configured vs measured MTT (ms), 250 messages each")
    print(f"  {'configured':>10} {'median':>8} {'p1':>8} {'p99':>8} {'max':>8} {'median error':>13}")
    for d in (float(x) for x in args.delays.split(",")):
        mtt = measure(d, args.backend)
        med = float(np.median(mtt))
        print(f"  {d:10g} {med:8.3f} {np.percentile(mtt, 1):8.3f} {np.percentile(mtt, 99):8.3f} {mtt.max():8.3f}"
              f" {med - d:+9.3f} ({(med - d) / d * 100:+.1f}%)")


if __name__ == "__main__":
    main()
