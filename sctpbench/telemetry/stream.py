"""The live telemetry writer: a separate, low-priority process beside the run.

It follows the run folder (the agents' records, the timeline's events) and writes batches
to InfluxDB every flush interval. It is never on the agents' path: the agents write their
record files as always, and this process only reads them. When InfluxDB is down, slow or
rejects a batch, the batch is counted as not sent and the writer backs off; the points
stay in the local store. When the run ends (its stdin closes) it writes what is left,
the lost messages and the run's summary point, and, if anything failed, tries once more
to send the whole run (identities make that idempotent). It leaves telemetry.json:

  {"target": {...}, "points": {measurement: n}, "sent": {measurement: n}, "not_sent": n,
   "errors": [...], "lag_ms": {"n", "p50", "p99", "max"}, "mode": "live" | "push"}

lag_ms: from a message's delivery at the receiving agent to InfluxDB's acknowledgement
of the write that carried it (the point is queryable from then on).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.results import ledger as results_ledger
from sctpbench.results import summary as results_summary
from sctpbench.telemetry import influx, points
from sctpbench.telemetry.source import RunSource

BACKOFF_S = (1.0, 2.0, 5.0, 10.0)
FINISH_TIMEOUT_S = 120.0
MAX_ERRORS_KEPT = 5



@dataclass
class Ledger:
    """What was sent, what was not, and how late."""

    target: influx.Target
    mode: str
    sent: dict[str, int] = field(default_factory=lambda: dict.fromkeys(points.MEASUREMENTS, 0))
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    lags_ms: list[float] = field(default_factory=list)

    def error(self, text: str) -> None:
        if len(self.errors) < MAX_ERRORS_KEPT and text not in self.errors:
            self.errors.append(text)

    def document(self, counts: dict[str, int]) -> dict[str, Any]:
        lags = sorted(self.lags_ms)
        pick = lambda q: round(lags[min(len(lags) - 1, int(q * len(lags)))], 3) if lags else None  # noqa: E731
        return {
            "target": self.target.to_dict(), "mode": self.mode, "points": counts, "sent": self.sent,
            "not_sent": sum(counts.values()) - sum(self.sent.values()), "errors": self.errors,
            "lag_ms": {"n": len(lags), "p50": pick(0.5), "p99": pick(0.99), "max": lags[-1] if lags else None},
        }


@dataclass
class Sender:
    writer: influx.Writer
    ledger: Ledger
    batch: int
    backoff_until: float = 0.0
    failures_in_row: int = 0

    def send(self, pts: list[points.Point], deliveries_wall_ns: list[int] | None = None) -> bool:
        """Write in batches; False if any batch was not accepted."""
        ok = True
        for i in range(0, len(pts), self.batch):
            chunk = pts[i:i + self.batch]
            if time.monotonic() < self.backoff_until:
                ok = False
                continue
            try:
                self.writer.write([p.line() for p in chunk])
            except influx.WriteError as e:
                ok = False
                self.ledger.error(str(e))
                self.backoff_until = time.monotonic() + BACKOFF_S[min(self.failures_in_row, len(BACKOFF_S) - 1)]
                self.failures_in_row += 1
                continue
            self.failures_in_row = 0
            for p in chunk:
                self.ledger.sent[p.measurement] = self.ledger.sent.get(p.measurement, 0) + 1
        if ok and deliveries_wall_ns:
            now = time.time_ns()
            self.ledger.lags_ms += [(now - t) / 1e6 for t in deliveries_wall_ns]
        return ok


def follow(run_dir: Path, target: influx.Target, stop: Callable[[float], bool]) -> dict[str, Any]:
    """Stream until stop() says the run is over; then finish and reconcile."""
    ledger = Ledger(target, "live")
    w = influx.writer(target)
    try:
        try:
            influx.ensure_database(target)
        except influx.WriteError as e:
            ledger.error(str(e))
        sender = Sender(w, ledger, target.batch)
        source = RunSource(run_dir)
        complete = True
        while not stop(target.flush_interval_s):
            complete &= sender.send(source.poll(), source.take_deliveries())
        complete &= sender.send(source.finish(), source.take_deliveries())
        if not complete:
            # One more try at the whole run: a point sent twice is the same point.
            retry = Ledger(target, "live")
            again = RunSource(run_dir)
            if Sender(w, retry, target.batch).send(again.poll() + again.finish()):
                ledger.sent = retry.sent
        return ledger.document(source.counts)
    finally:
        w.close()


def push(run_dir: Path, target: influx.Target) -> dict[str, Any]:
    """Send a finished run's points (all of them: re-sending changes nothing)."""
    ledger = Ledger(target, "push")
    w = influx.writer(target)
    try:
        influx.ensure_database(target)
        source = RunSource(run_dir)
        if not source.ready():
            raise influx.WriteError(f"{run_dir}: no clock anchor (backend.json t0_realtime_ns): the run never started")
        sender = Sender(w, ledger, target.batch)
        sender.send(source.poll() + source.finish())
        return ledger.document(source.counts)
    finally:
        w.close()


def record(run_dir: Path, document: dict[str, Any]) -> None:
    """telemetry.json, and the same under "telemetry" in the run's summary.json."""
    results_ledger.write(run_dir, document)
    summary = results_summary.read_document(run_dir)
    if summary is not None:
        results_summary.write(run_dir, summary | {"telemetry": document})


# ---------------------------------------------------------------------------- the process


class Stream:
    """The runner's handle on the writer process."""

    def __init__(self, run_dir: Path, target: influx.Target) -> None:
        self.run_dir = run_dir
        # Its own session: Ctrl-C reaches the runner, which then ends the stream in order.
        with results_ledger.open_log(run_dir) as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "sctpbench.telemetry.stream", str(run_dir), json.dumps(target.to_dict())],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
            )

    def finish(self, timeout_s: float = FINISH_TIMEOUT_S) -> dict[str, Any] | None:
        """Tell it the run is over (after the store is written) and wait for its ledger."""
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return results_ledger.read_optional(self.run_dir)  # none when the writer died before writing it


def _stdin_closed(timeout_s: float) -> bool:
    ready, _, _ = select.select([sys.stdin], [], [], timeout_s)
    return bool(ready) and not os.read(sys.stdin.fileno(), 4096)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m sctpbench.telemetry.stream")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("target", help="the Target as JSON")
    args = parser.parse_args(argv)
    os.nice(10)  # the guest and its agents come first
    document = follow(args.run_dir, influx.Target.from_dict(json.loads(args.target)), _stdin_closed)
    record(args.run_dir, document)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
