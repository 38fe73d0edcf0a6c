"""`sctpbench dashboards export DIR`: the Grafana dashboards and provisioning files.
`sctpbench dashboards serve`: the same dashboards, live in the browser, without Grafana.
`sctpbench dashboards stop`: the view and the local InfluxDB that `--watch` started."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sctpbench.cli import influx_options
from sctpbench.cli.exit_status import EXIT_OK, EXIT_USAGE
from sctpbench.dashboards.watch import DEFAULT_VIEW_PORT as DEFAULT_PORT
from sctpbench.outputs import destination


def add_parser(sub: argparse._SubParsersAction) -> None:
    boards = sub.add_parser("dashboards", help="Grafana dashboards and provisioning files (export), the live view (serve), "
                            "or stop the view and InfluxDB that --watch started (stop)")
    boards.add_argument("action", choices=["export", "serve", "stop"])
    boards.add_argument("dir", type=Path, nargs="?", help="export: the folder to write")
    boards.add_argument("--url", help="export: the datasource's InfluxDB URL; serve: the InfluxDB to read (default: "
                        "--influx-dir's server, else http://127.0.0.1:8086); credentials never come from here")
    influx_options.add_dir(boards)
    boards.add_argument("--database", default="sctpbench", help="the datasource's database (v2/v3: the bucket)")
    boards.add_argument("--dashboards-path", help="export: where Grafana will find DIR/dashboards (default: its absolute path)")
    boards.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"serve: the port on 127.0.0.1 (default {DEFAULT_PORT})")
    boards.add_argument("--refresh", help="serve: refresh interval, e.g. 1s (default: the dashboard's own, 5s)")


def _url(args: argparse.Namespace) -> tuple[str, str | None]:
    url = influx_options.influx_url(args.url, "--url")
    influx_dir = influx_options.influx_dir(args)
    if url is None:
        url = influx_options.server_url(Path(influx_dir)) if influx_dir else "http://127.0.0.1:8086"
    return url, influx_dir


def main(args: argparse.Namespace) -> int:
    if args.action == "serve":
        return serve(args)
    if args.action == "stop":
        return stop(args)
    from sctpbench.dashboards import export

    if args.dir is None:
        print("sctpbench dashboards export: DIR is required", file=sys.stderr)
        return EXIT_USAGE
    destination.folder(args.dir, "dashboards export")
    url, influx_dir = _url(args)
    for path in export.export(args.dir, url, args.database, args.dashboards_path):
        print(path)
    how = f"sctpbench influx env --dir {influx_dir}" if influx_dir else "your InfluxDB's user and password"
    print(f"Grafana reads the datasource's credentials from its environment: {export.USERNAME_ENV} and "
          f"{export.PASSWORD_ENV} (from {how}), or {export.TOKEN_ENV} with the token lines uncommented",
          file=sys.stderr)
    return EXIT_OK


def serve(args: argparse.Namespace) -> int:
    from sctpbench.dashboards import catalog, live
    from sctpbench.telemetry import influx

    url, influx_dir = _url(args)
    dashboard = catalog.DASHBOARDS[0]
    try:
        refresh_s = live.refresh_seconds(args.refresh or dashboard.refresh)
    except ValueError as e:
        print(f"sctpbench dashboards serve: --{e}", file=sys.stderr)
        return EXIT_USAGE
    target = influx.Target(url=url, database=args.database, credentials_dir=influx_dir)
    def ready(page: str) -> None:
        print(f"live view of {target.describe()}: {page}", flush=True)

    live.serve(dashboard, live.Source(target, refresh_s), args.port, ready)
    return EXIT_OK


def stop(args: argparse.Namespace) -> int:
    from sctpbench.dashboards import watch

    influx_dir = influx_options.influx_dir(args)
    stopped = watch.stop(Path(influx_dir) if influx_dir else None)
    print(f"stopped {' and '.join(stopped)}" if stopped else "nothing to stop: no live view or InfluxDB of this folder runs")
    return EXIT_OK
