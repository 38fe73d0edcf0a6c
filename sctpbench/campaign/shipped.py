"""Shipped tables: a campaign's compact run table kept in git beside its campaign file.

`reproductions/<x>/results/` holds campaign.yaml's (`results-<y>/` campaign-<y>.yaml's):
campaign.json, campaign.parquet — one row per finished run, its swept values, seed, status
and metrics, and what made it (the commit, the guest kernel's build key, the host, its wall
seconds: results/campaign.PROVENANCE) — and shipped.json, the totals. No run folders, no
captures: a few kB per hundred runs.

- `campaign check reproductions/<x>/results CLAIMS` reads it as a campaign folder, on a fresh
  clone, without running anything;
- `campaign run FILE --tables DIR` counts the runs in DIR's table as done (carry: found by
  configuration, repetition and seed, so a run made by an older commit, whose run key differs,
  is not run again) and ships the folder's table back to DIR after every round.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench.campaign import table
from sctpbench.campaign.expand import Run
from sctpbench.results import campaign as campaign_files
from sctpbench.results.jsonfile import ResultsFileError

Row = dict[str, Any]
UNKNOWN = "unknown"


def default_folder(campaign_file: Path) -> Path:
    """Where a campaign file's tables are shipped: results/ beside campaign.yaml,
    results-usrsctp/ beside campaign-usrsctp.yaml."""
    return campaign_file.parent / f"results{campaign_file.stem.removeprefix('campaign')}"


def provenance(folder: Path) -> dict[str, Row]:
    """Per run key, what made its last ended attempt: its invocation's commit, kernel key and
    host (campaign-start), its seconds and end time; "unknown" for a run logged before
    campaign-start named them."""
    facts: dict[str, Row] = {}
    out: dict[str, Row] = {}
    for entry in campaign_files.read_log(folder):
        if entry.event == "campaign-start":
            facts[entry.invocation] = {k: entry.fields.get(k, UNKNOWN) for k in ("commit", "kernel_key", "host")}
        elif entry.event == "end" and entry.fields.get("status") != "interrupted":
            made = facts.get(entry.invocation, dict.fromkeys(("commit", "kernel_key", "host"), UNKNOWN))
            out[str(entry.fields.get("run_key"))] = made | {"seconds": entry.fields.get("seconds"),
                                                             "finished": entry.time}
    return out


def _write_rows(path: Path, info: dict[str, Any], rows: list[Row]) -> None:
    """A runs table with what made each run (campaign.parquet's columns and PROVENANCE)."""
    swept = list(info.get("swept") or [])
    campaign_files.write_table(path, rows, table.runs_schema(swept, table.association_names(rows), campaign_files.PROVENANCE))


def shipped_rows(folder: Path) -> list[Row]:
    """The campaign folder's rows with what made each (carried rows keep what their table said)."""
    rows = campaign_files.read_table(folder / campaign_files.RUNS_TABLE) or []
    made, carried = provenance(folder), campaign_files.read_carried(folder)
    out = []
    for r in rows:
        key = str(r["run_key"])
        source = carried.get(key) or made.get(key) or {}
        row = dict(r) | {k: source.get(k, UNKNOWN if k not in ("seconds", "finished") else None)
                         for k in campaign_files.PROVENANCE}
        row["directory"] = None  # no run folders where the table is shipped
        out.append(row)
    return out


@dataclass(frozen=True)
class Totals:
    """shipped.json: what the table holds and what it cost."""

    campaign: str
    campaign_file: str  # relative to the shipped folder
    runs: int
    ok: int
    configurations: int
    repetitions_min: int  # the fewest ok repetitions any configuration has
    repetitions_max: int
    run_seconds: float  # the runs' wall time summed (with --parallel 1, the campaign's)
    commits: list[str]
    kernel_keys: list[str]
    hosts: list[str]
    last_run: str | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def totals(name: str, campaign_file: str, rows: list[Row]) -> Totals:
    ok = [r for r in rows if r["status"] == "ok"]
    per_config: dict[str, int] = {}
    for r in ok:
        per_config[r["config"]] = per_config.get(r["config"], 0) + 1
    finished = [str(r["finished"]) for r in rows if r.get("finished")]
    return Totals(
        campaign=name, campaign_file=campaign_file, runs=len(rows), ok=len(ok),
        configurations=len({r["config"] for r in rows}),
        repetitions_min=min(per_config.values(), default=0), repetitions_max=max(per_config.values(), default=0),
        run_seconds=round(sum(float(r["seconds"]) for r in rows if r.get("seconds") is not None), 1),
        commits=sorted({str(r["commit"]) for r in rows}), kernel_keys=sorted({str(r["kernel_key"]) for r in rows}),
        hosts=sorted({str(r["host"]) for r in rows}), last_run=max(finished, default=None))


def ship(folder: Path, dest: Path, campaign_file: Path) -> Totals:
    """The campaign folder's table (and campaign.json) into `dest`, with what made each run."""
    info = campaign_files.read_info(folder)
    if info is None:
        raise ResultsFileError(f"{folder}: no {campaign_files.INFO}; allowed: a campaign folder after `campaign run`")
    rows = _keeping(shipped_rows(folder), campaign_files.read_table(dest / campaign_files.RUNS_TABLE) or [])
    dest.mkdir(parents=True, exist_ok=True)
    relative = os.path.relpath(campaign_file.resolve(), dest.resolve())
    # campaign.json names the campaign file by where it lies on the machine that ran it
    campaign_files.write_info(dest, info | {"file": relative})
    _write_rows(dest / campaign_files.RUNS_TABLE, info, rows)
    made = totals(str(info.get("name") or folder.name), relative, rows)
    campaign_files.write_shipped(dest, made.to_dict())
    return made


def _keeping(rows: list[Row], before: list[Row]) -> list[Row]:
    """The folder's rows and the shipped rows of a configuration and repetition it has not:
    `--until-conclusive` resumed from shipped tables runs its campaign file's repetitions
    first, and shipping that round alone would leave fewer runs in git than were there."""
    have = {(r["config"], int(r["repetition"])) for r in rows}
    return rows + [r for r in before if (r["config"], int(r["repetition"])) not in have]


def carry(dest: Path, folder: Path, runs: list[Run]) -> int:
    """The runs of `runs` that `dest`'s table has ok and `folder` has not run count as done in
    `folder` (its carried.parquet); returns how many. A run is the same run when its
    configuration, repetition and seed are: its key may differ (another commit's experiment
    model), what it swept and drew does not."""
    found = campaign_files.read_table(dest / campaign_files.RUNS_TABLE) or []
    index = {(r["config"], int(r["repetition"]), int(r["seed"])): r for r in found if r["status"] == "ok"}
    carried = []
    for run in runs:
        row = index.get((run.config.label, run.repetition, run.seed))
        if row is not None and table.run_summary(folder / "runs" / run.run_key) is None:
            carried.append(dict(row) | {"run_key": run.run_key, "config_key": run.config.key, "directory": None})
    if carried or (folder / campaign_files.CARRIED).exists():
        folder.mkdir(parents=True, exist_ok=True)
        _write_rows(folder / campaign_files.CARRIED, campaign_files.read_info(dest) or {}, carried)
    return len(carried)
