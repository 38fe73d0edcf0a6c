"""`sctpbench check`: what this machine can run, and with --calibrate how well FILE's
topology delays, drops and shapes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sctpbench.cli import backend_option
from sctpbench.cli.exit_status import EXIT_FAILED, EXIT_OK
from sctpbench.model import spec
from sctpbench.orchestration import capabilities
from sctpbench.outputs import destination


def add_parser(sub: argparse._SubParsersAction) -> None:
    check = sub.add_parser("check", help="what this machine can run, and why not")
    check.add_argument("--calibrate", type=Path, metavar="FILE",
                       help="also build FILE's topology and measure its delay, loss and rate")
    check.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    check.add_argument("--tolerance", type=float, default=5.0, help="allowed error in %% (default 5)")
    check.add_argument("--out", type=Path, default=Path("results"))
    backend_option.add(check)
    check.add_argument("--json", action="store_true")


def main(args: argparse.Namespace) -> int:
    """Exit 0 when a backend and the agent are there (with --calibrate: every error within the tolerance), 1 otherwise."""
    if args.calibrate is not None:
        return _calibrate(args)
    checks = capabilities.all_checks()
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(f"{c.name:<{width}}  {'yes' if c.ok else 'no '}  {c.detail}")
    backend, why = capabilities.choose_backend("auto")
    print(f"\nbackend auto → {backend}" if backend else f"\nno backend available: {why}")
    return EXIT_OK if backend and capabilities.agent().ok else EXIT_FAILED


def _calibrate(args: argparse.Namespace) -> int:
    """Exit 0 when every measured error is within the tolerance, 1 otherwise."""
    from sctpbench.orchestration import calibrate

    experiment = spec.load(args.calibrate, args.overrides)
    destination.folder(args.out)
    backend, why = capabilities.choose_backend(args.backend)
    if backend is None:
        print(f"sctpbench: {why}", file=sys.stderr)
        return EXIT_FAILED
    progress = lambda s: print(f"{experiment.name} {s}", file=sys.stderr, flush=True)  # noqa: E731
    try:
        result = calibrate.calibrate(experiment, args.out, backend, capabilities.agent_path(), progress, args.tolerance / 100)
    except RuntimeError as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(result.render())
    return EXIT_OK if not result.exceeded else EXIT_FAILED
