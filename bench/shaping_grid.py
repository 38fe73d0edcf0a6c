#!/usr/bin/env python3
"""Configured vs achieved delay, rate and loss through the emulator, as error ratios.

    .venv/bin/python bench/shaping_grid.py [--delays 1,10,50,150,300] [--rates 0.384,1,6,45,100]
                                           [--losses 0,1,5,10] [--backend auto]

Delay: median MTT of unordered 200 B messages (100/s) against the configured one-way delay.
Rate: goodput of a saturating 1000 B message stream (kernel SCTP) over the last 60 % of the
run against the configured rate times the payload's share of the wire bytes (1000 B in
1000 + 16 DATA + 12 SCTP + 20 IP + 14 Ethernet; tbf counts the Ethernet header).
Loss: packets the client sent on the path (its own capture) that never reached the server
(the server's capture), against netem's configured random loss.
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

from sctpbench.orchestration.calibrate import PAYLOAD_SHARE, SATURATE_SIZE

HERE = Path(__file__).resolve().parent
EXPERIMENT = HERE / "grid.yaml"


def run(overrides: list[str], backend: str) -> Path:
    out = tempfile.mkdtemp(prefix="sctpbench-grid-")
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(EXPERIMENT), "--backend", backend, "--out", out, "--json",
         *[a for o in overrides for a in ("--set", o)]],
        capture_output=True, text=True,
    )
    if r.returncode != 0:
        raise SystemExit(f"run {overrides} failed:\n{r.stderr}")
    return Path(json.loads(r.stdout)["runs"][0]["directory"])


def delay(ms: float, backend: str) -> float:
    d = run([f"topology.paths.primary.delay={ms:g}ms"], backend)
    mtt = pq.read_table(d / "messages.parquet", columns=["mtt_ns"]).column(0).to_numpy() / 1e6
    return float(np.median(mtt))


def rate(mbit: float, backend: str) -> float:
    d = run([f"topology.paths.primary.rate={mbit * 1000:g}kbit", "workload.arrival=saturate", f"workload.size={SATURATE_SIZE}B",
             "workload.duration=8s"], backend)
    rows = pq.read_table(d / "messages.parquet", columns=["t_rx_ns", "size"]).to_pylist()
    rx = sorted((r["t_rx_ns"], r["size"]) for r in rows if r["t_rx_ns"] is not None)
    start = rx[0][0] + 0.4 * (rx[-1][0] - rx[0][0])
    window = [(t, s) for t, s in rx if t >= start]
    return sum(s for _, s in window) * 8 / ((window[-1][0] - window[0][0]) / 1e9) / 1e6


def loss(pct: float, backend: str) -> tuple[float, int]:
    d = run([f"topology.paths.primary.forward.loss={pct:g}%", "measure.capture=true"], backend)
    sent = _count(d / "captures/primary-client.pcap", "198.18.0.1")
    received = _count(d / "captures/primary-server.pcap", "198.18.0.1")
    return ((sent - received) / sent * 100 if sent else float("nan")), sent


def _count(pcap: Path, src: str) -> int:
    r = subprocess.run(["tshark", "-r", str(pcap), "-Y", f"sctp && ip.src == {src}", "-T", "fields", "-e", "frame.number"],
                       capture_output=True, text=True, check=True)
    return len(r.stdout.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", default="1,10,50,150,300")
    parser.add_argument("--rates", default="0.384,1,6,45,100")
    parser.add_argument("--losses", default="0,1,5,10")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()
    grid = lambda text: [float(x) for x in text.split(",") if x]  # noqa: E731
    print("delay (ms): configured, achieved median MTT, error ratio")
    for ms in grid(args.delays):
        got = delay(ms, args.backend)
        print(f"  {ms:8g} {got:10.3f} {got / ms - 1:+8.2%}")
    print(f"rate (Mbit/s): configured, expected goodput ({PAYLOAD_SHARE:.1%} of it), achieved goodput, error ratio")
    for mbit in grid(args.rates):
        got = rate(mbit, args.backend)
        expected = mbit * PAYLOAD_SHARE
        print(f"  {mbit:8g} {expected:10.3f} {got:10.3f} {got / expected - 1:+8.2%}")
    print("loss (%): configured, achieved (client's packets missing at the server), difference, packets sent")
    for pct in grid(args.losses):
        got, sent = loss(pct, args.backend)
        print(f"  {pct:8g} {got:10.2f} {got - pct:+8.2f} {sent:8d}")


if __name__ == "__main__":
    main()
