"""Concurrent multipath transfer seen at the receiver: head-of-line blocking, reordering, each
path's share of the messages and MTT per stream (docs/multipath.md, "Metrics").

Head-of-line blocking (HoLB) needs each message's arrival at the receiving host, which the
agents do not see (a receiver learns of an ordered message only when the stack delivers it):
it comes from the server's captures (`measure: {capture: true}`), one per path, which all
share the server's clock. A message's arrival is the first capture of the DATA chunk that
starts it (B bit; the agent's sequence number is in its first bytes), on whichever path.

- HoLB of an ordered message m on stream s: max(0, A_k − A_m) over the ordered messages k sent
  before m on s, A the arrival: how long m, complete at the receiver, had to wait for an earlier
  message of its stream before the stack could deliver it. Unordered messages never wait (RFC
  9260 6.6) and are left out, as are messages whose arrival was not captured.
- Reordering: the share of messages that arrived before a message sent earlier on the
  association (any stream): arrival order against sending order.
- Path share: the share of the delivered messages whose first piece came on each path (the
  server's `rx` FROM_ADDR, every run, captures or not).
- DATA copies: per path, the DATA chunks told apart by TSN, a TSN's first copy and its later
  ones (retransmissions, on that path or another), as they arrived (the server's captures)
  and as they left the client's shaping (its captures); the run's `duplicate_share` is the
  share of the chunks arriving at the server that repeated a TSN already there. Linux's
  round-robin over asymmetric paths sends most slow-path chunks twice (docs/multipath.md).
- MTT per stream: mean and p99 of the MTT of each stream's delivered messages.
- MTT from the schedule (`sched_mtt_mean_ms`, `sched_mtt_p99_ms`): from when the schedule wanted
  the message generated (the `tx` record's T_SCHED) to its delivery. MTT counts from the
  generation, just before the send, so a sender held back by a full send buffer (a path that
  cannot keep up) hides that wait from it; this one counts it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sctpbench.collectors import captures, records
from sctpbench.plan.data import Association

DATA_U_BIT = 0x04  # RFC 9260 3.3.1: unordered
# Per path, a host's DATA chunks by kind: {"first": n, "again": n} (data_copies).
Copies = dict[str, dict[str, int]]
DATA_FILTER = captures.with_chunks(captures.CHUNK_DATA)


@dataclass(frozen=True)
class Arrival:
    seq: int
    stream: int
    ordered: bool
    t_ns: int  # capture time at the server (its CLOCK_REALTIME): only differences are used
    path: str


def arrivals(run_dir: Path, assoc: Association, client: records.Records, host: str | None = None) -> list[Arrival] | None:
    """Each message's first arrival at the server, from its captures; None when the run has no
    server capture of any of the association's paths. host=the client: its first departure, from
    the client's captures instead (the path a retransmission did not choose)."""
    stream_of = {t.seq: t.stream for t in client.tx}
    servers = {p.server_address for p in assoc.paths}
    first: dict[int, Arrival] = {}
    seen_file = False
    for path in dict.fromkeys(assoc.path_names):
        file = run_dir / "captures" / f"{path}-{host or assoc.server}.pcap"
        if not file.exists():
            continue
        seen_file = True
        for packet in captures.read(file, DATA_FILTER):
            if packet.dst not in servers:
                continue
            for chunk in packet.chunks:
                if chunk.type != captures.CHUNK_DATA or chunk.seq is None or chunk.seq not in stream_of:
                    continue
                known = first.get(chunk.seq)
                if known is None or packet.time_ns < known.t_ns:
                    first[chunk.seq] = Arrival(chunk.seq, stream_of[chunk.seq], not chunk.flags & DATA_U_BIT,
                                               packet.time_ns, path)
    return sorted(first.values(), key=lambda a: a.seq) if seen_file else None


def data_copies(run_dir: Path, assoc: Association, host: str) -> Copies | None:
    """Per path, the DATA chunks towards the server in `host`'s captures, told apart by TSN:
    `first`, a TSN's earliest copy in any of the host's captures (a tie goes to the earlier
    path of the association); `again`, every later copy of a TSN already seen, on that path or
    another: a retransmission. The server's captures count what arrived; the client's, what
    left the client's own shaping (its captures are taken after it: a copy its queue dropped
    is in neither). None when `host` has no capture of the association's paths."""
    servers = {p.server_address for p in assoc.paths}
    copies: list[tuple[int, int, int, str]] = []  # time, path order, TSN, path
    counted: Copies = {}
    for order, path in enumerate(dict.fromkeys(assoc.path_names)):
        file = run_dir / "captures" / f"{path}-{host}.pcap"
        if not file.exists():
            continue
        counted[path] = {"first": 0, "again": 0}
        for packet in captures.read(file, DATA_FILTER):
            if packet.dst in servers:
                copies += [(packet.time_ns, order, c.tsn, path) for c in packet.chunks
                           if c.type == captures.CHUNK_DATA and c.tsn is not None]
    if not counted:
        return None
    seen: set[int] = set()
    for _, _, tsn, path in sorted(copies, key=lambda c: (c[0], c[1])):
        counted[path]["again" if tsn in seen else "first"] += 1
        seen.add(tsn)
    return counted


def duplicate_share(arrived: Copies | None) -> float | None:
    """Of the DATA chunks that reached the server, the share that repeated a TSN already there."""
    if arrived is None:
        return None
    again = sum(c["again"] for c in arrived.values())
    total = again + sum(c["first"] for c in arrived.values())
    return again / total if total else None


def holb_ns(arrived: list[Arrival]) -> dict[int, int]:
    """HoLB of every ordered message with a known arrival, by sequence number (see above)."""
    latest: dict[int, int] = {}  # per stream, the latest arrival of its ordered messages so far
    out: dict[int, int] = {}
    for a in sorted(arrived, key=lambda a: a.seq):
        if not a.ordered:
            continue
        before = latest.get(a.stream)
        out[a.seq] = max(0, before - a.t_ns) if before is not None else 0
        latest[a.stream] = a.t_ns if before is None else max(before, a.t_ns)
    return out


def reordered_share(arrived: list[Arrival]) -> float | None:
    """The share of messages that arrived before one sent earlier (any stream)."""
    if not arrived:
        return None
    latest, late = None, 0
    for a in sorted(arrived, key=lambda a: a.seq):
        if latest is not None and a.t_ns < latest:
            late += 1
        latest = a.t_ns if latest is None else max(latest, a.t_ns)
    return late / len(arrived)


def path_share(rx_paths: list[str | None]) -> dict[str, float]:
    """Per path, the share of the delivered messages that came on it (by their first piece)."""
    counts = Counter(p for p in rx_paths if p is not None)
    total = sum(counts.values())
    return {p: n / total for p, n in sorted(counts.items())} if total else {}


def mtt_per_stream(mtts: list[tuple[int, int]]) -> dict[str, dict[str, float]]:
    """(stream, MTT ns) of the delivered messages → per stream (a string key, as JSON keeps it)
    the count, mean and p99 in ms."""
    by: dict[int, list[int]] = {}
    for stream, mtt in mtts:
        by.setdefault(stream, []).append(mtt)
    return {str(s): {"messages": len(v), "mtt_mean_ms": float(np.mean(v)) / 1e6,
                     "mtt_p99_ms": float(np.percentile(v, 99)) / 1e6} for s, v in sorted(by.items())}


METRIC_KEYS = ("holb_mean_ms", "holb_p99_ms", "holb_share", "reordered_share", "duplicate_share")
SCHED_MTT_KEYS = ("sched_mtt_mean_ms", "sched_mtt_p99_ms")


def sched_mtt_ns(client: records.Records, server: records.Records) -> list[int]:
    """MTT from the schedule's time (T_SCHED) of every delivered message that has one."""
    rx = {r.seq: r.t_rx_ns for r in server.rx}
    return [rx[t.seq] - t.t_sched_ns for t in client.tx if t.t_sched_ns is not None and t.seq in rx]


def sched_mtt_metrics(mtts: list[int]) -> dict[str, float | None]:
    values = np.array(mtts, dtype=float)
    if values.size == 0:
        return dict.fromkeys(SCHED_MTT_KEYS)
    return {"sched_mtt_mean_ms": float(values.mean()) / 1e6, "sched_mtt_p99_ms": float(np.percentile(values, 99)) / 1e6}


def holb_metrics(holb: list[int], arrived: list[Arrival] | None,
                 copies_arrived: Copies | None = None) -> dict[str, float | None]:
    """The run metrics (results/summary.py RunMetrics) from HoLB values (ns), arrivals and the
    DATA chunks' copies at the server."""
    if arrived is None:
        return dict.fromkeys(METRIC_KEYS)  # no server capture: no copies counted either
    values = np.array(holb, dtype=float)
    return {
        "holb_mean_ms": float(values.mean()) / 1e6 if values.size else None,
        "holb_p99_ms": float(np.percentile(values, 99)) / 1e6 if values.size else None,
        "holb_share": float((values > 0).mean()) if values.size else None,
        "reordered_share": reordered_share(arrived),
        "duplicate_share": duplicate_share(copies_arrived),
    }


def association_summary(arrived: list[Arrival] | None, holb: dict[int, int], rx_paths: list[str | None],
                        mtts: list[tuple[int, int]], sched: dict[str, int],
                        copies: dict[str, Copies | None] | None = None) -> dict[str, Any]:
    """The association's `multipath` section in summary.json; copies: data_copies of the server
    ("arrived") and of the client ("sent")."""
    copies = copies or {}
    return {
        "path_share": path_share(rx_paths),
        "mtt_per_stream": mtt_per_stream(mtts),
        "holb_messages": len(holb) if arrived is not None else None,
        "arrivals_captured": len(arrived) if arrived is not None else None,
        "scheduled_on": sched,  # the client's `sched` records: messages per chosen address
        "data_copies_arrived": copies.get("arrived"),
        "data_copies_sent": copies.get("sent"),
    }
