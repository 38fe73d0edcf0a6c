"""Read the three kinds of results folder a report is made of, through sctpbench.results
(results/folders.py tells them apart and lists their runs)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.results import calibration as results_calibration
from sctpbench.results import campaign as campaign_files
from sctpbench.results import cost as results_cost
from sctpbench.results import experiment as results_experiment
from sctpbench.results import host as results_host
from sctpbench.results import kernel, summary, tables
from sctpbench.results import params as results_params
from sctpbench.results import plan as results_plan
from sctpbench.results.folders import NotAResultsFolder, check_run_json, kind, session_runs
from sctpbench.results.summary import RunMetrics

__all__ = ["NotAResultsFolder", "kind", "load_run", "load_session", "load_campaign", "check_run"]

Row = dict[str, Any]


@dataclass
class RunData:
    directory: Path
    summary: dict[str, Any]
    params: dict[str, Any]
    versions: dict[str, Any]
    host: dict[str, Any]
    plan: dict[str, Any]
    messages: list[Row]
    path_events: list[Row]
    path_samples: list[Row]
    cum_tsn: list[Row] = field(default_factory=list)  # only runs with captures have one
    metrics: RunMetrics = field(default_factory=RunMetrics)  # the summary's, typed
    cost: results_cost.RunCost | None = None  # cost.json: runs from before it have none

    @property
    def name(self) -> str:
        return self.directory.name


@dataclass
class SessionData:
    directory: Path
    summary: dict[str, Any]
    runs: list[RunData]
    calibration: dict[str, Any] | None
    experiment: str  # the resolved experiment.yaml, as written


@dataclass
class CampaignData:
    directory: Path
    campaign: dict[str, Any]
    runs: list[Row]  # campaign.parquet
    configs: list[Row]  # configs.parquet
    swept: list[str] = field(default_factory=list)
    claims: dict[str, Any] | None = None  # claims.json: the last `campaign check`'s verdicts


def _table(path: Path) -> list[Row]:
    """A campaign's table as rows; a campaign before its first run has none, and that is shown, not fatal."""
    return campaign_files.read_table(path) or []


def _run_table(run_dir: Path, name: tables.Name) -> list[Row]:
    """A run's table as rows; a run that stopped early may lack one, and that is shown, not fatal."""
    return tables.read_optional(run_dir, name) or []


def check_run(path: Path) -> None:
    """Every JSON file of a run folder readable, and the plan a plan, before a command uses any."""
    check_run_json(path)
    from sctpbench.plan.data import Plan

    plan = results_plan.require_document(path)
    try:
        Plan.from_json(json.dumps(plan))
    except ValueError as e:  # PlanFormatError, in words
        raise NotAResultsFolder(f"{path / results_plan.NAME}: not a plan sctpbench wrote ({str(e)[:80]}); "
                                "allowed: the file as sctpbench wrote it") from None


def _plan(run_dir: Path) -> dict[str, Any]:
    """plan.json with what a report reads from it (the association's paths): `{}` or a
    fragment of something else would draw an empty page that looks like a result."""
    document = results_plan.read_document(run_dir) or {}
    associations = document.get("associations")
    paths: Any
    if isinstance(associations, list) and all(isinstance(a, dict) for a in associations):
        paths = [p for a in associations for p in (a.get("paths") if isinstance(a.get("paths"), list) else [None])]
    else:  # a plan from before associations
        paths = document.get("association")
    if not isinstance(paths, list) or not all(isinstance(a, dict) and "path" in a for a in paths):
        raise NotAResultsFolder(f"{run_dir / results_plan.NAME}: not a plan sctpbench wrote (no association paths); "
                                "allowed: the file as sctpbench wrote it")
    return document


def load_run(path: Path) -> RunData:
    document = summary.read_document(path) or {}  # a run that stopped early has none
    return RunData(
        directory=path, summary=document, metrics=summary.Summary.from_dict(document, path / summary.NAME).metrics,
        # A file a report shows: a run that stopped early may lack it, and that is shown as empty.
        params=results_params.read_optional(path) or {},
        versions=kernel.read_versions(path) or {}, host=results_host.read_optional(path) or {}, plan=_plan(path),
        messages=_run_table(path, tables.MESSAGES), path_events=_run_table(path, tables.PATH_EVENTS),
        path_samples=_run_table(path, tables.PATH_SAMPLES), cum_tsn=_run_table(path, tables.CUM_TSN),
        cost=results_cost.read(path),
    )


def load_session(path: Path) -> SessionData:
    calibration = results_calibration.read_optional(path)
    experiment = results_experiment.read_text(path) or ""
    return SessionData(path, summary.read_document(path) or {}, [load_run(p) for p in session_runs(path)], calibration, experiment)


def load_campaign(path: Path) -> CampaignData:
    campaign = campaign_files.read_info(path) or {}
    runs, configs = _table(path / campaign_files.RUNS_TABLE), _table(path / campaign_files.CONFIGS_TABLE)
    swept = list(campaign.get("swept") or [])
    return CampaignData(path, campaign, runs, configs, swept, campaign_files.read_claims(path))
