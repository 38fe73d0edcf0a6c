"""Finding results folders: the one way to tell a run, session or campaign folder and list
the runs in it.

run       plan.json and what files.py lists
session   summary.json and run-*/ run folders (orchestration/runner.py), calibration.json when calibrated
campaign  campaign.json, campaign.parquet, configs.parquet, runs/<run_key>/ run folders
"""

from __future__ import annotations

from pathlib import Path

from sctpbench.results import backend, jsonfile, ledger, params, plan, summary, version

# The JSON files of a run folder that the commands reading a finished run open.
RUN_JSON = (plan.NAME, summary.NAME, backend.NAME, params.NAME, ledger.NAME)


class NotAResultsFolder(jsonfile.ResultsFileError):
    """The path is not a run, session or campaign folder."""


def kind(path: Path) -> str:
    """run, session or campaign."""
    found = version.of(path)
    if found is None:
        raise NotAResultsFolder(
            f"{path}: not a run (plan.json), session (run-*/ folders) or campaign (campaign.json) folder")
    return found.kind


def check_run_json(path: Path) -> None:
    """Every JSON file a command reads from a run folder readable (the one-line error if one
    is not), before the command uses any: a missing one is no error."""
    for name in RUN_JSON:
        jsonfile.read_optional(path / name)


def is_run(path: Path) -> bool:
    return plan.exists(path)


def session_runs(path: Path) -> list[Path]:
    """A session's run folders, in order."""
    return sorted(p for p in path.glob("run-*") if is_run(p))


def campaign_runs(path: Path) -> list[Path]:
    """A campaign's run folders (runs/<run_key>/), in order of their keys."""
    return sorted(p for p in (path / "runs").glob("*") if is_run(p))


def run_folders(path: Path) -> list[Path]:
    """The run folders in a run folder (itself), a session or a campaign; none in anything else."""
    if is_run(path):
        return [path]
    return session_runs(path) + campaign_runs(path)
