"""results/parquetfile.write makes the file pyarrow's Table.from_pylist makes, byte for byte,
without importing pandas into a run's process (pyarrow's pa.array does: 0.3-0.5 CPU-s)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sctpbench.results import parquetfile, tables

SCHEMA = pa.schema([("i", pa.int64()), ("j", pa.int32()), ("x", pa.float64()), ("s", pa.string()), ("b", pa.bool_()),
                    ("l", pa.list_(pa.int64()))])
ROWS: list[dict[str, Any]] = [
    {"i": 5, "j": 7, "x": 1.5, "s": "a", "b": True, "l": [1, 2]},
    {"i": None, "j": None, "x": None, "s": None, "b": None, "l": None},
    {"x": float("nan"), "s": "", "b": False},  # keys left out are nulls
    {"i": -2**63, "j": -2**31, "x": -0.0, "s": "é☃" * 3, "b": True, "l": []},
    {"i": 2**63 - 1, "j": 2**31 - 1, "x": 3, "s": "z" * 70_000, "b": False, "l": [3]},  # an int in a float column
    {"x": -2**53},
]


def _reference(rows: list[dict[str, Any]], schema: pa.Schema, path: Path) -> bytes:
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path.read_bytes()


@pytest.mark.parametrize("rows", [ROWS, ROWS[:1], ROWS[1:2], []], ids=["all", "one", "all-null", "empty"])
def test_the_file_is_from_pylists_to_the_byte(rows: list[dict[str, Any]], tmp_path: Path) -> None:
    parquetfile.write(tmp_path / "t.parquet", rows, SCHEMA)
    assert (tmp_path / "t.parquet").read_bytes() == _reference(rows, SCHEMA, tmp_path / "ref.parquet")


def _error(write: Any) -> type[BaseException] | None:
    try:
        write()
    except Exception as e:
        return type(e)
    return None


@pytest.mark.parametrize(("column", "value"), [("j", 2**31), ("i", 2**63), ("s", 3), ("x", 2**53 + 1), ("x", -2**53 - 1)])
def test_a_value_its_column_cannot_hold_is_refused_as_before(column: str, value: Any, tmp_path: Path) -> None:
    """pyarrow's own error, which names the column's type, not NumPy's."""
    before = _error(lambda: pa.Table.from_pylist([{column: value}], schema=SCHEMA))
    assert before is not None
    assert _error(lambda: parquetfile.write(tmp_path / "t.parquet", [{column: value}], SCHEMA)) is before


def test_writing_a_runs_tables_does_not_import_pandas(tmp_path: Path) -> None:
    code = f"""
import sys
from pathlib import Path
from sctpbench.results import tables
rows = {{name: [{{column: ({{"string": "a", "bool": True, "double": 1.5}}.get(kind, 1))
                  for column, kind in tables.COLUMNS[name]}}] for name in tables.COLUMNS}}
for name, r in rows.items():
    tables.write(Path({str(tmp_path)!r}), name, r)
print(sorted(m for m in ("pandas", "scipy") if m in sys.modules))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"
    assert {p.name for p in tmp_path.iterdir()} == set(tables.COLUMNS)


def test_every_value_in_its_columns_range_is_written_without_pa_array(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The edges of each range a run's columns hold (int64, int32, the ints a double holds exactly,
    strings, booleans, nulls) take NumPy's path, not pa.array's (which imports pandas)."""
    rows: list[dict[str, Any]] = [
        {"i": -2**63, "j": -2**31, "x": -2**53, "s": "", "b": False},
        {"i": 2**63 - 1, "j": 2**31 - 1, "x": 2**53, "s": "é", "b": True},
        {"i": None, "j": None, "x": 0.5, "s": None, "b": None},
        {"s": "z" * 70_000},
    ]
    schema = pa.schema([f for f in SCHEMA if f.name != "l"])
    expected = _reference(rows, schema, tmp_path / "ref.parquet")

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"pa.array({args[:1]!r}) called")

    monkeypatch.setattr(pa, "array", refused)
    parquetfile.write(tmp_path / "t.parquet", rows, schema)
    assert (tmp_path / "t.parquet").read_bytes() == expected


def test_a_string_column_of_as_many_bytes_as_int32_offsets_hold_goes_through_pa_array(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 2^31 bytes (here a limit of 10, not 2 GiB of memory) the offsets would overflow: pa.array
    makes the column (a large one), one byte less NumPy does; the same file either way."""
    schema = pa.schema([("s", pa.string())])
    called: list[int] = []
    array = pa.array

    def spied(values: Any, *args: Any, **kwargs: Any) -> Any:
        called.append(len(values))
        return array(values, *args, **kwargs)

    assert parquetfile.STRING_BYTES == 2**31
    monkeypatch.setattr(parquetfile, "STRING_BYTES", 10)
    monkeypatch.setattr(pa, "array", spied)
    for rows, through in (([{"s": "abcd"}, {"s": "é"}, {"s": "xyz"}], []), ([{"s": "abcd"}, {"s": "é"}, {"s": "wxyz"}], [3])):
        parquetfile.write(tmp_path / "t.parquet", rows, schema)
        assert called == through
        called.clear()
        assert (tmp_path / "t.parquet").read_bytes() == _reference(rows, schema, tmp_path / "ref.parquet")
        called.clear()
