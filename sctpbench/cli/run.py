"""`sctpbench run FILE`: an experiment's repetitions as one session, its summary on stdout."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from sctpbench.backends import stops
from sctpbench.cli import backend_option, experiment_file, influx_options
from sctpbench.cli.exit_status import EXIT_FAILED, EXIT_OK
from sctpbench.dashboards.watch import DEFAULT_VIEW_PORT
from sctpbench.model.errors import SpecError
from sctpbench.orchestration import capabilities, clock
from sctpbench.outputs import destination
from sctpbench.plan import build as planning


def add_parser(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run an experiment file")
    run.add_argument("file", type=Path)
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                     help="override a dotted key of the file, e.g. sctp.rto_min=200ms (repeatable)")
    run.add_argument("--repeat", type=int, help="number of repetitions (overrides repeat:)")
    run.add_argument("--out", type=Path, default=Path("results"), help="results folder (default: ./results)")
    backend_option.add(run)
    run.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    run.add_argument("--influx", metavar="URL", help="stream telemetry live to this InfluxDB (same as --set influx.url=URL)")
    influx_options.add_dir(run)
    run.add_argument("--watch", action="store_true",
                     help="watch the run live in the browser: starts the local InfluxDB (--influx-dir, default "
                          "~/.local/share/sctpbench/influxdb) and the live view when not running, prints the URL, streams "
                          "the run there; with clock: paced the run unfolds at wall-clock speed")
    run.add_argument("--view-port", type=int, default=DEFAULT_VIEW_PORT, help=f"--watch: the live view's port (default {DEFAULT_VIEW_PORT})")


def main(args: argparse.Namespace) -> int:
    """Exit 0 when every run finished (disturbed ones too), 1 when one failed, 130/143 when stopped."""
    with stops.stoppable():  # SIGTERM tears down as Ctrl-C does
        return _run(args)


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


def watch_live(args: argparse.Namespace) -> None:
    """--watch: the file is checked first, then the local InfluxDB and the view are made ready."""
    from sctpbench.dashboards import watch

    experiment = experiment_file.load(args)  # a bad file says so before anything is started
    try:
        watched = watch.prepare(args.influx_dir, args.view_port)
    except (watch.WatchError, watch.server.ServerError) as e:
        raise SpecError(f"--watch: {e}") from None
    args.influx_dir = watched.influx.directory
    print(f"{experiment.name}: {watch.message(watched)}", file=sys.stderr, flush=True)
    if experiment.clock == "virtual":
        print(f"{experiment.name}: on the virtual clock the run goes faster than the wall clock; "
              "--set clock=paced unfolds it at wall-clock speed", file=sys.stderr, flush=True)


def _run(args: argparse.Namespace) -> int:
    from sctpbench.orchestration import calibrate  # pyarrow/scipy load only when running

    if args.watch:
        watch_live(args)
    influx_dir = influx_options.influx_dir(args)
    if influx_dir:  # the telemetry writer finds it there, in this process and its children
        os.environ["SCTPBENCH_INFLUX_DIR"] = influx_dir
    experiment = experiment_file.load(args)
    if influx_dir and experiment.influx.url is None:  # --influx-dir alone: stream to that server
        args.influx = influx_options.server_url(Path(influx_dir))
        experiment = experiment_file.load(args)
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
        from sctpbench.outputs.summary_text import print_summary  # numpy: once the runs are done
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
