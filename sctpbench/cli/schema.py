"""`sctpbench schema [KIND]`: the JSON Schema of experiment, campaign, topology or claims files (for editors)."""

from __future__ import annotations

import argparse
import sys

from sctpbench.cli.exit_status import EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    schema = sub.add_parser("schema", help="print the JSON Schema of experiment, campaign, topology or claims files (for editors)")
    schema.add_argument("kind", nargs="?", choices=["experiment", "campaign", "topology", "claims"], default="experiment")


def main(args: argparse.Namespace) -> int:
    from sctpbench import fileschema

    sys.stdout.write(fileschema.render(args.kind))
    return EXIT_OK
