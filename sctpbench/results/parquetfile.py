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


def write(path: Path, rows: list[Row], schema: Any) -> None:
    """A Parquet table of these rows (schema: a pyarrow.Schema), written beside and renamed,
    so a reader (the live telemetry, a report) never sees half a file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = path.with_suffix(path.suffix + ".tmp")
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
    tmp.replace(path)


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
    rows = read_optional(path)
    if rows is None:
        raise jsonfile.ResultsFileError(f"{path}: missing; {jsonfile.ALLOWED}")
    return rows
