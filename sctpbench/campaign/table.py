"""The campaign's tables, Parquet files that pandas and duckdb open directly.

campaign.parquet: one row per finished run (ok, disturbed or failed): run_key, config_key,
  config, repetition, seed, status, error (for a disturbed run: the self-check's reasons),
  retries (disturbed attempts set aside in attempts/ before this one), param.<dotted key>
  (the value as written, a string), one float column per metrics.METRIC_KEYS name (null
  when absent: the run's metrics across its associations, see
  metrics.across_associations), directory (relative to the campaign folder); and per
  association of the runs, association.<name>.<metric> (that association's own).
configs.parquet: one row per configuration over its ok runs: config_key, config,
  param.<key>, runs_ok, runs_disturbed, runs_failed, and <metric>_mean, <metric>_ci95,
  <metric>_n (mean and 95% confidence half-width, Student's t), for the run's metrics and
  for each association.<name>.<metric>; and for the run's metrics <metric>_modes, the modes
  across the ok runs (analysis/modes.py), lowest first: a list of {value (the median of the
  mode's runs), low, high, runs}.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from sctpbench.analysis import metrics, modes
from sctpbench.campaign.expand import Run
from sctpbench.results import campaign as campaign_files
from sctpbench.results import summary as results_summary
from sctpbench.results.jsonfile import ResultsFileError

MODES_TYPE = pa.list_(pa.struct([("value", pa.float64()), ("low", pa.float64()), ("high", pa.float64()), ("runs", pa.int64())]))
RUNS_FILE = campaign_files.RUNS_TABLE
CONFIGS_FILE = campaign_files.CONFIGS_TABLE
# Parquet has no append, so a table is rewritten whole; rewritten after every run, a run
# would cost more the larger the campaign (4,000 runs: 4,000 rewrites of a growing table).
# A rewrite costs about what writing REWRITE_FIXED_ROWS + its rows would if the files had no
# fixed part (configs.parquet's hundreds of columns; measured by bench/campaign_client.py),
# so rewriting once the rows changed since the last write reach REWRITE_SHARE of
# (REWRITE_FIXED_ROWS + the rows then written) costs the same per run at any size of
# campaign: every 31 runs at first, every 281 at 4,000.
REWRITE_SHARE = 1 / 16
REWRITE_FIXED_ROWS = 500


def run_summary(run_dir: Path) -> dict[str, Any] | None:
    """A run folder's summary.json, or None when the run never got that far (none yet, or
    one cut short by a killed run: the campaign runs it again)."""
    try:
        summary = results_summary.read_document(run_dir)
    except ResultsFileError:
        return None
    return summary if summary and summary.get("status") else None


def disturbed_because(summary: dict[str, Any] | None) -> str | None:
    reasons = ((summary or {}).get("selfcheck") or {}).get("reasons") or []
    return "; ".join(r["detail"] for r in reasons) or None


def disturbed_attempts(campaign_dir: Path, run_key: str) -> int:
    """How often this run was disturbed and run again: its attempts set aside as disturbed."""
    attempts = (campaign_dir / "attempts").glob(f"{run_key}-*")
    return sum(1 for a in attempts if (run_summary(a) or {}).get("status") == "disturbed")


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def association_column(association: str, metric: str) -> str:
    return f"association.{association}.{metric}"


def association_names(run_rows: list[dict[str, Any]]) -> list[str]:
    """The associations the rows have columns for, in order of first appearance."""
    seen: dict[str, None] = {}
    for r in run_rows:
        for k in r:
            if k.startswith("association."):
                seen.setdefault(k.split(".")[1], None)
    return list(seen)


def metric_columns(associations: list[str]) -> list[str]:
    """The run's metrics, then each association's."""
    return list(metrics.METRIC_KEYS) + [association_column(a, k) for a in associations for k in metrics.METRIC_KEYS]


def row(run: Run, summary: dict[str, Any], retries: int, swept: list[str]) -> dict[str, Any]:
    """campaign.parquet's row of a run whose folder has this summary.json."""
    values = dict(run.config.params)
    out: dict[str, Any] = {
        "run_key": run.run_key, "config_key": run.config.key, "config": run.config.label,
        "repetition": run.repetition, "seed": run.seed, "status": summary["status"],
        "error": disturbed_because(summary) if summary["status"] == "disturbed" else summary.get("error"),
        "retries": retries,
    }
    out |= {f"param.{k}": values.get(k) for k in swept}
    out |= {k: _float(summary.get("metrics", {}).get(k)) for k in metrics.METRIC_KEYS}
    for name, assoc in (summary.get("associations") or {}).items():
        out |= {association_column(name, k): _float((assoc.get("metrics") or {}).get(k)) for k in metrics.METRIC_KEYS}
    out["directory"] = str(Path("runs") / run.run_key)
    return out


def table_order(runs: list[Run]) -> list[Run]:
    """The runs in the order of campaign.parquet's rows: by configuration, then repetition."""
    return sorted(runs, key=lambda r: (r.config.label, r.repetition))


def carried(campaign_dir: Path) -> dict[str, dict[str, Any]]:
    """Rows of shipped tables the folder counts as done (campaign/shipped.py), by run key,
    as campaign.parquet has them (without what made them)."""
    return {key: {k: v for k, v in r.items() if k not in campaign_files.PROVENANCE}
            for key, r in campaign_files.read_carried(campaign_dir).items()}


def rows(campaign_dir: Path, runs: list[Run], swept: list[str]) -> list[dict[str, Any]]:
    """campaign.parquet's rows from the run folders as they are now (each summary read), and
    the carried rows of runs without a folder."""
    out = []
    shipped = carried(campaign_dir)
    for run in table_order(runs):
        summary = run_summary(campaign_dir / "runs" / run.run_key)
        if summary is not None:
            out.append(row(run, summary, disturbed_attempts(campaign_dir, run.run_key), swept))
        elif run.run_key in shipped:
            out.append(shipped[run.run_key])
    return out


def runs_schema(swept: list[str], associations: list[str], provenance: tuple[str, ...] = ()) -> pa.Schema:
    """campaign.parquet's columns; a shipped table adds what made each run (provenance:
    results/campaign.PROVENANCE, seconds a float, the others text)."""
    schema = _schema(swept, associations)
    for name in provenance:
        schema = schema.append(pa.field(name, pa.float64() if name == "seconds" else pa.string()))
    return schema


def _schema(swept: list[str], associations: list[str]) -> pa.Schema:
    fields = [("run_key", pa.string()), ("config_key", pa.string()), ("config", pa.string()),
              ("repetition", pa.int64()), ("seed", pa.int64()), ("status", pa.string()), ("error", pa.string()),
              ("retries", pa.int64())]
    fields += [(f"param.{k}", pa.string()) for k in swept]
    fields += [(k, pa.float64()) for k in metrics.METRIC_KEYS]
    fields += [("directory", pa.string())]
    fields += [(k, pa.float64()) for k in metric_columns(associations)[len(metrics.METRIC_KEYS):]]
    return pa.schema(fields)


def by_config(run_rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The run rows per configuration key, in the order of first appearance, each in the rows' order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for run_row in run_rows:
        out.setdefault(run_row["config_key"], []).append(run_row)
    return out


def config_row(key: str, group: list[dict[str, Any]], swept: list[str], columns: list[str]) -> dict[str, Any]:
    """configs.parquet's row of one configuration's run rows (in campaign.parquet's order:
    the sums, and so the last bits of the means, follow it)."""
    ok = [r for r in group if r["status"] == "ok"]
    row: dict[str, Any] = {"config_key": key, "config": group[0]["config"]}
    row |= {f"param.{k}": group[0][f"param.{k}"] for k in swept}
    disturbed = sum(r["status"] == "disturbed" for r in group)
    row |= {"runs_ok": len(ok), "runs_disturbed": disturbed, "runs_failed": len(group) - len(ok) - disturbed}
    for metric in columns:
        s = metrics.mean_ci95([r.get(metric) for r in ok])  # type: ignore[misc]
        row |= {f"{metric}_mean": s["mean"], f"{metric}_ci95": s["ci95"], f"{metric}_n": s["n"]}
    for metric in metrics.METRIC_KEYS:
        row[f"{metric}_modes"] = [m.to_dict() for m in modes.modes([r.get(metric) for r in ok])]
    return row


def config_rows(run_rows: list[dict[str, Any]], swept: list[str]) -> list[dict[str, Any]]:
    columns = metric_columns(association_names(run_rows))
    return _by_label([config_row(key, group, swept, columns) for key, group in by_config(run_rows).items()])


def _by_label(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: r["config"])


def _config_schema(swept: list[str], associations: list[str]) -> pa.Schema:
    fields = [("config_key", pa.string()), ("config", pa.string())]
    fields += [(f"param.{k}", pa.string()) for k in swept]
    fields += [("runs_ok", pa.int64()), ("runs_disturbed", pa.int64()), ("runs_failed", pa.int64())]
    for metric in metric_columns(associations):
        fields += [(f"{metric}_mean", pa.float64()), (f"{metric}_ci95", pa.float64()), (f"{metric}_n", pa.int64())]
    fields += [(f"{metric}_modes", MODES_TYPE) for metric in metrics.METRIC_KEYS]
    return pa.schema(fields)


def write(campaign_dir: Path, runs: list[Run], swept: list[str]) -> list[dict[str, Any]]:
    """Both tables from the run folders as they are now; returns the run rows. Reads every
    run's summary: a campaign keeps its tables with Tables instead."""
    run_rows = rows(campaign_dir, runs, swept)
    write_rows(campaign_dir, run_rows, config_rows(run_rows, swept), swept, association_names(run_rows))
    return run_rows


def write_rows(campaign_dir: Path, run_rows: list[dict[str, Any]], configs: list[dict[str, Any]], swept: list[str],
               associations: list[str]) -> None:
    """Both tables of these rows (associations: association_names(run_rows))."""
    campaign_files.write_table(campaign_dir / RUNS_FILE, run_rows, _schema(swept, associations))
    campaign_files.write_table(campaign_dir / CONFIGS_FILE, configs, _config_schema(swept, associations))


@dataclass
class Tables:
    """A running campaign's tables, kept in memory: a run's row is read again (its one
    summary.json) only when its folder changed, and the tables are written when due
    (REWRITE_SHARE) and by flush. After flush, the files are what `write` makes of the
    folder as it is, without reading every run.

    What changes a run's row: its folder set aside (set_aside: the row goes; a disturbed
    attempt counts in its `retries`), and a folder arriving in runs/ (refresh)."""

    folder: Path
    swept: list[str]
    runs: dict[str, Run]  # run key → run, the campaign's
    position: dict[str, int]  # run key → place in campaign.parquet
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # run key → row, for runs with a summary
    associations: dict[str, tuple[str, ...]] = field(default_factory=dict)  # run key → its row's (association_names)
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)  # config key → its row as last written
    dirty: set[str] = field(default_factory=set)  # config keys whose runs' rows changed since
    columns: list[str] = field(default_factory=list)  # the associations of the last write
    disturbed: dict[str, int] = field(default_factory=dict)  # run key → disturbed attempts set aside
    stale: set[str] = field(default_factory=set)  # set aside and not read since: the folder is being made again
    changed: int = 0  # rows changed since the last write
    written: int | None = None  # rows in the last write (None: none yet)
    shipped: dict[str, dict[str, Any]] = field(default_factory=dict)  # run key → carried row (carried)

    @classmethod
    def load(cls, folder: Path, runs: list[Run], swept: list[str]) -> Tables:
        """From the folder as it is: each run's summary and each attempt's read once."""
        tables = cls(folder, swept, {r.run_key: r for r in runs},
                     {r.run_key: i for i, r in enumerate(table_order(runs))})
        tables.disturbed = _disturbed_by_run(folder, set(tables.runs))
        tables.shipped = carried(folder)
        for run in runs:
            tables.refresh(run)
        tables.changed = 0
        return tables

    def done(self, run: Run) -> bool:
        """Its summary says ok (as read last)."""
        return self.rows.get(run.run_key, {}).get("status") == "ok"

    def refresh(self, run: Run) -> dict[str, Any] | None:
        """Read the run's summary again (its folder came or changed); returns it."""
        summary = run_summary(self.folder / "runs" / run.run_key)
        if summary is None and run.run_key in self.shipped:  # done where the table was shipped from
            self.rows[run.run_key] = self.shipped[run.run_key]
            self.associations[run.run_key] = tuple(association_names([self.shipped[run.run_key]]))
            self.dirty.add(run.config.key)
        elif summary is None:
            self._drop(run)
        else:
            self.rows[run.run_key] = row(run, summary, self.disturbed.get(run.run_key, 0), self.swept)
            self.associations[run.run_key] = tuple(association_names([self.rows[run.run_key]]))
            self.dirty.add(run.config.key)
        self.stale.discard(run.run_key)
        self.changed += 1
        return summary

    def _drop(self, run: Run) -> None:
        if self.rows.pop(run.run_key, None) is not None:
            del self.associations[run.run_key]
            self.dirty.add(run.config.key)

    def set_aside(self, run: Run, attempt: Path | None) -> None:
        """The run's folder moved to `attempt` (None: there was none): no row until it comes
        again; a disturbed attempt counted."""
        if attempt is not None and (run_summary(attempt) or {}).get("status") == "disturbed":
            self.disturbed[run.run_key] = self.disturbed.get(run.run_key, 0) + 1
        self._drop(run)
        self.stale.add(run.run_key)
        self.changed += 1

    def due(self) -> bool:
        """The first change is written at once (a campaign has its tables after its first run)."""
        if self.written is None:
            return self.changed > 0
        return self.changed >= (self.written + REWRITE_FIXED_ROWS) * REWRITE_SHARE

    def write(self) -> None:
        """Both tables; of configs.parquet, only the rows of configurations whose runs changed
        are computed again."""
        keys = sorted(self.rows, key=self.position.__getitem__)
        ordered = [self.rows[k] for k in keys]
        associations = self._association_names(keys)
        if associations != self.columns:  # other columns: every configuration's row changes
            self.configs.clear()
        columns = metric_columns(associations)
        groups = by_config(ordered)
        for key in self.dirty | (groups.keys() - self.configs.keys()):
            if key in groups:
                self.configs[key] = config_row(key, groups[key], self.swept, columns)
            else:
                self.configs.pop(key, None)  # none of its runs has a row now
        write_rows(self.folder, ordered, _by_label(list(self.configs.values())), self.swept, associations)
        self.changed, self.written, self.columns = 0, len(ordered), associations
        self.dirty.clear()

    def _association_names(self, keys: list[str]) -> list[str]:
        """association_names of the rows of these keys, from each row's own."""
        seen: dict[str, None] = {}
        last: tuple[str, ...] = ()
        for key in keys:
            names = self.associations[key]
            if names != last:  # most runs of a campaign have the same associations
                seen.update(dict.fromkeys(names))
                last = names
        return list(seen)

    def flush(self) -> None:
        """The folders set aside and not back (runs stopped or running) read again, and both
        tables written."""
        for key in sorted(self.stale):
            self.refresh(self.runs[key])
        self.write()


def _disturbed_by_run(folder: Path, keys: set[str]) -> dict[str, int]:
    """disturbed_attempts of every run in `keys`, from one listing of attempts/."""
    out: dict[str, int] = {}
    attempts = folder / "attempts"
    if not attempts.is_dir():
        return out
    for entry in attempts.iterdir():
        key, dash, _ = entry.name.partition("-")  # <run_key>-<n>: a run key is hex
        if dash and key in keys and (run_summary(entry) or {}).get("status") == "disturbed":
            out[key] = out.get(key, 0) + 1
    return out


def read(path: Path) -> list[dict[str, Any]]:
    """campaign.parquet's rows, from the file or its campaign folder."""
    file = path / RUNS_FILE if path.is_dir() else path
    found = campaign_files.read_table(file)
    if found is None:
        raise ResultsFileError(f"{file}: missing; allowed: a campaign folder or its {RUNS_FILE}")
    return found
