"""Competing TCP flows against the SCTP associations: their throughput and Jain's fairness index.

Seed 001 asks whether a larger initial window for the video penalises the TCP flows sharing
its path; it watches the TCP flows' total throughput. Two run metrics answer it:

- `competing_tcp_mbps`: the competing TCP flows' throughput summed, each flow's what its
  receiver got over the test (analysis/traffic.py), Mbit/s;
- `jain_fairness`: Jain's index (Σx)² / (n·Σx²) over every TCP connection's throughput (each
  of a flow's `parallel` connections counts as one, with what its receiver got) and every
  association's goodput (the payload its server received over the workload's duration). 1 when all are equal,
  1/n when one takes everything. An application-limited association (a 1 Mbit/s video)
  lowers it without being treated unfairly: the index compares throughputs, not demands.

Both are None in a run without competing TCP flows. UDP flows are left out: their rate is
the experiment's, not a share they won.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def jain_index(throughputs: Sequence[float]) -> float | None:
    """(Σx)² / (n·Σx²); None for no flows or when nothing got through."""
    squares = sum(x * x for x in throughputs)
    return sum(throughputs) ** 2 / (len(throughputs) * squares) if throughputs and squares > 0 else None


def goodput_bps(received_bytes: int, duration_ns: int) -> float | None:
    """An association's payload received over its workload's duration."""
    return received_bytes * 8 / (duration_ns / 1e9) if duration_ns > 0 else None


RUN_METRICS = ("competing_tcp_mbps", "jain_fairness")


def competing_metrics(traffic: Mapping[str, Mapping[str, Any]],
                      association_goodputs_bps: Sequence[float | None]) -> dict[str, float | None]:
    """The run's competing_tcp_mbps and jain_fairness from its `traffic` summary (analysis/traffic.py)
    and its associations' goodputs."""
    tcp = [f for f in traffic.values() if f.get("kind") == "tcp"]
    means = [f.get("mean_throughput_bps") for f in tcp]
    if not tcp or any(m is None for m in means):
        return dict.fromkeys(RUN_METRICS)
    # A flow whose iperf3 gave no per-connection figures counts as one connection.
    connections = [c for f in tcp for c in (f.get("connection_throughputs_bps") or [f["mean_throughput_bps"]])]
    shares = [float(c) for c in connections] + [g for g in association_goodputs_bps if g is not None]
    return {"competing_tcp_mbps": sum(float(m) for m in means if m is not None) / 1e6,
            "jain_fairness": jain_index(shares) if len(shares) > 1 else None}
