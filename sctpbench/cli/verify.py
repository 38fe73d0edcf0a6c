"""`sctpbench verify RUN`: from a run's captures, whether the emulator shaped as configured."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sctpbench.cli.exit_status import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from sctpbench.results.jsonfile import ResultsFileError


def add_parser(sub: argparse._SubParsersAction) -> None:
    verify = sub.add_parser("verify", help="check from a run's captures that the emulator shaped as configured")
    verify.add_argument("run", type=Path, help="a run folder (plan.json) or a session folder (run-*/)")
    verify.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def main(args: argparse.Namespace) -> int:
    """Exit 0 when every check passes, 1 when one fails, 2 when a run cannot be verified."""
    from sctpbench.analysis import verify
    from sctpbench.collectors.captures import CaptureError  # numpy and the analysis load only here

    reports: list[verify.VerifyReport] = []
    unverifiable: list[str] = []
    try:
        runs = verify.run_dirs(args.run)
    except verify.NotVerifiable as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_USAGE
    for run_dir in runs:
        try:
            reports.append(verify.verify_run(run_dir))
        except (verify.NotVerifiable, CaptureError, ResultsFileError) as e:
            unverifiable.append(str(e))
            print(f"sctpbench: {e}", file=sys.stderr)
    if args.json:
        document = {"runs": [r.to_dict() for r in reports], "unverifiable": unverifiable,
                    "ok": not unverifiable and all(r.ok for r in reports)}
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in reports:
            sys.stdout.write(verify.render(r))
    if unverifiable:
        return EXIT_USAGE
    return EXIT_OK if all(r.ok for r in reports) else EXIT_FAILED
