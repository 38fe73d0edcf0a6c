"""A run's Parquet tables (files.py, COLLECTED): their names and columns, the one writer
(collection: analysis/store.py builds the rows) and the readers (reports, telemetry,
calibration).

messages.parquet        one row per message
path_events.parquet     timeline actions, notifications and the agents' own events
path_samples.parquet    SCTP_GET_PEER_ADDR_INFO samples
frames.parquet          video associations: one row per frame
tcp_throughput.parquet  competing TCP flows' iperf3 intervals
cum_tsn.parquet         with captures: each SACK reaching a client, its cumulative TSN ack

A table's columns are COLUMNS' (name, Arrow type), in order: a row builder's key not
there is not written, a column the rows lack is null. pyarrow is imported inside the
functions (parquetfile.py says why).
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
Columns = tuple[tuple[str, str], ...]  # (name, pyarrow type alias)

COLUMNS: dict[Name, Columns] = {
    MESSAGES: (("association", "string"), ("seq", "int64"), ("stream", "int32"), ("size", "int32"), ("t_gen_ns", "int64"),
               ("t_sent_ns", "int64"), ("t_rx_ns", "int64"), ("mtt_ns", "int64"), ("path", "string"),
               ("from_addr", "string"), ("t_rel_ns", "int64")),
    PATH_EVENTS: (("association", "string"), ("t_ns", "int64"), ("t_rel_ns", "int64"), ("source", "string"),
                  ("kind", "string"), ("path", "string"), ("addr", "string"), ("detail", "string")),
    PATH_SAMPLES: (("association", "string"), ("t_ns", "int64"), ("t_rel_ns", "int64"), ("endpoint", "string"),
                   ("path", "string"), ("addr", "string"), ("state", "string"), ("cwnd", "int64"), ("srtt_ms", "double"),
                   ("rto_ms", "int64"), ("mtu", "int32"), ("primary", "bool")),
    FRAMES: (("association", "string"), ("frame", "int64"), ("type", "string"), ("messages", "int32"), ("bytes", "int64"),
             ("delivered", "int32"), ("t_sched_ns", "int64"), ("t_rel_ns", "int64"), ("t_last_rx_ns", "int64"),
             ("mtt_ns", "int64"), ("late", "bool")),
    TCP_THROUGHPUT: (("flow", "string"), ("t_ns", "int64"), ("t_rel_ns", "int64"), ("t_s", "double"), ("interval_s", "double"),
                     ("bytes", "int64"), ("bits_per_second", "double"), ("retransmits", "int64"), ("snd_cwnd", "int64"),
                     ("rtt_ms", "double")),
    CUM_TSN: (("association", "string"), ("t_rel_ns", "int64"), ("cum_tsn_ack", "int64"), ("path", "string")),
}


def schema(name: Name) -> Any:
    """The table's pyarrow.Schema."""
    import pyarrow as pa

    return pa.schema([(column, pa.type_for_alias(kind)) for column, kind in COLUMNS[name]])


def write(run_dir: Path, name: Name, rows: list[Row]) -> None:
    """One of the run's tables, in its columns."""
    parquetfile.write(run_dir / name, rows, schema(name))


def read(run_dir: Path, name: Name) -> list[Row]:
    """A table the caller needs (the missing file is the one-line error)."""
    return parquetfile.read(run_dir / name)


def read_optional(run_dir: Path, name: Name) -> list[Row] | None:
    """A table as rows, or None where the run has none (it stopped early; a table that only some runs have)."""
    return parquetfile.read_optional(run_dir / name)
