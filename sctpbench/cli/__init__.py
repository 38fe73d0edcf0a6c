"""The `sctpbench` command: its parser, assembled from one module per command, and `main`.

Each command's module (run, plan, check, trace, verify, push, influx, dashboards, report,
hosts, schema here; campaign and lab in their own packages) has `add_parser(sub)`, which
adds its subcommand and options, and `main(args) -> int`, which runs it and returns the
exit status (sctpbench/cli/exit_status.py says what each means). Bad input raises
SpecError, which `main` prints as one `sctpbench: …` line and exits 2 for.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Protocol, cast

from sctpbench.backends import stops
from sctpbench.backends.ansible import inventory
from sctpbench.cli.exit_status import EXIT_USAGE
from sctpbench.model.errors import SpecError


class Command(Protocol):
    """What a command's module provides."""

    def add_parser(self, sub: argparse._SubParsersAction) -> None: ...

    def main(self, args: argparse.Namespace) -> int: ...


# Each command's module, in the order `sctpbench --help` lists them. Only the module of the
# command given is imported: the others' imports (campaigns, the lab, dashboards) would be
# start-up time of every `sctpbench run`.
COMMANDS: Mapping[str, str] = {
    "run": "sctpbench.cli.run", "plan": "sctpbench.cli.plan", "check": "sctpbench.cli.check",
    "trace": "sctpbench.cli.trace", "verify": "sctpbench.cli.verify", "push": "sctpbench.cli.push",
    "influx": "sctpbench.cli.influx", "dashboards": "sctpbench.cli.dashboards", "report": "sctpbench.cli.report",
    "campaign": "sctpbench.campaign.command", "hosts": "sctpbench.cli.hosts", "lab": "sctpbench.lab.command",
    "schema": "sctpbench.cli.schema",
}


def command(name: str) -> Command:
    return cast(Command, importlib.import_module(COMMANDS[name]))


def parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, when `argv` starts with a command's name, of that one."""
    top = argparse.ArgumentParser(prog="sctpbench", description="Emulation testbed for multihomed SCTP.")
    sub = top.add_subparsers(dest="command", required=True)
    named = argv[0] if argv and argv[0] in COMMANDS else None
    for name in COMMANDS:
        if named in (None, name):
            command(name).add_parser(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = parser(words).parse_args(words)
    if getattr(args, "inventory", None):
        # The backend, and a campaign's workers, read it from there.
        os.environ[inventory.ENV] = str(args.inventory.resolve())
    try:
        return command(args.command).main(args)
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
