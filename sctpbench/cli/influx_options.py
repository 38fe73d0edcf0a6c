"""The InfluxDB options of run, push and dashboards (--influx-dir, push's target), checked
before anything is built or sent."""

from __future__ import annotations

import argparse
from pathlib import Path

from sctpbench.model.errors import SpecError


def add_target(p: argparse.ArgumentParser) -> None:
    """Where push sends: each option overrides what the run recorded."""
    p.add_argument("--influx", metavar="URL", help="InfluxDB base URL (default: the one the run streamed to)")
    p.add_argument("--api", choices=["v1", "v2"])
    p.add_argument("--database")
    p.add_argument("--retention-policy")
    p.add_argument("--org")
    p.add_argument("--bucket")
    add_dir(p)


def add_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--influx-dir", type=Path, metavar="DIR",
                   help="use the credentials of the server `sctpbench influx start --dir DIR` made "
                        "(same as SCTPBENCH_INFLUX_DIR=DIR)")


def influx_dir(args: argparse.Namespace) -> str | None:
    """--influx-dir checked now (exit 2 before anything is built); None when not given."""
    from sctpbench.telemetry import credentials

    if getattr(args, "influx_dir", None) is None:
        return None
    try:
        credentials.load(args.influx_dir)
    except credentials.CredentialsError as e:
        raise SpecError(f"--influx-dir: {e}") from None
    return str(args.influx_dir.resolve())


def influx_url(value: str | None, option: str) -> str | None:
    from sctpbench.telemetry import credentials

    problem = None if value is None else credentials.url_problem(value)
    if problem:
        raise SpecError(f"{option}: {problem}")
    return value


def server_url(directory: Path) -> str:
    """The URL of the server started from `directory` (running or not: its last port)."""
    from sctpbench.telemetry import server

    s = server.running(directory) or server.last(directory)
    if s is None:
        raise SpecError(f"--influx-dir {directory}: no server was started there; give the URL")
    return s.url
