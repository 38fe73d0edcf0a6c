"""A run's tables hold every column their rows are built with: the row builders (analysis/)
and the columns (results/tables.py) live apart, and a key the columns lack would be dropped
from the file without a word."""

from __future__ import annotations

from pathlib import Path

from sctpbench.analysis import store
from sctpbench.collectors import records
from sctpbench.results import tables

PATH_OF = {"10.0.1.2": "primary"}
REL = store.relative_to(1_000)


def columns(name: tables.Name) -> list[str]:
    return [column for column, _ in tables.COLUMNS[name]]


def test_the_store_builds_rows_of_exactly_the_tables_columns() -> None:
    tx, rx = records.Tx(2_000, 1, 0, 200, 2_100), records.Rx(3_000, 1, 0, 200, 2_000, "10.0.1.2")
    sample = records.PathSample(2_500, "10.0.1.2", "ACTIVE", 4380, 20, 200, 1500, True)
    timeline = {"kind": "fail", "target": "primary", "applied_ns": 5_000, "at_ns": 4_000, "lag_ns": 1_000}
    assert list(store.message_row(tx, rx, PATH_OF, REL, "main")) == columns(tables.MESSAGES)
    assert list(store.timeline_event_row(timeline, PATH_OF, REL)) == columns(tables.PATH_EVENTS)
    assert list(store.addr_event_row("client", records.AddrChange(4_000, "10.0.1.2", "ADDR_UNREACHABLE", 0), PATH_OF, REL,
                                     "main")) == columns(tables.PATH_EVENTS)
    assert list(store.sample_row("client", sample, PATH_OF, REL, 1000, "main")) == columns(tables.PATH_SAMPLES)


def test_a_table_reads_back_as_written_and_a_missing_one_is_none(tmp_path: Path) -> None:
    row = store.message_row(records.Tx(2_000, 1, 0, 200, 2_100), None, PATH_OF, REL, "main")
    tables.write(tmp_path, tables.MESSAGES, [row])
    assert tables.read(tmp_path, tables.MESSAGES) == [row]
    assert tables.read_optional(tmp_path, tables.CUM_TSN) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == [tables.MESSAGES]  # nothing left beside it
