"""A run's Parquet tables (files.py, COLLECTED): collection writes them, reports, telemetry
and calibration read them. Their columns are the row builders' schemas (analysis/store.py,
frames.py, traffic.py, cumtsn.py), given to `write`.

messages.parquet        one row per message
path_events.parquet     timeline actions, notifications and the agents' own events
path_samples.parquet    SCTP_GET_PEER_ADDR_INFO samples
frames.parquet          video associations: one row per frame
tcp_throughput.parquet  competing TCP flows' iperf3 intervals
cum_tsn.parquet         with captures: each SACK reaching a client, its cumulative TSN ack
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal, get_args

from sctpbench.results import parquetfile

# A table's name is one of these (mypy): a caller cannot make up a seventh.
Name = Literal["messages.parquet", "path_events.parquet", "path_samples.parquet", "frames.parquet",
               "tcp_throughput.parquet", "cum_tsn.parquet"]
MESSAGES: Final = "messages.parquet"
PATH_EVENTS: Final = "path_events.parquet"
PATH_SAMPLES: Final = "path_samples.parquet"
FRAMES: Final = "frames.parquet"
TCP_THROUGHPUT: Final = "tcp_throughput.parquet"
CUM_TSN: Final = "cum_tsn.parquet"
NAMES: tuple[Name, ...] = get_args(Name)

Row = dict[str, Any]


def write(run_dir: Path, name: Name, rows: list[Row], schema: Any) -> None:
    """One of the run's tables (schema: a pyarrow.Schema)."""
    parquetfile.write(run_dir / name, rows, schema)


def read(run_dir: Path, name: Name) -> list[Row]:
    """A table the caller needs (the missing file is the one-line error)."""
    return parquetfile.read(run_dir / name)


def read_optional(run_dir: Path, name: Name) -> list[Row] | None:
    """A table as rows, or None where the run has none (it stopped early; a table that only some runs have)."""
    return parquetfile.read_optional(run_dir / name)
