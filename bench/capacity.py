#!/usr/bin/env python3
"""Capacity: how many associations and messages/s one guest sustains with MTT within 1 ms of the delay.

    .venv/bin/python bench/capacity.py [--associations 1,2,4,8,16,32,64] [--rates 100,1000,5000]
        [--size 200] [--delay 10] [--duration 3] [--tolerance 1] [--quantile p99|max]
        [--warmup 0] [--budget 18] [--run-timeout 300] [--tcp] [--set clock=real] [--set …]

Each grid point is one `sctpbench run` of a generated experiment: hosts a and b, one path
`wan` (DELAY ms one way, 1 Gbit/s, queue 1000 packets), N associations s1..sN from a to b
(ports 5001…), each sending SIZE-byte messages periodically at R messages/s for DURATION s
(Nagle off, SACK delay 10 ms). Rates go up in the outer loop, associations in the inner one.
Stop rule: a point is not run when a point with no more associations and no higher rate
failed (so each axis stops growing at its first failure), nor once BUDGET minutes are spent.

A point passes when the run's status is `ok` (not `disturbed` by its timing self-check, not
failed) and, for every association (summary.json `associations.NAME.metrics`):
  MTT QUANTILE − configured delay ≤ TOLERANCE ms (QUANTILE p99 by default, or the maximum),
  every message generated (sent = R × DURATION) and every message delivered.
The MTT figures are of every message by default. An association starts in slow start: on the
20 ms round trip its first messages queue behind the initial window (at 5000 msg/s for about
60 ms, and with the default 16 KB send buffer the sender blocks, so the self-check finds it
late and marks the run `disturbed`). `--warmup MS` judges MTT only on messages generated MS
or more after t0 (from messages.parquet); `--set sctp.sndbuf=4MB` keeps the sender on time.

assoc       N, the number of associations
msg/s/a     configured messages/s per association
agg msg/s   messages delivered per second of configured duration, all associations together
p50 / p99   the worst association's MTT p50 and p99 minus the configured delay (ms)
max         the worst association's MMTT minus the configured delay (ms)
late p99    the client's generation lateness against its schedule, p99 (ms, the self-check's)
lost        sent − delivered, summed (and messages never generated, after a +)
guest s     the guest's clock from t0 to the last delivery (DURATION + delay when it keeps up)
wall s      wall-clock seconds of the whole `sctpbench run` (boot, network, run, collection)
clock       the clock the run recorded (guest.json, else summary.json), not the one asked for

--tcp: 1, 2, 4, 8 and 16 bulk TCP flows (`traffic:`, kind tcp, iperf3) on a 100 Mbit/s path
(10 ms one way), 8 s each, their summed mean rate over the intervals after the first 2 s
but the last (steady_mbit: the senders' intervals, what they wrote into their sockets) and
what their receivers got over the whole test, slow start included (received, the run's
competing_tcp_mbps); the goodput ceiling is 100 × 1448/1514 = 95.6 Mbit/s.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml

SCTP_PORT_BASE = 5001


@dataclass(frozen=True)
class Grid:
    size: int  # bytes per message
    delay_ms: float  # one way
    duration_s: float
    tolerance_ms: float
    quantile: str  # "p99" or "max"
    warmup_ms: float = 0.0  # MTT judged on messages generated from this time after t0 on


@dataclass
class Outcome:
    associations: int
    rate: float  # messages/s per association
    status: str  # the run's status, or `error`/`timeout` when there is no run to read
    passed: bool
    why: str
    clock: str = "-"
    aggregate: float | None = None  # messages delivered per second of configured duration
    p50_ms: float | None = None  # worst association, minus the delay
    p99_ms: float | None = None
    max_ms: float | None = None
    late_p99_ms: float | None = None
    lost: int = 0
    short: int = 0  # messages never generated
    guest_s: float | None = None
    wall_s: float = 0.0


# ---------------------------------------------------------------------------- experiments


def sctp_experiment(n: int, rate: float, grid: Grid) -> dict[str, Any]:
    """N associations a → b over one path, each its own port."""
    return {
        "name": f"capacity-{n}x{rate:g}",
        "description": f"bench/capacity.py: {n} associations at {rate:g} msg/s each",
        "topology": {"hosts": ["a", "b"],
                     "paths": {"wan": {"between": ["a", "b"], "delay": f"{grid.delay_ms:g}ms", "rate": "1gbit", "queue": 1000}}},
        "sctp": {"nodelay": True, "sack_delay": "10ms"},
        "workloads": [{"name": f"s{i}", "client": "a", "server": "b", "size": grid.size, "rate": rate,
                       "duration": f"{grid.duration_s:g}s", "port": SCTP_PORT_BASE + i - 1} for i in range(1, n + 1)],
    }


def run_experiment(experiment: dict[str, Any], workdir: Path, overrides: list[str], timeout_s: float) -> tuple[Path | None, str, float]:
    """Run one generated experiment: its run folder (None when there is none), an error, wall seconds."""
    path = workdir / f"{experiment['name']}.yaml"
    path.write_text(yaml.safe_dump(experiment, sort_keys=False))
    out = workdir / "results"
    command = [sys.executable, "-m", "sctpbench.cli", "run", str(path), "--out", str(out), "--json",
               *[a for s in overrides for a in ("--set", s)]]
    began = time.monotonic()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        try:
            stdout, stderr = p.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)  # sctpbench tears the guest down and writes a failed summary
            stdout, stderr = p.communicate()
            return None, f"timeout after {timeout_s:g} s", time.monotonic() - began
    wall = time.monotonic() - began
    try:
        runs = json.loads(stdout)["runs"]
    except (ValueError, KeyError):
        last = (stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"exit {p.returncode}: {last[:160]}", wall
    return Path(runs[0]["directory"]), "", wall


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {}


# ---------------------------------------------------------------------------- SCTP grid


def judge(n: int, rate: float, grid: Grid, run_dir: Path, wall: float) -> Outcome:
    """The run's figures from its folder, and whether every association met the criterion."""
    summary = read_json(run_dir / "summary.json")
    clock = read_json(run_dir / "guest.json").get("clock") or summary.get("clock") or "?"
    status = summary.get("status") or "?"
    per = {name: a.get("metrics") or {} for name, a in (summary.get("associations") or {}).items()}
    expected = round(rate * grid.duration_s)

    mtt = per if grid.warmup_ms <= 0 else after_warmup(run_dir, grid.warmup_ms)

    def worst(key: str) -> float | None:
        values = [m.get(key) for m in mtt.values()]
        present = [float(v) for v in values if v is not None]
        return None if not values or len(present) < len(values) else max(present) - grid.delay_ms

    sent = sum(int(m.get("messages_sent") or 0) for m in per.values())
    delivered = sum(int(m.get("messages_delivered") or 0) for m in per.values())
    o = Outcome(n, rate, status, False, "", clock=clock, aggregate=delivered / grid.duration_s,
                p50_ms=worst("mtt_p50_ms"), p99_ms=worst("mtt_p99_ms"), max_ms=worst("mmtt_ms"),
                late_p99_ms=((summary.get("selfcheck") or {}).get("lateness") or {}).get("p99_ms"),
                lost=sent - delivered, short=max(0, n * expected - sent), wall_s=wall)
    t0 = read_json(run_dir / "backend.json").get("t0_ns")
    if t0 is not None and (run_dir / "messages.parquet").exists():
        last = pc.max(pq.read_table(run_dir / "messages.parquet", columns=["t_rx_ns"]).column(0)).as_py()
        o.guest_s = None if last is None else (last - t0) / 1e9
    judged = o.p99_ms if grid.quantile == "p99" else o.max_ms
    reasons = []
    if status != "ok":
        checks = (summary.get("selfcheck") or {}).get("reasons") or []
        reasons.append(f"status {status}: {summary.get('error') or '; '.join(str(r.get('detail')) for r in checks)}")
    if len(per) != n:
        reasons.append(f"{len(per)} of {n} associations have metrics")
    if judged is None or judged > grid.tolerance_ms:
        reasons.append(f"MTT {grid.quantile} − delay {fmt(judged)} ms > {grid.tolerance_ms:g}")
    if o.lost:
        reasons.append(f"{o.lost} lost")
    if o.short:
        reasons.append(f"{o.short} never generated")
    o.passed, o.why = not reasons, "; ".join(reasons)
    return o


def after_warmup(run_dir: Path, warmup_ms: float) -> dict[str, dict[str, float | None]]:
    """Per association, MTT p50, p99 and max (ms) of the messages generated warmup_ms or more after t0."""
    path = run_dir / "messages.parquet"
    if not path.exists():
        return {}
    table = pq.read_table(path, columns=["association", "t_rel_ns", "mtt_ns"])
    table = table.filter(pc.greater_equal(table["t_rel_ns"], int(warmup_ms * 1e6)))
    out: dict[str, dict[str, float | None]] = {}
    for name in pc.unique(table["association"]).to_pylist():
        rows = table.filter(pc.equal(table["association"], name))
        mtt = np.array([v for v in rows["mtt_ns"].to_pylist() if v is not None], dtype=float) / 1e6
        out[name] = {"mtt_p50_ms": None, "mtt_p99_ms": None, "mmtt_ms": None} if mtt.size == 0 else {
            "mtt_p50_ms": float(np.percentile(mtt, 50)), "mtt_p99_ms": float(np.percentile(mtt, 99)), "mmtt_ms": float(mtt.max())}
    return out


def fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_row(o: Outcome) -> None:
    lost = f"{o.lost}" + (f"+{o.short}" if o.short else "")
    print(f"  {o.associations:>5} {o.rate:>8g} {fmt(o.aggregate, 0):>9} {fmt(o.p50_ms):>7} {fmt(o.p99_ms):>7} {fmt(o.max_ms):>7}"
          f" {fmt(o.late_p99_ms):>8} {lost:>6} {fmt(o.guest_s, 2):>7} {o.wall_s:7.1f} {o.clock:>8}  "
          f"{'pass' if o.passed else 'FAIL'}{'  (' + o.why + ')' if o.why else ''}", flush=True)


def sctp_grid(counts: list[int], rates: list[float], grid: Grid, overrides: list[str], budget_s: float,
              timeout_s: float, workdir: Path) -> list[Outcome]:
    print(f"  {'assoc':>5} {'msg/s/a':>8} {'agg msg/s':>9} {'p50':>7} {'p99':>7} {'max':>7} {'late p99':>8} {'lost':>6}"
          f" {'guest s':>7} {'wall s':>7} {'clock':>8}  verdict")
    began = time.monotonic()
    failed: list[tuple[int, float]] = []
    outcomes: list[Outcome] = []
    for rate in rates:
        for n in counts:
            if any(fn <= n and fr <= rate for fn, fr in failed):
                continue  # the stop rule: a smaller point failed already
            if time.monotonic() - began > budget_s:
                print(f"  {n:>5} {rate:>8g}  not run: the budget of {budget_s / 60:g} min is spent", flush=True)
                failed.append((n, rate))
                continue
            run_dir, error, wall = run_experiment(sctp_experiment(n, rate, grid), workdir, overrides, timeout_s)
            o = judge(n, rate, grid, run_dir, wall) if run_dir else Outcome(n, rate, "error", False, error, wall_s=wall)
            print_row(o)
            outcomes.append(o)
            if not o.passed:
                failed.append((n, rate))
    return outcomes


# ---------------------------------------------------------------------------- TCP flows
# Bulk TCP flows (`traffic:`, kind tcp, iperf3) beside one light association: how many one
# guest carries and at what aggregate rate, as received.


def tcp_experiment(flows: int, duration_s: float) -> dict[str, Any]:
    return {
        "name": f"capacity-tcp-{flows}",
        "topology": {"hosts": ["a", "b"],
                     "paths": {"wan": {"between": ["a", "b"], "delay": "10ms", "rate": "100mbit", "queue": 1000}}},
        # One light association: an experiment has at least one.
        "workload": {"client": "a", "server": "b", "rate": 10, "duration": f"{duration_s:g}s"},
        # iperf3 runs whole seconds; each flow its own server port.
        "traffic": [{"kind": "tcp", "name": f"t{i}", "client": "a", "server": "b", "path": "wan", "start": "0s",
                     "duration": f"{max(8, math.ceil(duration_s))}s", "congestion": "cubic", "port": 5200 + i,
                     "sample_interval": "1s"} for i in range(1, flows + 1)],
    }


STEADY_FROM_S = 2.0  # slow start and the send buffers' filling are over by then


def steady_mbit(table: Path) -> float | None:
    """The flows' summed mean rate over their intervals ending after STEADY_FROM_S, except
    the last: a sender's first seconds count bytes that only fill its send buffer, and
    what is still queued when it stops reaches the receiver after its test."""
    if not table.exists():
        return None
    by_flow: dict[str, list[dict[str, Any]]] = {}
    for row in pq.read_table(table).to_pylist():
        by_flow.setdefault(row["flow"], []).append(row)
    means = []
    for rows in by_flow.values():
        steady = [r for r in sorted(rows, key=lambda r: r["t_s"])[:-1] if r["t_s"] is not None and r["t_s"] > STEADY_FROM_S]
        if not steady:
            return None
        means.append(sum(r["bytes"] for r in steady) * 8 / sum(r["interval_s"] for r in steady) / 1e6)
    return sum(means) if means else None


def tcp_part(overrides: list[str], duration_s: float, timeout_s: float, workdir: Path) -> None:
    print("\nTCP flows on one 100 Mbit/s path (10 ms one way), aggregate throughput")
    print(f"  {'flows':>5} {'aggregate Mbit/s':>16} {'received':>9} {'status':>9} {'wall s':>7} {'clock':>8}")
    for flows in (1, 2, 4, 8, 16):
        run_dir, error, wall = run_experiment(tcp_experiment(flows, duration_s), workdir, overrides, timeout_s)
        if run_dir is None:
            print(f"  {flows:>5} {'-':>16} {'error':>9} {wall:7.1f}  ({error})")
            continue
        summary = read_json(run_dir / "summary.json")
        clock = read_json(run_dir / "guest.json").get("clock") or summary.get("clock") or "?"
        total = fmt(steady_mbit(run_dir / "tcp_throughput.parquet"), 2)
        received = fmt((summary.get("metrics") or {}).get("competing_tcp_mbps"), 2)
        print(f"  {flows:>5} {total:>16} {received:>9} {summary.get('status', '?'):>9} {wall:7.1f} {clock:>8}", flush=True)


# ---------------------------------------------------------------------------- main


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--associations", default="1,2,4,8,16,32,64", help="association counts, comma-separated")
    parser.add_argument("--rates", default="100,1000,5000", help="messages/s per association, comma-separated")
    parser.add_argument("--size", type=int, default=200, help="bytes per message")
    parser.add_argument("--delay", type=float, default=10.0, help="one-way delay of the path, ms")
    parser.add_argument("--duration", type=float, default=3.0, help="seconds of traffic per run")
    parser.add_argument("--tolerance", type=float, default=1.0, help="allowed MTT above the delay, ms")
    parser.add_argument("--quantile", choices=["p99", "max"], default="p99", help="the MTT figure judged per association")
    parser.add_argument("--warmup", type=float, default=0.0,
                        help="ms after t0 whose messages the MTT criterion leaves out (the association's slow start)")
    parser.add_argument("--budget", type=float, default=18.0, help="minutes after which no new SCTP run starts")
    parser.add_argument("--run-timeout", type=float, default=300.0, help="seconds before one run is stopped (SIGTERM)")
    parser.add_argument("--tcp", action="store_true", help="also the TCP flows part")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    grid = Grid(args.size, args.delay, args.duration, args.tolerance, args.quantile, args.warmup)
    counts, rates = sorted(int(x) for x in numbers(args.associations)), sorted(numbers(args.rates))
    label = ", ".join(args.overrides) or "no --set (clock: the experiment's default)"
    print(f"capacity of one guest ({label}; {os.cpu_count()} CPUs): {grid.size} B messages, {grid.duration_s:g} s, "
          f"one path {grid.delay_ms:g} ms one way at 1 Gbit/s")
    print(f"pass: status ok, every association's MTT {grid.quantile} − {grid.delay_ms:g} ms ≤ {grid.tolerance_ms:g} ms, "
          "nothing lost; MTT columns are the worst association's, minus the delay (ms)"
          + (f", of messages generated from {grid.warmup_ms:g} ms after t0 on" if grid.warmup_ms > 0 else ", every message"))
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sctpbench-capacity-") as tmp:
        outcomes = sctp_grid(counts, rates, grid, args.overrides, args.budget * 60, args.run_timeout, Path(tmp))
        passed = [o for o in outcomes if o.passed]
        clocks = ",".join(sorted({o.clock for o in outcomes if o.clock != "-"})) or "?"
        if passed:
            most = max(passed, key=lambda o: (o.associations, o.rate))
            fastest = max(passed, key=lambda o: (o.aggregate or 0, o.associations))
            print(f"sustained ({clocks} clock): up to {most.associations} associations (at {most.rate:g} msg/s each); "
                  f"up to {fastest.aggregate or 0:.0f} msg/s in all ({fastest.associations} × {fastest.rate:g} msg/s); "
                  f"MTT {grid.quantile} within {grid.tolerance_ms:g} ms of {grid.delay_ms:g} ms")
        else:
            print(f"sustained ({clocks} clock): no grid point passed")
        if args.tcp:
            tcp_part(args.overrides, grid.duration_s, args.run_timeout, Path(tmp))
    print(f"bench wall time {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
