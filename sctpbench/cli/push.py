"""`sctpbench push RUN…`: runs' points sent to InfluxDB (again), never a point twice."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sctpbench.cli import influx_options
from sctpbench.cli.exit_status import EXIT_FAILED, EXIT_OK
from sctpbench.model.errors import SpecError
from sctpbench.results import experiment as results_experiment
from sctpbench.results import folders as results_folders
from sctpbench.results import ledger as results_ledger
from sctpbench.results.jsonfile import ResultsFileError


def add_parser(sub: argparse._SubParsersAction) -> None:
    push = sub.add_parser("push", help="send runs' points to InfluxDB (again); never duplicates a point")
    push.add_argument("runs", type=Path, nargs="+", metavar="RUN", help="run, session or campaign folders")
    influx_options.add_target(push)
    push.add_argument("--json", action="store_true")


def main(args: argparse.Namespace) -> int:
    """Exit 0 when every point of every run is in InfluxDB, 1 otherwise."""
    from sctpbench.telemetry import influx, stream

    runs = [r for folder in args.runs for r in results_folders.run_folders(folder)]
    missing = [str(f) for f in args.runs if not results_folders.run_folders(f)]
    if missing:
        raise SpecError(f"{', '.join(missing)}: not a run, session or campaign folder (no plan.json found)")
    from sctpbench.outputs import folders

    for run_dir in runs:
        try:
            folders.check_run(run_dir)
        except ResultsFileError as e:
            raise SpecError(str(e)) from None
    documents = []
    for run_dir in runs:
        target = _push_target(args, run_dir)
        try:
            document = stream.push(run_dir, target)
        except influx.WriteError as e:
            document = {"target": target.to_dict(), "mode": "push", "not_sent": None, "errors": [str(e)]}
        except (ValueError, KeyError, TypeError, OSError) as e:  # pyarrow's errors are ValueError or OSError
            raise SpecError(f"{run_dir}: cannot read the run ({type(e).__name__}: {str(e)[:120]}); "
                            "allowed: a run folder as sctpbench wrote it") from None
        else:
            stream.record(run_dir, document)
        documents.append({"run": str(run_dir)} | document)
        if not args.json:
            if document["not_sent"] == 0:
                print(f"{run_dir}: {sum(document['sent'].values())} points to {target.describe()}")
            else:
                print(f"sctpbench: {run_dir}: not all sent: {document['errors'][0] if document['errors'] else '?'}", file=sys.stderr)
    if args.json:
        json.dump(documents, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return EXIT_OK if all(d["not_sent"] == 0 for d in documents) else EXIT_FAILED


def _push_target(args: argparse.Namespace, run_dir: Path) -> Any:
    """The command line's target, else the one the run streamed to, else its session's file."""
    from sctpbench.telemetry import influx

    try:
        streamed = results_ledger.recorded_target(run_dir)
    except ResultsFileError as e:
        raise SpecError(str(e)) from None
    recorded: dict[str, Any] = {}
    if streamed is not None:
        recorded = streamed
    elif results_experiment.exists(run_dir.parent):
        document = results_experiment.read_document(run_dir.parent)
        influx_part = document.get("influx") if isinstance(document, dict) else None
        recorded = {k: v for k, v in influx_part.items() if v is not None} if isinstance(influx_part, dict) else {}
        recorded = recorded if recorded.get("url") else {}
    influx_dir = influx_options.influx_dir(args)
    given = {"url": influx_options.influx_url(args.influx, "--influx"), "api": args.api, "database": args.database,
             "retention_policy": args.retention_policy, "org": args.org, "bucket": args.bucket,
             "credentials_dir": influx_dir}
    merged = recorded | {k: v for k, v in given.items() if v is not None}
    if not merged.get("url") and influx_dir:
        merged["url"] = influx_options.server_url(Path(influx_dir))
    if not merged.get("url"):
        raise SpecError(f"{run_dir}: no InfluxDB to push to: give --influx URL")
    if merged.get("api") == "v2" and not merged.get("org"):
        raise SpecError("--api v2 needs --org")
    merged["url"] = merged["url"].rstrip("/")
    for key in ("flush_interval", "timeout"):  # the file's form is nanoseconds under another name
        if key in merged:
            merged[f"{key}_s"] = merged.pop(key) / 1e9
    return influx.Target.from_dict(merged)
