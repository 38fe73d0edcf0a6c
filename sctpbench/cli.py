"""The `sctpbench` command: run, plan, check, verify, trace, campaign, report, push,
influx, dashboards, schema, hosts, lab.

Exit status: 0 done, 1 a run failed (what was measured is kept), 2 bad input (nothing
was built, also a results folder that cannot be written), 130 interrupted (Ctrl-C), 143
terminated (SIGTERM, torn down as on Ctrl-C). A `disturbed` run (timing outside the self-check's
tolerances) finished and was recorded: `run` exits 0 for it with a warning on stderr, as
for a calibration that is off; its status is in the output and --json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from sctpbench.backends import registry, stops
from sctpbench.backends.ansible import backend as ansible
from sctpbench.backends.ansible import inventory
from sctpbench.model import inputfile, spec
from sctpbench.model.errors import BackendError, SpecError
from sctpbench.orchestration import capabilities, clock
from sctpbench.outputs import destination
from sctpbench.plan import build as planning
from sctpbench.results import folders as results_folders
from sctpbench.results.jsonfile import ResultsFileError
from sctpbench.results.summary import RunMetrics

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sctpbench", description="Emulation testbed for multihomed SCTP.")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run an experiment file")
    run.add_argument("file", type=Path)
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                     help="override a dotted key of the file, e.g. sctp.rto_min=200ms (repeatable)")
    run.add_argument("--repeat", type=int, help="number of repetitions (overrides repeat:)")
    run.add_argument("--out", type=Path, default=Path("results"), help="results folder (default: ./results)")
    _backend_option(run)
    run.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    run.add_argument("--influx", metavar="URL", help="stream telemetry live to this InfluxDB (same as --set influx.url=URL)")
    _influx_dir_option(run)

    plan = sub.add_parser("plan", help="print a run's plan as shell commands")
    plan.add_argument("file", type=Path)
    plan.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    plan.add_argument("--repetition", type=int, default=1)
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    _backend_option(plan, "whose commands to print (default: the one `run` would take here, else netns)")

    check = sub.add_parser("check", help="what this machine can run, and why not")
    check.add_argument("--calibrate", type=Path, metavar="FILE",
                       help="also build FILE's topology and measure its delay, loss and rate")
    check.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    check.add_argument("--tolerance", type=float, default=5.0, help="allowed error in %% (default 5)")
    check.add_argument("--out", type=Path, default=Path("results"))
    _backend_option(check)
    check.add_argument("--json", action="store_true")

    trace = sub.add_parser("trace", help="convert traces to sctpbench's time-value format")
    trace.add_argument("format", choices=["mahimahi"])
    trace.add_argument("file", type=Path)
    trace.add_argument("--window", default="100ms", help="averaging window for the rate (default 100ms)")

    verify = sub.add_parser("verify", help="check from a run's captures that the emulator shaped as configured")
    verify.add_argument("run", type=Path, help="a run folder (plan.json) or a session folder (run-*/)")
    verify.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    push = sub.add_parser("push", help="send runs' points to InfluxDB (again); never duplicates a point")
    push.add_argument("runs", type=Path, nargs="+", metavar="RUN", help="run, session or campaign folders")
    _influx_target_options(push)
    push.add_argument("--json", action="store_true")

    server = sub.add_parser("influx", help="a local InfluxDB (Debian's influxd) on loopback, with authentication")
    server.add_argument("action", choices=["start", "stop", "status", "env"],
                        help="env: print its credentials as KEY=VALUE lines (e.g. for Grafana's environment)")
    server.add_argument("--dir", type=Path, default=credentials_default_dir(),
                        help="where its configuration, data, log and credentials live "
                             "(default: $SCTPBENCH_INFLUX_DIR, else %(default)s)")
    server.add_argument("--port", type=int, default=8086, help="HTTP port on 127.0.0.1 (default 8086)")

    boards = sub.add_parser("dashboards", help="Grafana dashboards and provisioning files")
    boards.add_argument("action", choices=["export"])
    boards.add_argument("dir", type=Path)
    boards.add_argument("--url", help="the datasource's InfluxDB URL (default: --influx-dir's server, "
                        "else http://127.0.0.1:8086); credentials come from Grafana's environment")
    _influx_dir_option(boards)
    boards.add_argument("--database", default="sctpbench", help="the datasource's database (v2/v3: the bucket)")
    boards.add_argument("--dashboards-path", help="where Grafana will find DIR/dashboards (default: its absolute path)")
    report = sub.add_parser("report", help="one self-contained HTML page of a run, session or campaign")
    report.add_argument("path", type=Path, help="a run, session or campaign folder")
    report.add_argument("--out", type=Path, help="HTML file to write (default: PATH/report.html)")
    report.add_argument("--png", type=Path, metavar="DIR", help="also write every figure as a PNG into DIR")
    from sctpbench.campaign import command as campaign_command
    campaign_command.add_parser(sub)
    hosts = sub.add_parser("hosts", help="the ansible backend's machines: prepare them for FILE, or remove what runs "
                           "left; --check only says what would change")
    hosts.add_argument("action", choices=["prepare", "clean"])
    hosts.add_argument("file", type=Path, nargs="?", help="the experiment (prepare)")
    hosts.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    hosts.add_argument("--inventory", type=Path, help="default: $SCTPBENCH_INVENTORY, else ./inventory.yaml")
    hosts.add_argument("--check", action="store_true", help="only say which machines would change (exit 1 if any)")
    from sctpbench.lab import command as lab_command
    lab_command.add_parser(sub)
    schema = sub.add_parser("schema", help="print the JSON Schema of experiment, campaign or topology files (for editors)")
    schema.add_argument("kind", nargs="?", choices=["experiment", "campaign", "topology"], default="experiment")
    return parser


def _backend_option(p: argparse.ArgumentParser, help: str | None = None) -> None:
    p.add_argument("--backend", choices=capabilities.backend_choices(), default=capabilities.AUTO, help=help)
    p.add_argument("--inventory", type=Path, help="the ansible backend's machines (default: $SCTPBENCH_INVENTORY, "
                   "else ./inventory.yaml)")


def _influx_target_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--influx", metavar="URL", help="InfluxDB base URL (default: the one the run streamed to)")
    p.add_argument("--api", choices=["v1", "v2"])
    p.add_argument("--database")
    p.add_argument("--retention-policy")
    p.add_argument("--org")
    p.add_argument("--bucket")
    _influx_dir_option(p)


def _influx_dir_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--influx-dir", type=Path, metavar="DIR",
                   help="use the credentials of the server `sctpbench influx start --dir DIR` made "
                        "(same as SCTPBENCH_INFLUX_DIR=DIR)")


def credentials_default_dir() -> Path:
    from sctpbench.telemetry import credentials

    return credentials.default_dir()


def _influx_dir(args: argparse.Namespace) -> str | None:
    """--influx-dir checked now (exit 2 before anything is built); None when not given."""
    from sctpbench.telemetry import credentials

    if getattr(args, "influx_dir", None) is None:
        return None
    try:
        credentials.load(args.influx_dir)
    except credentials.CredentialsError as e:
        raise SpecError(f"--influx-dir: {e}") from None
    return str(args.influx_dir.resolve())


def _influx_url(value: str | None, option: str) -> str | None:
    from sctpbench.telemetry import credentials

    problem = None if value is None else credentials.url_problem(value)
    if problem:
        raise SpecError(f"{option}: {problem}")
    return value


def _load(args: argparse.Namespace) -> spec.Experiment:
    overrides = list(args.overrides)
    if getattr(args, "repeat", None) is not None:
        overrides.append(f"repeat={args.repeat}")
    if getattr(args, "influx", None) is not None:
        overrides.append(f"influx.url={args.influx}")
    return spec.load(args.file, overrides)


def cmd_plan(args: argparse.Namespace) -> int:
    experiment = _load(args)
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


def cmd_check(args: argparse.Namespace) -> int:
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


def check_results_folder(out: Path) -> None:
    """The results folder exists or can be made, and takes files: known before anything is built."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise SpecError(f"--out {out}: not a folder") from None
    except OSError as e:
        raise SpecError(f"--out {out}: cannot create the results folder: {e.strerror}") from None
    try:
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        raise SpecError(f"--out {out}: cannot write into the results folder: {e.strerror}") from None


def cmd_run(args: argparse.Namespace) -> int:
    with stops.stoppable():  # SIGTERM tears down as Ctrl-C does
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    import os

    from sctpbench.orchestration import calibrate  # pyarrow/scipy load only when running

    influx_dir = _influx_dir(args)
    if influx_dir:  # the telemetry writer finds it there, in this process and its children
        os.environ["SCTPBENCH_INFLUX_DIR"] = influx_dir
    experiment = _load(args)
    if influx_dir and experiment.influx.url is None:  # --influx-dir alone: stream to that server
        args.influx = _server_url(Path(influx_dir))
        experiment = _load(args)
    destination.creatable(args.out)  # before check_results_folder tries mkdir -p
    for repetition in range(1, experiment.repeat + 1):
        planning.build(experiment, repetition, "agent")  # every plan is valid before anything is built
    backend, why = capabilities.runnable(args.backend)
    if backend is None:
        print(f"sctpbench: {why}", file=sys.stderr)
        return EXIT_FAILED
    decision = clock.for_backend(experiment, backend, args.file)
    experiment = decision.experiment
    capabilities.check_stack_variants(experiment, backend, str(args.file))
    check_results_folder(args.out)  # made only for a run that will start
    progress = lambda s: print(f"{experiment.name} {s}", file=sys.stderr, flush=True)  # noqa: E731
    for note in (decision.note, clock.repetition_note(experiment)):
        if note:
            progress(note)
    progress(f"backend {backend}, {experiment.clock} clock, {experiment.repeat} run(s), results in {args.out}")
    session = calibrate.run_experiment(experiment, args.out, backend, capabilities.agent_path(), progress)
    document = session.document()
    if args.json:
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_summary(document, sys.stdout)
    if document["disturbed"]:
        print(f"sctpbench: warning: {len(document['disturbed'])} of {len(document['runs'])} run(s) disturbed "
              f"(timing outside the self-check's tolerances), left out of the summary: {', '.join(document['disturbed'])}",
              file=sys.stderr)
    if session.summary_error:
        print(f"sctpbench: {session.directory}: {session.summary_error}", file=sys.stderr)
    if session.stop is not None:
        return stops.exit_status(session.stop)
    return EXIT_OK if session.error is None else EXIT_FAILED


def cmd_trace(args: argparse.Namespace) -> int:
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


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0 when every check passes, 1 when one fails, 2 when a run cannot be verified."""
    from sctpbench.analysis import verify
    from sctpbench.collectors.captures import CaptureError  # tshark, numpy, scipy load only here

    reports: list[verify.VerifyReport] = []
    unverifiable: list[str] = []
    try:
        runs = verify.run_dirs(args.run)
    except verify.NotVerifiable as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_USAGE
    for run_dir in runs:
        try:
            reports.append(verify.verify_run(run_dir))
        except (verify.NotVerifiable, CaptureError, ResultsFileError) as e:
            unverifiable.append(str(e))
            print(f"sctpbench: {e}", file=sys.stderr)
    if args.json:
        document = {"runs": [r.to_dict() for r in reports], "unverifiable": unverifiable,
                    "ok": not unverifiable and all(r.ok for r in reports)}
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in reports:
            sys.stdout.write(verify.render(r))
    if unverifiable:
        return EXIT_USAGE
    return EXIT_OK if all(r.ok for r in reports) else EXIT_FAILED


def _push_target(args: argparse.Namespace, run_dir: Path) -> Any:
    """The command line's target, else the one the run streamed to, else its session's file."""
    from sctpbench.telemetry import influx

    recorded: dict[str, Any] = {}
    ledger = run_dir / "telemetry.json"
    session_file = run_dir.parent / "experiment.yaml"
    if ledger.exists():
        try:
            recorded = json.loads(inputfile.read_text(ledger))["target"]
            recorded = dict(recorded)
        except (ValueError, KeyError, TypeError) as e:
            raise SpecError(f"{ledger}: not a telemetry ledger sctpbench wrote ({type(e).__name__}: {str(e)[:80]}); "
                            "allowed: the file as written, or delete it") from None
    elif session_file.exists():
        document, _ = inputfile.load(session_file)
        influx_part = document.get("influx") if isinstance(document, dict) else None
        recorded = {k: v for k, v in influx_part.items() if v is not None} if isinstance(influx_part, dict) else {}
        recorded = recorded if recorded.get("url") else {}
    influx_dir = _influx_dir(args)
    given = {"url": _influx_url(args.influx, "--influx"), "api": args.api, "database": args.database,
             "retention_policy": args.retention_policy, "org": args.org, "bucket": args.bucket,
             "credentials_dir": influx_dir}
    merged = recorded | {k: v for k, v in given.items() if v is not None}
    if not merged.get("url") and influx_dir:
        merged["url"] = _server_url(Path(influx_dir))
    if not merged.get("url"):
        raise SpecError(f"{run_dir}: no InfluxDB to push to: give --influx URL")
    if merged.get("api") == "v2" and not merged.get("org"):
        raise SpecError("--api v2 needs --org")
    merged["url"] = merged["url"].rstrip("/")
    for key in ("flush_interval", "timeout"):  # the file's form is nanoseconds under another name
        if key in merged:
            merged[f"{key}_s"] = merged.pop(key) / 1e9
    return influx.Target.from_dict(merged)


def cmd_push(args: argparse.Namespace) -> int:
    """Exit 0 when every point of every run is in InfluxDB, 1 otherwise."""
    from sctpbench.telemetry import influx, stream

    runs = [r for folder in args.runs for r in results_folders.run_folders(folder)]
    missing = [str(f) for f in args.runs if not results_folders.run_folders(f)]
    if missing:
        raise SpecError(f"{', '.join(missing)}: not a run, session or campaign folder (no plan.json found)")
    from sctpbench.outputs import folders

    for run_dir in runs:
        try:
            folders.check_run(run_dir)
        except ResultsFileError as e:
            raise SpecError(str(e)) from None
    documents = []
    for run_dir in runs:
        target = _push_target(args, run_dir)
        try:
            document = stream.push(run_dir, target)
        except influx.WriteError as e:
            document = {"target": target.to_dict(), "mode": "push", "not_sent": None, "errors": [str(e)]}
        except (ValueError, KeyError, TypeError, OSError) as e:  # pyarrow's errors are ValueError or OSError
            raise SpecError(f"{run_dir}: cannot read the run ({type(e).__name__}: {str(e)[:120]}); "
                            "allowed: a run folder as sctpbench wrote it") from None
        else:
            stream.record(run_dir, document)
        documents.append({"run": str(run_dir)} | document)
        if not args.json:
            if document["not_sent"] == 0:
                print(f"{run_dir}: {sum(document['sent'].values())} points to {target.describe()}")
            else:
                print(f"sctpbench: {run_dir}: not all sent: {document['errors'][0] if document['errors'] else '?'}", file=sys.stderr)
    if args.json:
        json.dump(documents, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return EXIT_OK if all(d["not_sent"] == 0 for d in documents) else EXIT_FAILED


def _server_url(directory: Path) -> str:
    """The URL of the server started from `directory` (running or not: its last port)."""
    from sctpbench.telemetry import server

    s = server.running(directory) or server.last(directory)
    if s is None:
        raise SpecError(f"--influx-dir {directory}: no server was started there; give the URL")
    return s.url


def cmd_influx(args: argparse.Namespace) -> int:
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


def cmd_dashboards(args: argparse.Namespace) -> int:
    from sctpbench.dashboards import export

    destination.folder(args.dir, "dashboards export")
    url = _influx_url(args.url, "--url")
    influx_dir = _influx_dir(args)
    if url is None:
        url = _server_url(Path(influx_dir)) if influx_dir else "http://127.0.0.1:8086"
    for path in export.export(args.dir, url, args.database, args.dashboards_path):
        print(path)
    how = f"sctpbench influx env --dir {influx_dir}" if influx_dir else "your InfluxDB's user and password"
    print(f"Grafana reads the datasource's credentials from its environment: {export.USERNAME_ENV} and "
          f"{export.PASSWORD_ENV} (from {how}), or {export.TOKEN_ENV} with the token lines uncommented",
          file=sys.stderr)
    return EXIT_OK
def cmd_report(args: argparse.Namespace) -> int:
    """Exit 0 when written, 2 when PATH is not a run, session or campaign folder."""
    from sctpbench.outputs import report  # matplotlib loads only here

    destination.file(args.out or args.path / "report.html")
    if args.png is not None:
        destination.folder(args.png, "--png")
    try:
        page, pngs = report.write(args.path, args.out, args.png)
    except ResultsFileError as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:  # files that parse but hold something else
        raise SpecError(f"{args.path}: not a results folder as sctpbench writes it ({type(e).__name__}: {str(e)[:120]}); "
                        "allowed: a run, session or campaign folder") from None
    except OSError as e:
        raise SpecError(f"{args.out or args.path / 'report.html'}: cannot write: {e.strerror}; allowed: a file you can write") from None
    print(f"report: {page}" + (f" ({len(pngs)} PNG in {args.png})" if args.png else ""))
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from sctpbench import fileschema

    sys.stdout.write(fileschema.render(args.kind))
    return EXIT_OK


def cmd_campaign(args: argparse.Namespace) -> int:
    from sctpbench.campaign import command as campaign_command

    return campaign_command.main(args)


def cmd_lab(args: argparse.Namespace) -> int:
    from sctpbench.lab import command as lab_command

    return lab_command.main(args)


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}{unit}"
    return f"{value}{unit}"


def timing_line(check: dict[str, Any]) -> str:
    """The self-check's figures beside their tolerances, so the margin shows."""
    tol = check["tolerances"]
    parts = []
    if check.get("lateness"):
        late = check["lateness"]
        parts.append(f"sender late p50 {late['p50_ms']:.2f} p99 {late['p99_ms']:.2f} (≤ {tol['lateness_p99_ns'] / 1e6:g})"
                     f" max {late['max_ms']:.2f} ms (≤ {tol['lateness_max_ns'] / 1e6:g})")
    if check.get("event_lag"):
        parts.append(f"event lag max {check['event_lag']['max_ms']:.2f} ms (≤ {tol['event_lag_ns'] / 1e6:g})")
    delays = check.get("delay") or []
    # With many associations only the paths closest to their upper bound: the rest is in the summary.
    shown = sorted(delays, key=lambda d: d["high_ms"] - d["achieved_ms"])[:TIMING_PATHS_SHOWN]
    for d in shown:
        parts.append(f"{d['path']} MTT p{d['quantile']:g} {d['achieved_ms']:.2f} ms "
                     f"(configured {d['expected_ms']:g}, allowed {d['low_ms']:g}–{d['high_ms']:g})")
    if len(delays) > len(shown):
        parts.append(f"{len(delays) - len(shown)} more path delays, further from their upper bound (summary.json)")
    return "; ".join(parts) or "nothing to check"


TIMING_PATHS_SHOWN = 6


def failure_lines(m: RunMetrics, model: dict[str, Any] | None) -> list[str]:
    """Detection, and with PF on its two moments, each beside its timer model and bound."""
    if not model or model.get("pf_retrans") is None:
        line = f"  failure   detection {_fmt(m.detection_time_ms, ' ms')}"
        if model:
            line += (f" (RFC timer model {model['model_ms']:.0f} ms from RTO {model['rto_at_failure_ms']} ms,"
                     f" PMR {model['path_max_retrans']}, RTO.max {model['rto_max_ms']} ms; bound {model['bound_ms']:.0f} ms)")
        return [line]
    return [
        f"  failure   detection {_fmt(m.detection_time_ms, ' ms')} (the first of:)",
        f"            PF {_fmt(m.pf_detection_time_ms, ' ms')} (model {model['pf_model_ms']:.0f} ms: pf_retrans "
        f"{model['pf_retrans']} + 1 timeouts from RTO {model['rto_at_failure_ms']} ms; bound {model['pf_bound_ms']:.0f} ms)",
        f"            UNREACHABLE {_fmt(m.unreachable_time_ms, ' ms')} (model {model['model_ms']:.0f} ms: PMR "
        f"{model['path_max_retrans']} + 1, RTO.max {model['rto_max_ms']} ms; bound {model['bound_ms']:.0f} ms with heartbeats after PF)",
    ]


def association_line(name: str, a: dict[str, Any]) -> str:
    m = RunMetrics.from_dict(a.get("metrics") or {}, f"summary.json: associations.{name}")
    failure = (f"  failure of {a['failure']}: detection {_fmt(m.detection_time_ms, ' ms')}"
               f" failover {_fmt(m.failover_time_ms, ' ms')}") if a.get("failure") else "  no failure of its path"
    return (f"{name:<9} {a.get('client')} → {a.get('server')}  sent {_fmt(m.messages_sent)}"
            f" delivered {_fmt(m.messages_delivered)}  MTT p50 {_fmt(m.mtt_p50_ms, ' ms')}"
            f" MMTT {_fmt(m.mmtt_ms, ' ms')}{failure}")


def handover_line(m: RunMetrics, h: dict[str, Any]) -> str | None:
    """Every association's handovers in one line (each switch is in summary.json), or None without any."""
    switches = h.get("switches") or []
    if not switches:
        return None
    before, after = (h.get("window_s") or [-1.0, 2.0])[:2]
    delivered = sum(1 for s in switches if s.get("delay_ms") is not None)
    return (f"handover  {len(switches)} switch(es), primary changed {_fmt(m.path_switches)} time(s); delay mean "
            f"{_fmt(m.handover_delay_ms)} max {_fmt(m.handover_delay_max_ms, ' ms')} ({delivered} of "
            f"{len(switches)} delivered on the new path); messages from {before:g} s to +{after:g} s: MTT mean "
            f"{_fmt(m.handover_mtt_mean_ms, ' ms')} MMTT {_fmt(m.handover_mmtt_ms, ' ms')}")


def video_line(name: str, v: dict[str, Any]) -> str:
    """Frames of a video association: delivered, late past the deadline, frame MTT."""
    return (f"video     {name}: {_fmt(v['delivered'])} of {_fmt(v['frames'])} frames delivered, {_fmt(v['late'])} late "
            f"(deadline {v['deadline_ms']:g} ms); frame MTT p50 {_fmt(v.get('mtt_p50_ms'), ' ms')}"
            f" p99 {_fmt(v.get('mtt_p99_ms'), ' ms')}")
def traffic_line(name: str, f: dict[str, Any]) -> str:
    """A competing flow in one line: TCP's mean after slow start, UDP's rates and loss (with headers)."""
    mbit = lambda v: "-" if v is None else f"{v / 1e6:.2f} Mbit/s"  # noqa: E731
    ends = f"{name} {f.get('kind')} {f.get('client')} → {f.get('server')} over {f.get('path')}"
    if f.get("kind") == "tcp":
        return (f"{ends}: mean {mbit(f.get('mean_throughput_bps'))} after the first interval, {f.get('congestion') or '-'},"
                f" {_fmt(f.get('retransmits'))} retransmissions" + (f"; iperf3: {f['error']}" if f.get("error") else ""))
    loss = f.get("loss")
    return (f"{ends}: offered {mbit(f.get('offered_bps'))} (configured {mbit(f.get('configured_bps'))}), achieved "
            f"{mbit(f.get('achieved_bps'))}, sent {f.get('sent')} received {f.get('received')}"
            f" loss {'-' if loss is None else f'{100 * loss:.2f}'} %")


def print_summary(document: dict[str, Any], out: TextIO) -> None:
    for run in document["runs"]:
        m = RunMetrics.from_dict(run["metrics"], f"{run['directory']}/summary.json")
        clock = run["params"].get("clock")
        on = f"  {clock} clock" if clock else ""
        print(f"{run['run']}  {run['status']}  seed {run['params']['seed']}{on}  ({run['directory']})", file=out)
        if run["error"]:
            print(f"  error: {run['error']}", file=out)
        for reason in (run.get("selfcheck") or {}).get("reasons", []):
            print(f"  disturbed {reason['detail']}", file=out)
        print(f"  messages  sent {_fmt(m.messages_sent)}  delivered {_fmt(m.messages_delivered)}"
              f"  affected {_fmt(m.messages_affected)}  paths used {', '.join(run['paths_used']) or '-'}", file=out)
        print(f"  MTT       mean {_fmt(m.mtt_mean_ms, ' ms')}  p50 {_fmt(m.mtt_p50_ms, ' ms')}"
              f"  p99 {_fmt(m.mtt_p99_ms, ' ms')}  MMTT {_fmt(m.mmtt_ms, ' ms')}", file=out)
        model = run.get("detection_model")
        if m.detection_time_ms is not None or model:
            for line in failure_lines(m, model):
                print(line, file=out)
            print(f"            failover {_fmt(m.failover_time_ms, ' ms')}", file=out)
        handovers = handover_line(m, run.get("handover") or {})
        if handovers:
            print(f"  {handovers}", file=out)
        associations = run.get("associations") or {}
        if len(associations) > 1:  # the lines above are across associations; one line each
            for name, a in associations.items():
                print(f"  {association_line(name, a)}", file=out)
        for name, a in associations.items():
            if a.get("video"):
                print(f"  {video_line(name, a['video'])}", file=out)
        for name, flow in (run.get("traffic") or {}).items():
            print(f"  traffic   {traffic_line(name, flow)}", file=out)
        if run.get("selfcheck"):
            print(f"  timing    {timing_line(run['selfcheck'])}", file=out)
        telemetry = run.get("telemetry")
        if telemetry:
            target = f"{telemetry['target']['url']}"
            if telemetry["not_sent"]:
                print(f"  telemetry {telemetry['not_sent']} point(s) NOT sent to {target} (kept; send with sctpbench push): "
                      f"{telemetry['errors'][0] if telemetry['errors'] else ''}", file=out)
            else:
                lag = telemetry["lag_ms"]
                print(f"  telemetry {sum(telemetry['sent'].values())} points to {target}; delivery-to-written lag "
                      f"p50 {_fmt(lag['p50'], ' ms')} max {_fmt(lag['max'], ' ms')}", file=out)
        for e in run["events"]:
            if e["kind"] != "start":
                detail = f" {e['detail']}" if e.get("detail") else ""
                print(f"  event     t0+{e['at_ns'] / 1e9:.3f}s {e['kind']} {e['target']}{detail}: applied {e['lag_ns'] / 1e6:.2f} ms late", file=out)
    summary = document["summary"]
    if len(document["runs"]) > 1:
        print("across runs (mean ± 95% CI, Student's t):", file=out)
        for key, s in summary.items():
            if s["mean"] is not None:
                print(f"  {key:<20} {s['mean']:.2f} ± {_fmt(s['ci95'])}  (n={s['n']})", file=out)
    if document.get("disturbed"):
        print(f"disturbed (left out of the summary): {', '.join(document['disturbed'])}", file=out)
    if document["error"]:
        print(f"stopped: {document['error']}", file=out)
    print(f"results: {document['directory']}", file=out)


def cmd_hosts(args: argparse.Namespace) -> int:
    inv = inventory.load(inventory.path_from_environment())
    if args.action == "prepare" and args.file is None:
        raise SpecError("hosts prepare: name the experiment file whose run the machines are prepared for")
    with tempfile.TemporaryDirectory(prefix="sctpbench-hosts-") as tmp:
        try:
            if args.action == "prepare":
                plan = planning.build(_load(args), 1, str(capabilities.agent_path()), str(capabilities.udpgen_path()))
                changed = ansible.prepare(plan, inv, capabilities.agent_path(), args.check, Path(tmp))
            else:
                changed = ansible.clean(inv, capabilities.agent_path(), args.check, Path(tmp))
        except BackendError as e:
            print(f"sctpbench: {e}", file=sys.stderr)
            return EXIT_FAILED
    words = {"prepare": ("would change", "changed", "ready"), "clean": ("has something left", "cleaned", "clean")}[args.action]
    for machine in sorted(inv.machines):
        print(f"{machine}: {(words[0] if args.check else words[1]) if changed.get(machine) else words[2]}")
    return EXIT_FAILED if args.check and changed else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if getattr(args, "inventory", None):
        # The backend, and a campaign's workers, read it from there.
        os.environ[inventory.ENV] = str(args.inventory.resolve())
    handlers = {"run": cmd_run, "plan": cmd_plan, "check": cmd_check, "trace": cmd_trace, "verify": cmd_verify,
                "push": cmd_push, "influx": cmd_influx, "dashboards": cmd_dashboards, "report": cmd_report,
                "campaign": cmd_campaign, "schema": cmd_schema, "hosts": cmd_hosts, "lab": cmd_lab}
    try:
        return handlers[args.command](args)
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


if __name__ == "__main__":
    sys.exit(main())
