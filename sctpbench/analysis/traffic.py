"""Competing flows' figures: the tcp_throughput table and each flow's summary.

TCP samples are put on the run's clock through the moment the backend let the flow go
(its `go` line in events.jsonl): iperf3 counts its intervals from its test's start, which
follows that moment by the connection setup (a few round trips), so a sample's time is
late by at most that. The intervals are the sender's (what it wrote into its socket), so a
flow's throughput is what its receiver got: iperf3's end.sum_received, bytes the receiving
application read over the receiver's seconds, slow start included. The sender's intervals
ran ahead of it by the send buffer: two reno flows on a 6 Mbit/s path wrote 6.40 Mbit/s while
5.32 reached the receiver (seed 001's lc2x1 cell, docs/seeds/001.md).
UDP rates count every datagram with its IPv4 and UDP headers, as the flow's `share` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.collectors import traffic as records
from sctpbench.model.traffic import UDP_WIRE_OVERHEAD
from sctpbench.plan.data import Flow, Plan


def go_times(events: list[dict[str, Any]]) -> dict[str, int]:
    """flow → when its sender was let go or started (CLOCK_MONOTONIC ns), from the timeline."""
    return {e["target"]: int(e["applied_ns"]) for e in events if e.get("kind") in ("go", "start") and e.get("applied_ns")}


def tcp_rows(flow: Flow, result: records.TcpResult, go_ns: int | None, t0: int | None) -> list[dict[str, Any]]:
    """One row per iperf3 interval, stamped at the interval's end."""
    rows = []
    for i in result.intervals:
        t_ns = None if go_ns is None else go_ns + int(i.end_s * 1e9)
        t_rel = None if t_ns is None or t0 is None else t_ns - t0
        rows.append({
            "flow": flow.name, "t_ns": t_ns, "t_rel_ns": t_rel, "t_s": None if t_rel is None else t_rel / 1e9,
            "interval_s": i.end_s - i.start_s, "bytes": i.bytes, "bits_per_second": i.bits_per_second,
            "retransmits": i.retransmits, "snd_cwnd": i.snd_cwnd, "rtt_ms": i.rtt_ms,
        })
    return rows


def mean_throughput_bps(result: records.TcpResult) -> float | None:
    """What reached the receiving application over the test (iperf3's end.sum_received); None
    when iperf3 did not finish (a killed run)."""
    return result.received_bps


def connection_throughputs_bps(result: records.TcpResult) -> list[float]:
    """Each TCP connection's (iperf3 stream's) received throughput over the test."""
    return list(result.received_stream_bps)


def tcp_summary(flow: Flow, result: records.TcpResult) -> dict[str, Any]:
    mean = mean_throughput_bps(result)
    return {
        "kind": "tcp", "client": flow.client, "server": flow.server, "path": flow.path,
        "congestion_requested": flow.params["congestion"], "intervals": len(result.intervals),
        "mean_throughput_bps": mean, "mean_throughput_mbps": None if mean is None else mean / 1e6,
        "connection_throughputs_bps": connection_throughputs_bps(result),
        **records.as_dict(result),
    }


def udp_summary(flow: Flow, sent: records.UdpRecords, received: records.UdpRecords) -> dict[str, Any]:
    """Counts, loss and rates over the flow's configured duration."""
    ok = [d for d in sent.datagrams if d.ok]
    got = {d.seq for d in received.datagrams}
    wire = lambda ds: sum(d.size + UDP_WIRE_OVERHEAD for d in ds) * 8 / (flow.duration_ns / 1e9)  # noqa: E731
    return {
        "kind": "udp", "client": flow.client, "server": flow.server, "path": flow.path,
        "rate_requested": flow.params["rate"], "configured_bps": flow.params["offered_bps"],
        "sent": len(ok), "refused": len(sent.datagrams) - len(ok), "received": len(got),
        "loss": 1 - len(got) / len(ok) if ok else None,
        "offered_bps": wire(ok), "achieved_bps": wire(list({d.seq: d for d in received.datagrams}.values())),
        "complete": sent.end is not None and received.end is not None,
    }


def collect(run_dir: Path, plan: Plan, events: list[dict[str, Any]], t0: int | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(tcp_throughput rows, flow → summary) of every flow of the plan."""
    went = go_times(events)
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    for flow in plan.traffic:
        if flow.kind == "tcp":
            result = records.read_iperf3(run_dir / flow.outputs["client"])
            rows += tcp_rows(flow, result, went.get(flow.name), t0)
            summary[flow.name] = tcp_summary(flow, result)
        else:
            summary[flow.name] = udp_summary(flow, records.read_udpgen(run_dir / flow.outputs["client"]),
                                             records.read_udpgen(run_dir / flow.outputs["server"]))
    return rows, summary
