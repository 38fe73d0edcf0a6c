"""`sctpbench trace mahimahi FILE`: a Mahimahi trace as a rate trace for `trace:`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sctpbench.cli.exit_status import EXIT_OK
from sctpbench.model import inputfile
from sctpbench.model.errors import SpecError


def add_parser(sub: argparse._SubParsersAction) -> None:
    trace = sub.add_parser("trace", help="convert traces to sctpbench's time-value format")
    trace.add_argument("format", choices=["mahimahi"])
    trace.add_argument("file", type=Path)
    trace.add_argument("--window", default="100ms", help="averaging window for the rate (default 100ms)")


def main(args: argparse.Namespace) -> int:
    """Print a rate trace for `trace: PATH, field: rate, file: …` from a Mahimahi trace."""
    from sctpbench.model import timeline, units

    try:
        window = units.parse_duration(args.window)
        text = inputfile.read_text(args.file)
        steps = timeline.mahimahi_rate_steps(text, window, str(args.file))
    except ValueError as e:
        raise SpecError(f"--window / {args.file}: {e}") from None
    sys.stdout.write(f"# rate from the Mahimahi trace {args.file.name}, {args.window} windows of 1500 B opportunities\n")
    sys.stdout.write(timeline.format_trace(steps, "rate"))
    return EXIT_OK
