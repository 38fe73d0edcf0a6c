"""`sctpbench influx start|stop|status|env`: a local InfluxDB (Debian's influxd) on loopback,
with authentication."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sctpbench.cli.exit_status import EXIT_FAILED, EXIT_OK
from sctpbench.model.errors import SpecError
from sctpbench.outputs import destination


def add_parser(sub: argparse._SubParsersAction) -> None:
    server = sub.add_parser("influx", help="a local InfluxDB (Debian's influxd) on loopback, with authentication")
    server.add_argument("action", choices=["start", "stop", "status", "env"],
                        help="env: print its credentials as KEY=VALUE lines (e.g. for Grafana's environment)")
    server.add_argument("--dir", type=Path, default=credentials_default_dir(),
                        help="where its configuration, data, log and credentials live "
                             "(default: $SCTPBENCH_INFLUX_DIR, else %(default)s)")
    server.add_argument("--port", type=int, default=8086, help="HTTP port on 127.0.0.1 (default 8086)")


def credentials_default_dir() -> Path:
    from sctpbench.telemetry import credentials

    return credentials.default_dir()


def main(args: argparse.Namespace) -> int:
    from sctpbench.telemetry import credentials, server

    if not 1 <= args.port <= 65535:
        raise SpecError(f"--port {args.port}: out of range; allowed: a TCP port from 1 to 65535")
    if args.action == "start":
        destination.folder(args.dir, "--dir")
    try:
        if args.action == "start":
            s = server.start(args.dir, args.port)
            print(f"InfluxDB {s.url} (database sctpbench, authentication on), data in {s.directory}\n"
                  f"credentials: {s.directory / credentials.FILE} (mode 0600); clients: --influx-dir {s.directory} "
                  f"or SCTPBENCH_INFLUX_DIR={s.directory}\nstop: sctpbench influx stop --dir {s.directory}")
        elif args.action == "stop":
            print("stopped" if server.stop(args.dir) else f"no InfluxDB running from {args.dir}")
        elif args.action == "env":
            creds = credentials.load(args.dir)
            print(f"{credentials.USERNAME_ENV}={creds.username}\n{credentials.PASSWORD_ENV}={creds.password}")
        else:
            running = server.running(args.dir)
            if running is None:
                print(f"not running from {args.dir}")
                return EXIT_FAILED
            auth = "on" if server.auth_enforced(running) else "OFF (anyone on this machine may read and write)"
            print(f"running: {running.url}, authentication {auth}, credentials in {running.directory / credentials.FILE}")
    except (server.ServerError, credentials.CredentialsError) as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
