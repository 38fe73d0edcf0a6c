"""Recognise and read the three kinds of results folder a report is made of.

run       plan.json (analysis/store.py lists the rest)
session   summary.json and run-*/ folders (orchestration/runner.py), calibration.json when calibrated
campaign  campaign.json, campaign.parquet, configs.parquet, runs/<run_key>/ run folders
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Row = dict[str, Any]


class NotAResultsFolder(Exception):
    """The path is not a run, session or campaign folder."""


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
    cum_tsn: list[Row] = field(default_factory=list)  # cum_tsn.parquet: only runs with captures have one

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


def _json(path: Path) -> Any:
    """A JSON object sctpbench wrote; missing is empty (a run that stopped early), broken is
    an error: a page drawn from garbage would look like a result."""
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise NotAResultsFolder(f"{path}: not readable JSON ({str(e)[:80]}); allowed: the file as sctpbench wrote it") from None
    if not isinstance(document, dict):
        raise NotAResultsFolder(f"{path}: holds a {type(document).__name__}, not an object; allowed: the file as sctpbench wrote it")
    return document


def _table(path: Path) -> list[Row]:
    """A Parquet table as rows; a run that stopped early may lack one, and that is shown, not fatal."""
    import pyarrow.parquet as pq

    if not path.exists():
        return []
    try:
        return pq.read_table(path).to_pylist()
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
        raise NotAResultsFolder(f"{path}: not a readable Parquet file ({str(e)[:80]}); allowed: the file as sctpbench wrote it") from None


def check_run(path: Path) -> None:
    """Every JSON file of a run folder readable, and the plan a plan, before a command uses any."""
    for name in ("plan.json", "summary.json", "backend.json", "params.json", "telemetry.json"):
        _json(path / name)
    from sctpbench.plan.data import Plan

    try:
        Plan.from_json(json.dumps(_json(path / "plan.json")))
    except (KeyError, TypeError, ValueError) as e:
        raise NotAResultsFolder(f"{path / 'plan.json'}: not a plan sctpbench wrote ({type(e).__name__}: {str(e)[:80]}); "
                                "allowed: the file as sctpbench wrote it") from None


def _plan(path: Path) -> dict[str, Any]:
    """plan.json with what a report reads from it (the association's paths): `{}` or a
    fragment of something else would draw an empty page that looks like a result."""
    document = _json(path)
    associations = document.get("associations")
    if isinstance(associations, list) and all(isinstance(a, dict) for a in associations):
        paths = [p for a in associations for p in (a.get("paths") if isinstance(a.get("paths"), list) else [None])]
    else:  # a plan from before associations
        paths = document.get("association")
    if not isinstance(paths, list) or not all(isinstance(a, dict) and "path" in a for a in paths):
        raise NotAResultsFolder(f"{path}: not a plan sctpbench wrote (no association paths); allowed: the file as sctpbench wrote it")
    return document


def is_run(path: Path) -> bool:
    return (path / "plan.json").is_file()


def is_campaign(path: Path) -> bool:
    return (path / "campaign.json").is_file()


def session_runs(path: Path) -> list[Path]:
    return sorted(p for p in path.glob("run-*") if is_run(p))


def kind(path: Path) -> str:
    if is_campaign(path):
        return "campaign"
    if is_run(path):
        return "run"
    if session_runs(path):
        return "session"
    raise NotAResultsFolder(
        f"{path}: not a run (plan.json), session (run-*/ folders) or campaign (campaign.json) folder")


def load_run(path: Path) -> RunData:
    return RunData(
        directory=path, summary=_json(path / "summary.json"), params=_json(path / "params.json"),
        versions=_json(path / "versions.json"), host=_json(path / "host.json"), plan=_plan(path / "plan.json"),
        messages=_table(path / "messages.parquet"), path_events=_table(path / "path_events.parquet"),
        path_samples=_table(path / "path_samples.parquet"), cum_tsn=_table(path / "cum_tsn.parquet"),
    )


def load_session(path: Path) -> SessionData:
    calibration = _json(path / "calibration.json") or None
    experiment = (path / "experiment.yaml").read_text() if (path / "experiment.yaml").exists() else ""
    return SessionData(path, _json(path / "summary.json"), [load_run(p) for p in session_runs(path)], calibration, experiment)


def load_campaign(path: Path) -> CampaignData:
    campaign = _json(path / "campaign.json")
    runs, configs = _table(path / "campaign.parquet"), _table(path / "configs.parquet")
    swept = list(campaign.get("swept") or [])
    return CampaignData(path, campaign, runs, configs, swept)
