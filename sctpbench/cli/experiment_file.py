"""The experiment FILE of run, plan and hosts, read with the command line's --set overrides."""

from __future__ import annotations

import argparse

from sctpbench.model import spec


def load(args: argparse.Namespace) -> spec.Experiment:
    """FILE with --set, and run's --repeat and --influx as the overrides they stand for."""
    overrides = list(args.overrides)
    if getattr(args, "repeat", None) is not None:
        overrides.append(f"repeat={args.repeat}")
    if getattr(args, "influx", None) is not None:
        overrides.append(f"influx.url={args.influx}")
    return spec.load(args.file, overrides)
