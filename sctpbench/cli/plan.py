"""`sctpbench plan FILE`: one repetition's plan as a backend's shell commands, or as JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sctpbench.backends import registry
from sctpbench.cli import backend_option, experiment_file
from sctpbench.cli.exit_status import EXIT_OK
from sctpbench.orchestration import capabilities
from sctpbench.plan import build as planning


def add_parser(sub: argparse._SubParsersAction) -> None:
    plan = sub.add_parser("plan", help="print a run's plan as shell commands")
    plan.add_argument("file", type=Path)
    plan.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    plan.add_argument("--repetition", type=int, default=1)
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    backend_option.add(plan, "whose commands to print (default: the one `run` would take here, else netns)")


def main(args: argparse.Namespace) -> int:
    experiment = experiment_file.load(args)
    p = planning.build(experiment, args.repetition, str(capabilities.agent_path()), str(capabilities.udpgen_path()))
    if args.json:  # the plan itself is the same on every backend
        sys.stdout.write(p.to_json() + "\n")
        return EXIT_OK
    name = args.backend
    if name == capabilities.AUTO:
        # A plan can be read where nothing can run it: the first backend's commands then.
        name = capabilities.choose_backend(name)[0] or registry.names()[0]
    sys.stdout.write(registry.get(name).render(p, "$RUN"))
    return EXIT_OK
