"""The report's tables of competing flows (`traffic:`): one per flow, from summary.json and
tcp_throughput.parquet (analysis/traffic.py)."""

from __future__ import annotations

from typing import Any

from sctpbench.outputs import folders
from sctpbench.results import tables

MBIT = 1e6


NOTE = ("TCP throughput is what the receiver got over the test (the per-interval rates are what the sender wrote, "
        "ahead of the path by its send buffer); UDP rates count IP and UDP headers, over the flow's duration.")


def flow_tables(run: folders.RunData) -> list[tuple[str, list[tuple[str, Any]]]]:
    """(heading, [(figure, value)]) per flow, in the experiment's order."""
    flows: dict[str, dict[str, Any]] = run.summary.get("traffic") or {}
    samples = _samples(run)
    out = []
    for name, f in flows.items():
        rows = _tcp_rows(f, samples.get(name, [])) if f.get("kind") == "tcp" else _udp_rows(f)
        out.append((f"{name}: {f.get('kind')} {f.get('client')} → {f.get('server')} over {f.get('path')}", rows))
    return out


def _samples(run: folders.RunData) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for row in tables.read_optional(run.directory, tables.TCP_THROUGHPUT) or []:
        out.setdefault(row["flow"], []).append(row["bits_per_second"] / MBIT)
    return out


def _mbit(value: Any) -> float | None:
    return None if value is None else float(value) / MBIT


def _tcp_rows(f: dict[str, Any], samples: list[float]) -> list[tuple[str, Any]]:
    return [
        ("congestion control (requested / used)", f"{f.get('congestion_requested')} / {f.get('congestion') or '–'}"),
        ("throughput received over the test (Mbit/s)", _mbit(f.get("mean_throughput_bps"))),
        ("sent / received over the test (Mbit/s)", f"{_fmt2(_mbit(f.get('sent_bps')))} / {_fmt2(_mbit(f.get('received_bps')))}"),
        ("retransmissions", f.get("retransmits")),
        ("sender's rate per interval (Mbit/s)", ", ".join(f"{s:.2f}" for s in samples) or "–"),
        ("iperf3 error", f.get("error") or "none"),
    ]


def _udp_rows(f: dict[str, Any]) -> list[tuple[str, Any]]:
    loss = f.get("loss")
    return [
        ("rate requested (datagrams/s)", f.get("rate_requested")),
        ("configured / offered / achieved (Mbit/s)",
         f"{_fmt2(_mbit(f.get('configured_bps')))} / {_fmt2(_mbit(f.get('offered_bps')))} / {_fmt2(_mbit(f.get('achieved_bps')))}"),
        ("sent / received / refused by the host", f"{f.get('sent')} / {f.get('received')} / {f.get('refused')}"),
        ("loss (%)", None if loss is None else 100 * loss),
        ("both ends finished", f.get("complete")),
    ]


def _fmt2(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"
