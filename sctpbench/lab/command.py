"""`sctpbench lab up|down|status`: argument handling and output, for the `sctpbench` command (sctpbench/cli/).

Exit status: 0 done (status: a lab runs), 1 the lab failed to start or could not be
ended completely (status: none runs), 2 bad input (the file, a --dir the guests cannot
use) or a folder whose lab already runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from sctpbench.backends import stops
from sctpbench.lab import lifecycle
from sctpbench.lab.state import BadLabFolder, LabError, LabRunning

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_DIR = Path("lab")


def add_parser(sub: argparse._SubParsersAction) -> None:
    lab = sub.add_parser("lab", help="a lab of User-Mode Linux guests, one per host, reached over SSH (for backend: ansible)")
    lsub = lab.add_subparsers(dest="lab_command", required=True)
    up = lsub.add_parser("up", help="boot one guest per host of FILE's plan; returns once every guest answers SSH")
    up.add_argument("file", type=Path)
    up.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override a dotted key of the file, as for run (repeatable)")
    up.add_argument("--clock", choices=("virtual", "real"), default=None,
                    help="virtual: all guests on one virtual time (the default with the project's kernel); "
                         "real: each guest on the host's clock")
    for name, text in (("down", "end the lab's guests and switches, delete its namespace"), ("status", "what runs")):
        lsub.add_parser(name, help=text)
    for p in (up, *(lsub.choices[n] for n in ("down", "status"))):
        p.add_argument("--dir", type=Path, default=DEFAULT_DIR,
                       help="the lab's folder: lab.json, inventory.yaml, logs, SSH keys (default: ./lab)")


def main(args: argparse.Namespace) -> int:
    handlers = {"up": cmd_up, "down": cmd_down, "status": cmd_status}
    return handlers[args.lab_command](args)


def cmd_up(args: argparse.Namespace) -> int:
    progress = lambda s: print(f"lab {s}", file=sys.stderr, flush=True)  # noqa: E731
    started = time.monotonic()
    try:
        with stops.stoppable():  # SIGTERM tears down what was started, as Ctrl-C does
            lab = lifecycle.up(args.file, args.dir, args.overrides, progress, clock=args.clock)
    except (LabRunning, BadLabFolder) as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_USAGE
    except LabError as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_FAILED
    progress(f"up in {time.monotonic() - started:.1f} s (wall clock); end it with: sctpbench lab down --dir {args.dir}")
    print(lab.inventory_path)
    return EXIT_OK


def cmd_down(args: argparse.Namespace) -> int:
    started = time.monotonic()
    try:
        with stops.stoppable():  # a second signal cannot cut the teardown short
            ended = lifecycle.down(args.dir)
    except LabError as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_FAILED
    print(f"lab in {args.dir} ended in {time.monotonic() - started:.1f} s" if ended else f"no lab in {args.dir}")
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    current = lifecycle.status(args.dir)
    sys.stdout.write(current.render())
    return EXIT_OK if current.running else EXIT_FAILED
