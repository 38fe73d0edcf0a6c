"""A campaign folder's own files (campaign/ computes them; campaign/table.py describes the tables' columns).

campaign.json     what the report and compare read: name, swept keys, set, budgets, runs,
                  configurations, repetitions, order, seed, configs, the sctpbench version
runs.jsonl        one line per start, end and retry of a run: time, invocation, event and its fields
campaign.parquet  one row per finished run; configs.parquet: one row per configuration
claims.json       the verdicts of the last `campaign check`: the claims file, the confidence,
                  per claim its id, words, place in the paper, verdict, line and checks
carried.parquet   rows of shipped tables this folder counts as done (`campaign run --tables`):
                  campaign.parquet's columns and what made each run (PROVENANCE)
runs/<run_key>/   the run folders; attempts/<run_key>-<n>/ the ones set aside

A shipped tables folder (reproductions/<x>/results/, campaign/shipped.py) is a campaign folder
without runs: campaign.json, campaign.parquet with the PROVENANCE columns, and shipped.json
(its totals: runs, repetitions, run time, commits, kernel keys, hosts).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile, parquetfile, version

INFO = "campaign.json"
LOG = "runs.jsonl"
RUNS_TABLE = "campaign.parquet"
CONFIGS_TABLE = "configs.parquet"
CLAIMS = "claims.json"
CARRIED = "carried.parquet"
SHIPPED = "shipped.json"
# What made a run, in a shipped table's rows: the checkout's commit, the guest kernel's build
# key, the host, the run's wall seconds and when it ended (runs.jsonl's campaign-start and end).
PROVENANCE = ("commit", "kernel_key", "host", "seconds", "finished")

Row = dict[str, Any]


@dataclass(frozen=True)
class LogEntry:
    """One line of runs.jsonl."""

    time: str  # ISO 8601, UTC, milliseconds
    invocation: str  # the `campaign run` it belonged to
    event: str  # start, end, retry, …
    fields: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"time": self.time, "invocation": self.invocation, "event": self.event} | self.fields

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LogEntry:
        rest = {k: v for k, v in d.items() if k not in ("time", "invocation", "event")}
        return cls(d["time"], d["invocation"], d["event"], rest)


def write_info(folder: Path, document: dict[str, Any]) -> None:
    (folder / INFO).write_text(jsonfile.text(document))
    version.mark(folder, "campaign")


def read_info(folder: Path) -> dict[str, Any] | None:
    """campaign.json, or None for a campaign table given without its folder's."""
    document = jsonfile.read_optional(folder / INFO)
    return None if document is None else version.upgraded(folder, INFO, document)


def write_claims(folder: Path, document: dict[str, Any]) -> None:
    """The verdicts of `campaign check`, for the report; written whole, replacing the last check's."""
    jsonfile.write(folder / CLAIMS, document)


def read_claims(folder: Path) -> dict[str, Any] | None:
    """claims.json, or None when the campaign was never checked."""
    return jsonfile.read_optional(folder / CLAIMS)


def read_carried(folder: Path) -> dict[str, Row]:
    """carried.parquet's rows by run key (empty without the file), with what made each run."""
    return {str(r["run_key"]): r for r in read_table(folder / CARRIED) or []}


def write_shipped(folder: Path, document: dict[str, Any]) -> None:
    jsonfile.write(folder / SHIPPED, document)


def read_shipped(folder: Path) -> dict[str, Any] | None:
    """shipped.json, or None for a folder that is not shipped tables."""
    return jsonfile.read_optional(folder / SHIPPED)


def log(folder: Path, entry: LogEntry) -> None:
    jsonfile.append_line(folder / LOG, entry.to_dict())


def read_log(folder: Path) -> list[LogEntry]:
    """Every line of runs.jsonl; none before the first run started."""
    return [LogEntry.from_dict(d) for d in jsonfile.read_lines(folder / LOG) or []]


def config_of(folder: Path, run_key: str) -> str:
    """The configuration label a run of the campaign was started with (its last `start` in
    runs.jsonl), "" when the log names none: how a run folder under runs/ learns its
    configuration without the campaign telling it (the live writer's `config` tag)."""
    labels = [e.fields.get("config") for e in read_log(folder) if e.event == "start" and e.fields.get("run_key") == run_key]
    return str(labels[-1]) if labels and labels[-1] else ""


def write_table(path: Path, rows: list[Row], schema: Any) -> None:
    """A campaign table of these rows (schema: a pyarrow.Schema; campaign/table.py's columns)."""
    parquetfile.write(path, rows, schema)


def read_table(path: Path) -> list[Row] | None:
    """A campaign table as rows, or None when there is none (a campaign before its first run)."""
    return parquetfile.read_optional(path)
