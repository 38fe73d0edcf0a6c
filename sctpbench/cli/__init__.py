"""The `sctpbench` command: its parser, assembled from one module per command, and `main`.

Each command's module (run, plan, check, trace, verify, push, influx, dashboards, report,
hosts, schema here; campaign and lab in their own packages) has `add_parser(sub)`, which
adds its subcommand and options, and `main(args) -> int`, which runs it and returns the
exit status (sctpbench/cli/exit_status.py says what each means). Bad input raises
SpecError, which `main` prints as one `sctpbench: …` line and exits 2 for.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import Protocol

from sctpbench.backends import stops
from sctpbench.backends.ansible import inventory
from sctpbench.campaign import command as campaign_command
from sctpbench.cli import check, dashboards, hosts, influx, plan, push, report, run, schema, trace, verify
from sctpbench.cli.exit_status import EXIT_USAGE
from sctpbench.lab import command as lab_command
from sctpbench.model.errors import SpecError


class Command(Protocol):
    """What a command's module provides."""

    def add_parser(self, sub: argparse._SubParsersAction) -> None: ...

    def main(self, args: argparse.Namespace) -> int: ...


# In the order `sctpbench --help` lists them.
COMMANDS: Mapping[str, Command] = {
    "run": run, "plan": plan, "check": check, "trace": trace, "verify": verify, "push": push, "influx": influx,
    "dashboards": dashboards, "report": report, "campaign": campaign_command, "hosts": hosts, "lab": lab_command,
    "schema": schema,
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="sctpbench", description="Emulation testbed for multihomed SCTP.")
    sub = top.add_subparsers(dest="command", required=True)
    for command in COMMANDS.values():
        command.add_parser(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if getattr(args, "inventory", None):
        # The backend, and a campaign's workers, read it from there.
        os.environ[inventory.ENV] = str(args.inventory.resolve())
    try:
        return COMMANDS[args.command].main(args)
    except SpecError as e:
        print(f"sctpbench: {_scrub(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as stop:
        print(f"sctpbench: {stops.reason(stop)}", file=sys.stderr)
        return stops.exit_status(stop)


def _scrub(message: str) -> str:
    # A rejected value may be echoed (e.g. `--set influx.url=…`); a password in it must not be.
    from sctpbench.telemetry import credentials

    return credentials.scrub(message)
