"""How fast telemetry reaches InfluxDB: sustained write rate and live lag.

    .venv/bin/python bench/telemetry_rate.py [--rates 100,1000,10000] [--seconds 10] [--push-messages 200000]

Starts Debian's influxd on loopback (a temp folder), then:
1. Sustained write rate: `push` of a finished run of --push-messages messages (plus path
   samples and events), points per second from reading the records to InfluxDB's 204.
2. Live lag at each message rate: a writer process appends agent-format records to a run
   folder exactly as the agents do (tx at the client, rx 10 ms later at the server, path
   samples every 20 ms for two paths on both ends, flushed every 100 ms), while the real
   live writer (sctpbench.telemetry.stream) follows the folder. Two figures:
   - written: delivery (rx) to InfluxDB's acknowledgement of the batch (the writer's ledger);
   - visible: delivery to the first `SELECT count()` (polled every 50 ms) that includes it.
The records come from a generator, not the guest: a one-CPU UML guest does not reach
10,000 messages/s (docs/telemetry.md, "Measured on the build machine"), and the pipeline under test starts at the record files.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sctpbench.model import spec
from sctpbench.plan import build as planning  # noqa: E402
from sctpbench.telemetry import influx, server, stream  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "failover.yaml"
CLIENT = ("198.18.0.1", "198.18.1.1")
PEERS = ("198.18.0.2", "198.18.1.2")
HEADER = "#sctpbench-records\tv1\tclock=CLOCK_MONOTONIC\tunit=ns\n"
DELIVERY_NS = 10_000_000
FLUSH_NS = 100_000_000
SAMPLE_NS = 20_000_000
STARTUP_S = 3.0


def prepare(run_dir: Path, experiment_name: str) -> str:
    experiment = spec.load(EXAMPLE, [f"name={experiment_name}"])
    p = planning.build(experiment, 1, "agent")
    (run_dir / "records").mkdir(parents=True)
    (run_dir / "plan.json").write_text(p.to_json())
    (run_dir / "kernel.json").write_text(json.dumps({"hz": 100}))
    return p.run_id


def anchor(run_dir: Path, t0: int) -> None:
    wall = time.time_ns() + (t0 - time.monotonic_ns())
    (run_dir / "backend.json").write_text(json.dumps({"ok": True, "t0_ns": t0, "t0_realtime_ns": wall}))


def samples(t: int) -> tuple[str, str]:
    c = "".join(f"path\t{t}\t{a}\tACTIVE\t4380\t2\t200\t1500\t{int(i == 0)}\n" for i, a in enumerate(PEERS))
    s = "".join(f"path\t{t}\t{a}\tACTIVE\t4380\t2\t200\t1500\t{int(i == 0)}\n" for i, a in enumerate(CLIENT))
    return c, s


def write_finished(run_dir: Path, messages: int, rate: float) -> None:
    t0 = 1_000_000_000
    anchor(run_dir, t0)
    gap = int(1e9 / rate)
    client, server_ = [HEADER], [HEADER]
    next_sample = t0
    for seq in range(messages):
        t = t0 + seq * gap
        client.append(f"tx\t{t}\t{seq}\t0\t200\t{t + 20_000}\n")
        server_.append(f"rx\t{t + DELIVERY_NS}\t{seq}\t0\t200\t{t}\t{CLIENT[0]}\n")
        while next_sample <= t:
            c, s = samples(next_sample)
            client.append(c)
            server_.append(s)
            next_sample += SAMPLE_NS
    (run_dir / "records" / "main.client.rec").write_text("".join(client))
    (run_dir / "records" / "main.server.rec").write_text("".join(server_))
    (run_dir / "events.jsonl").write_text(json.dumps(
        {"kind": "start", "target": "main", "detail": "", "at_ns": 0, "applied_ns": t0, "lag_ns": 0}) + "\n")


def generate_live(run_dir: Path, rate: float, seconds: float, deliveries: list[int]) -> None:
    """Append records in real time as the agents would; note each delivery's wall time."""
    t0 = time.monotonic_ns() + 200_000_000
    anchor(run_dir, t0)
    gap = int(1e9 / rate)
    total = int(rate * seconds)
    wall_of = lambda t: time.time_ns() + (t - time.monotonic_ns())  # noqa: E731
    with open(run_dir / "records" / "main.client.rec", "w") as client, open(run_dir / "records" / "main.server.rec", "w") as srv:
        client.write(HEADER)
        srv.write(HEADER)
        seq, next_sample, next_flush = 0, t0, t0 + FLUSH_NS
        while seq < total:
            now = time.monotonic_ns()
            while seq < total and t0 + seq * gap + DELIVERY_NS <= now:
                t = t0 + seq * gap
                client.write(f"tx\t{t}\t{seq}\t0\t200\t{t + 20_000}\n")
                srv.write(f"rx\t{t + DELIVERY_NS}\t{seq}\t0\t200\t{t}\t{CLIENT[0]}\n")
                deliveries.append(wall_of(t + DELIVERY_NS))
                seq += 1
            while next_sample <= now:
                c, s = samples(next_sample)
                client.write(c)
                srv.write(s)
                next_sample += SAMPLE_NS
            if now >= next_flush:  # the agents flush at most 100 ms after a record
                client.flush()
                srv.flush()
                next_flush = now + FLUSH_NS
            time.sleep(0.001)
        client.write(f"end\t{time.monotonic_ns()}\t{total}\n")
        srv.write(f"end\t{time.monotonic_ns()}\t{total}\n")


def poll_visible(target: influx.Target, run_id: str, stop: threading.Event, seen: list[tuple[int, int]]) -> None:
    q = f'SELECT count("mtt_ms") FROM "sctp_message" WHERE "run" = \'{run_id}\''
    while not stop.is_set():
        series = influx.query(target, q)
        seen.append((time.time_ns(), series[0]["values"][0][1] if series else 0))
        time.sleep(0.05)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def live_lag(target: influx.Target, base: Path, rate: float, seconds: float) -> dict[str, float]:
    run_dir = base / f"live-{int(rate)}" / "run-001"
    run_id = prepare(run_dir, f"bench-live-{int(rate)}")
    writer = stream.Stream(run_dir, target)
    time.sleep(STARTUP_S)  # in a run, the writer starts while the guest boots (3-4 s)
    deliveries: list[int] = []
    seen: list[tuple[int, int]] = []
    stop = threading.Event()
    poller = threading.Thread(target=poll_visible, args=(target, run_id, stop, seen))
    poller.start()
    generate_live(run_dir, rate, seconds, deliveries)
    time.sleep(1.0)  # the last messages become visible
    stop.set()
    poller.join()
    ledger = writer.finish()
    assert ledger is not None, (run_dir / "telemetry.log").read_text()
    visible: list[float] = []
    k = 0
    for wall, count in seen:
        while k < min(count, len(deliveries)):
            visible.append((wall - deliveries[k]) / 1e6)
            k += 1
    return {
        "rate": rate, "messages": len(deliveries), "points": sum(ledger["sent"].values()),
        "written_p50": ledger["lag_ms"]["p50"], "written_p99": ledger["lag_ms"]["p99"], "written_max": ledger["lag_ms"]["max"],
        "visible_p50": percentile(visible, 0.5), "visible_p99": percentile(visible, 0.99), "visible_max": max(visible),
        "not_sent": ledger["not_sent"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", default="100,1000,10000")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--push-messages", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sctpbench-bench-") as tmp:
        base = Path(tmp)
        local = server.start(base / "influxd", server.free_port())
        try:
            target = local.target()
            run_dir = base / "push" / "run-001"
            prepare(run_dir, "bench-push")
            write_finished(run_dir, args.push_messages, 1000.0)
            started = time.monotonic()
            ledger = stream.push(run_dir, target)
            elapsed = time.monotonic() - started
            total = sum(ledger["sent"].values())
            print(f"sustained write (push of a finished run): {total} points in {elapsed:.2f} s = "
                  f"{total / elapsed:,.0f} points/s (batches of {target.batch}, one connection, not sent {ledger['not_sent']})")
            print(f"live lag, {args.seconds:g} s per rate, delivery → InfluxDB ack (written) and → first query that shows it (visible):")
            print(f"{'msg/s':>7} {'messages':>9} {'points':>8} {'written p50/p99/max ms':>26} {'visible p50/p99/max ms':>26} {'not sent':>8}")
            for rate in (float(r) for r in args.rates.split(",")):
                r = live_lag(target, base, rate, args.seconds)
                print(f"{r['rate']:>7.0f} {r['messages']:>9} {r['points']:>8} "
                      f"{r['written_p50']:>8.0f} {r['written_p99']:>8.0f} {r['written_max']:>8.0f} "
                      f"{r['visible_p50']:>8.0f} {r['visible_p99']:>8.0f} {r['visible_max']:>8.0f} {r['not_sent']:>8}")
        finally:
            server.stop(base / "influxd")
    return 0


if __name__ == "__main__":
    sys.exit(main())
