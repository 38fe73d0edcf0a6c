"""Reading and writing the Parquet tables of a results folder (a run's, tables.py; a
campaign's, campaign.py), with jsonfile.py's policy for a missing or broken file.

pyarrow is imported inside the functions, not at the top: the guest's backends import this
package, and nothing there reads or writes a table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

Row = dict[str, Any]

# A string column's offsets are int32: NumPy's path takes a column of fewer bytes than this.
STRING_BYTES = 2**31


def write(path: Path, rows: list[Row], schema: Any) -> None:
    """A Parquet table of these rows (schema: a pyarrow.Schema), written beside and renamed,
    so a reader (the live telemetry, a report) never sees half a file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = [_column([r.get(field.name) for r in rows], field.type) for field in schema]
    tmp = path.with_suffix(path.suffix + ".tmp")
    pq.write_table(pa.Table.from_arrays(columns, schema=schema), tmp)
    tmp.replace(path)


def _column(values: list[Any], arrow_type: Any) -> Any:
    """What Table.from_pylist makes of a column. pa.array, given a list or a NumPy array,
    first asks pandas about it, importing pandas (0.3-0.5 CPU-s, a tenth of a short run) in
    a process that never uses it; a run's tables are integers, floats, booleans and strings,
    whose Arrow buffers NumPy makes directly. Anything else (a list, a struct, a value of
    another type than its column's or out of its range) goes through pa.array."""
    import numpy as np
    import pyarrow as pa

    dtype = {pa.int64(): np.int64, pa.int32(): np.int32, pa.float64(): np.float64}.get(arrow_type)
    present = [v for v in values if v is not None]
    strings = arrow_type == pa.string() and all(type(v) is str for v in present)
    encoded = [("" if v is None else v).encode() for v in values] if strings else []
    lengths = [len(e) for e in encoded]
    if strings and sum(lengths) < STRING_BYTES:
        offsets = np.zeros(len(values) + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        data = [pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    elif arrow_type == pa.bool_() and all(type(v) is bool for v in present):
        data = [pa.py_buffer(np.packbits(np.array([v is True for v in values], dtype=bool), bitorder="little"))]
    elif dtype is not None and _fits(present, dtype):
        data = [pa.py_buffer(np.array([0 if v is None else v for v in values], dtype=dtype))]
    else:
        return pa.array(values, type=arrow_type)
    nulls = len(values) - len(present)
    validity = None
    if nulls:
        valid = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
        validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(arrow_type, len(values), [validity, *data], null_count=nulls)


def _fits(present: list[Any], dtype: Any) -> bool:
    """Every value an int in the integer type's range, or a float or an int it holds exactly for a
    float column."""
    import numpy as np

    if dtype is np.float64:  # pyarrow refuses an int a double cannot hold exactly
        return all(type(v) is float or (type(v) is int and -2**53 <= v <= 2**53) for v in present)
    bounds = np.iinfo(dtype)
    return all(type(v) is int and bounds.min <= v <= bounds.max for v in present)


def read_optional(path: Path) -> list[Row] | None:
    """A Parquet table as rows, or None when the folder does not have it."""
    import pyarrow.parquet as pq

    if not path.exists():
        return None
    try:
        return list(pq.read_table(path).to_pylist())
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
        raise jsonfile.ResultsFileError(f"{path}: not a readable Parquet file ({str(e)[:80]}); {jsonfile.ALLOWED}") from None


def read(path: Path) -> list[Row]:
    """A Parquet table the caller cannot do without: missing is the one-line error."""
    return jsonfile.required(read_optional(path), path)
