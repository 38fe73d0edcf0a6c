"""`sctpbench dashboards export DIR`: the Grafana dashboards and provisioning files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sctpbench.cli import influx_options
from sctpbench.cli.exit_status import EXIT_OK
from sctpbench.outputs import destination


def add_parser(sub: argparse._SubParsersAction) -> None:
    boards = sub.add_parser("dashboards", help="Grafana dashboards and provisioning files")
    boards.add_argument("action", choices=["export"])
    boards.add_argument("dir", type=Path)
    boards.add_argument("--url", help="the datasource's InfluxDB URL (default: --influx-dir's server, "
                        "else http://127.0.0.1:8086); credentials come from Grafana's environment")
    influx_options.add_dir(boards)
    boards.add_argument("--database", default="sctpbench", help="the datasource's database (v2/v3: the bucket)")
    boards.add_argument("--dashboards-path", help="where Grafana will find DIR/dashboards (default: its absolute path)")


def main(args: argparse.Namespace) -> int:
    from sctpbench.dashboards import export

    destination.folder(args.dir, "dashboards export")
    url = influx_options.influx_url(args.url, "--url")
    influx_dir = influx_options.influx_dir(args)
    if url is None:
        url = influx_options.server_url(Path(influx_dir)) if influx_dir else "http://127.0.0.1:8086"
    for path in export.export(args.dir, url, args.database, args.dashboards_path):
        print(path)
    how = f"sctpbench influx env --dir {influx_dir}" if influx_dir else "your InfluxDB's user and password"
    print(f"Grafana reads the datasource's credentials from its environment: {export.USERNAME_ENV} and "
          f"{export.PASSWORD_ENV} (from {how}), or {export.TOKEN_ENV} with the token lines uncommented",
          file=sys.stderr)
    return EXIT_OK
