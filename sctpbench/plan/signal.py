"""The `signal` policy's trace as the client agent reads it (`--signal FILE`,
workloads/agent/RECORDS.md "Signal files"): `OFFSET_NS ADDR DBM` a line.

The experiment names paths and counts from t0; the agent knows its peers' addresses and
the association's start time T (its `start` command). So each point becomes one line per
server address of that path (two on a dual-stack path), its time an offset from the
association's start, negative for a point before it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sctpbench.plan.data import Association


def file_name(association: str) -> str:
    """Where the file goes, relative to the run folder."""
    return f"signals/{association}.sig"


def render(points: Sequence[tuple[int, str, float]], association: Association) -> str:
    """points: (ns from t0, path, dBm), in time order, as the spec checked them."""
    start_ns = association.workload["start_ns"]
    lines = ["# OFFSET_NS ADDR DBM (workloads/agent/RECORDS.md): offsets from the association's start"]
    for at_ns, path, dbm in points:
        lines += [f"{at_ns - start_ns} {p.server_address} {dbm:g}  # {path}" for p in association.paths if p.path == path]
    return "\n".join(lines) + "\n"
