"""The structure of a run's DATA/SACK exchange, read from the client's captures, and the
fixture that holds it for the unpatched kernel (issue 26: with the stack variants unset,
the packets and SACKs equal the unpatched kernel's).

The structure is what the stack decided, without the times: per path, the TSNs of the DATA
chunks the client sent, in the order they left (first transmissions and retransmissions
alike), and the SACKs that reached it, in arrival order, each as its cumulative TSN ack and
gap ack blocks. TSNs count from the client's initial TSN (its INIT's), which is random.
Runs of consecutive TSNs are written as ranges to keep the fixture small.

Regenerate the fixture (one guest run, a minute or two) with the kernel built from the tree
before kernel/patches/0003 (`git checkout d60dd0f~1 -- kernel scripts/build-kernel` in a scratch
copy and scripts/build-kernel there; on linux-source-6.1 6.1.192-3 its key is 0b5bf850457f1a7c)
whenever the kernel source or where t0 falls changes, as either moves how many chunks fit
before the switch (2026-11-29: 1,679 → 1,681 on path one with a leaner set-up before t0, then
1,680 with t0 on the kernel's tick, which set-up no longer moves: docs/clocks.md):

    .venv/bin/python -m tests.support.sack_exchange ~/.cache/sctpbench/kernel/0b5bf850457f1a7c

It runs SWITCH with the variants unset on that kernel (SCTPBENCH_UML_KERNEL) and writes
FIXTURE; tests/guest/test_handover_variants.py runs the same experiment on the current
kernel and compares.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from sctpbench.analysis import cumtsn
from sctpbench.collectors import captures
from tests.support.guest_run import run_experiment

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "fixtures" / "handover_switch_unpatched.json"
SERVER = {"one": "198.18.0.2", "two": "198.18.1.2"}
CLIENT = {"one": "198.18.0.1", "two": "198.18.1.1"}

# A saturating client of full-sized messages (one 1452 B DATA chunk per packet) on path one
# (10 ms each way) for 2 s, then `primary: two` (50 ms each way, idle until then), Max.Burst
# off so the window alone limits a flight. {sctp} adds the stack variants. rto_initial 1 s:
# each end confirms the other's second address with a heartbeat at RTO/2 plus a random
# [0, RTO) after the association comes up (Linux's sctp_transport_timeout), so by 1.6 s,
# well before the switch; with the default 3 s it falls 1.5-4.5 s after, around the switch's
# aftermath, and the server's SACKs for two's data went over one or over two from run to run.
SWITCH = """\
name: variants-switch
topology:
  hosts: [client, server]
  paths:
    one: {{between: [client, server], delay: 10ms, rate: 10mbit, queue: 1000}}
    two: {{between: [client, server], delay: 50ms, rate: 10mbit, queue: 1000}}
sctp: {{nodelay: true, sack_delay: 10ms, max_burst: 0, rto_initial: 1s{sctp}}}
workload: {{client: client, server: server, size: 1452B, arrival: saturate, duration: 3s}}
measure: {{capture: true}}
events:
  - {{at: 2s, primary: two}}
"""
STOCK = SWITCH.format(sctp="")


def ranges(tsns: list[int]) -> list[list[int]]:
    """[[first, last], ...] of the runs of consecutive TSNs, in order."""
    out: list[list[int]] = []
    for t in tsns:
        if out and t == out[-1][1] + 1:
            out[-1][1] = t
        else:
            out.append([t, t])
    return out


def structure(run_dir: Path, until_ns: int | None = None) -> dict[str, Any]:
    """Per path: the DATA TSNs the client sent (as ranges) and the SACKs it received
    (cumulative TSN ack and gap blocks), TSNs relative to the initial TSN; with `until_ns`
    (capture time, CLOCK_REALTIME) only the packets captured before it."""
    by_path = {path: captures.read(run_dir / "captures" / f"{path}-client.pcap") for path in SERVER}
    inits = sorted((p.time_ns, c.initial_tsn) for packets in by_path.values() for p in packets
                   if p.src in CLIENT.values() for c in p.chunks if c.initial_tsn is not None)
    if not inits:
        raise ValueError(f"{run_dir}: no INIT of the client in its captures")
    initial = inits[0][1]

    def rel(tsn: int) -> int:
        return (tsn - initial) % cumtsn.TSN_SPACE

    out: dict[str, Any] = {}
    for path, packets in by_path.items():
        ordered = sorted((p for p in packets if until_ns is None or p.time_ns < until_ns), key=lambda p: (p.time_ns, p.index))
        sent = [rel(t) for p in ordered if p.src in CLIENT.values() for t in p.tsns]
        sacks = [[rel(c.cum_tsn), [list(g) for g in c.gaps] if c.gaps is not None else None]
                 for p in ordered if p.src in SERVER.values() for c in p.chunks if c.cum_tsn is not None]
        out[path] = {"data": ranges(sent), "sacks": sacks}
    return out


def record(kernel: Path, fixture: Path = FIXTURE) -> dict[str, Any]:
    """Runs STOCK on `kernel` (a kernel build folder) and writes its structure to `fixture`."""
    env = dict(os.environ, SCTPBENCH_UML_KERNEL=str(kernel))
    with tempfile.TemporaryDirectory(prefix="sack-exchange-") as tmp:
        run_dir = run_experiment(Path(tmp), STOCK, "switch-unpatched", env=env)
        build = dict(line.split("=", 1) for line in (kernel / "build.txt").read_text().splitlines() if "=" in line)
        document = {"experiment": STOCK, "kernel_key": build.get("key"), "paths": structure(run_dir)}
    fixture.write_text(json.dumps(document, indent=1) + "\n")
    return document


def main() -> int:
    parser = argparse.ArgumentParser(description="record the unpatched kernel's DATA/SACK exchange as a fixture")
    parser.add_argument("kernel", type=Path, help="the kernel build folder (with linux, build.txt)")
    parser.add_argument("--out", type=Path, default=FIXTURE)
    args = parser.parse_args()
    document = record(args.kernel, args.out)
    for path, s in document["paths"].items():
        print(f"{path}: {len(s['data'])} runs of DATA TSNs, {len(s['sacks'])} SACKs")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
