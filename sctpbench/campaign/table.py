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

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sctpbench.analysis import metrics, modes
from sctpbench.campaign.expand import Run
from sctpbench.results import campaign as campaign_files
from sctpbench.results import summary as results_summary
from sctpbench.results.jsonfile import ResultsFileError

MODES_TYPE = pa.list_(pa.struct([("value", pa.float64()), ("low", pa.float64()), ("high", pa.float64()), ("runs", pa.int64())]))
RUNS_FILE = campaign_files.RUNS_TABLE
CONFIGS_FILE = campaign_files.CONFIGS_TABLE


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


def rows(campaign_dir: Path, runs: list[Run], swept: list[str]) -> list[dict[str, Any]]:
    out = []
    for run in sorted(runs, key=lambda r: (r.config.label, r.repetition)):
        directory = Path("runs") / run.run_key
        summary = run_summary(campaign_dir / directory)
        if summary is None:
            continue
        values = dict(run.config.params)
        row: dict[str, Any] = {
            "run_key": run.run_key, "config_key": run.config.key, "config": run.config.label,
            "repetition": run.repetition, "seed": run.seed, "status": summary["status"],
            "error": disturbed_because(summary) if summary["status"] == "disturbed" else summary.get("error"),
            "retries": disturbed_attempts(campaign_dir, run.run_key),
        }
        row |= {f"param.{k}": values.get(k) for k in swept}
        row |= {k: _float(summary.get("metrics", {}).get(k)) for k in metrics.METRIC_KEYS}
        for name, assoc in (summary.get("associations") or {}).items():
            row |= {association_column(name, k): _float((assoc.get("metrics") or {}).get(k)) for k in metrics.METRIC_KEYS}
        row["directory"] = str(directory)
        out.append(row)
    return out


def _schema(swept: list[str], associations: list[str]) -> pa.Schema:
    fields = [("run_key", pa.string()), ("config_key", pa.string()), ("config", pa.string()),
              ("repetition", pa.int64()), ("seed", pa.int64()), ("status", pa.string()), ("error", pa.string()),
              ("retries", pa.int64())]
    fields += [(f"param.{k}", pa.string()) for k in swept]
    fields += [(k, pa.float64()) for k in metrics.METRIC_KEYS]
    fields += [("directory", pa.string())]
    fields += [(k, pa.float64()) for k in metric_columns(associations)[len(metrics.METRIC_KEYS):]]
    return pa.schema(fields)


def config_rows(run_rows: list[dict[str, Any]], swept: list[str]) -> list[dict[str, Any]]:
    columns = metric_columns(association_names(run_rows))
    by_config: dict[str, list[dict[str, Any]]] = {}
    for run_row in run_rows:
        by_config.setdefault(run_row["config_key"], []).append(run_row)
    out = []
    for key, group in by_config.items():
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
        out.append(row)
    return sorted(out, key=lambda r: r["config"])


def _config_schema(swept: list[str], associations: list[str]) -> pa.Schema:
    fields = [("config_key", pa.string()), ("config", pa.string())]
    fields += [(f"param.{k}", pa.string()) for k in swept]
    fields += [("runs_ok", pa.int64()), ("runs_disturbed", pa.int64()), ("runs_failed", pa.int64())]
    for metric in metric_columns(associations):
        fields += [(f"{metric}_mean", pa.float64()), (f"{metric}_ci95", pa.float64()), (f"{metric}_n", pa.int64())]
    fields += [(f"{metric}_modes", MODES_TYPE) for metric in metrics.METRIC_KEYS]
    return pa.schema(fields)


def _write(path: Path, records: list[dict[str, Any]], schema: pa.Schema) -> None:
    # Written beside and renamed, so a reader (or a report) never sees half a file.
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(pa.Table.from_pylist(records, schema=schema), tmp)
    tmp.replace(path)


def write(campaign_dir: Path, runs: list[Run], swept: list[str]) -> list[dict[str, Any]]:
    """Both tables from the run folders as they are now; returns the run rows."""
    run_rows = rows(campaign_dir, runs, swept)
    associations = association_names(run_rows)
    _write(campaign_dir / RUNS_FILE, run_rows, _schema(swept, associations))
    _write(campaign_dir / CONFIGS_FILE, config_rows(run_rows, swept), _config_schema(swept, associations))
    return run_rows


def read(path: Path) -> list[dict[str, Any]]:
    """campaign.parquet's rows, from the file or its campaign folder."""
    file = path / RUNS_FILE if path.is_dir() else path
    found = campaign_files.read_table(file)
    if found is None:
        raise ResultsFileError(f"{file}: missing; allowed: a campaign folder or its {RUNS_FILE}")
    return found
