"""`sctpbench campaign run|compare|check|ship`: argument handling and output, for the `sctpbench` command (sctpbench/cli/).

`check` (claims files) has its own module, sctpbench/campaign/check.py."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from sctpbench.campaign import expand, spec
from sctpbench.orchestration import capabilities
from sctpbench.results import campaign as campaign_files
from sctpbench.results import summary

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def add_parser(sub: argparse._SubParsersAction) -> None:
    from sctpbench.campaign.execute import DEFAULT_PARALLEL

    campaign = sub.add_parser("campaign", help="sweep parameters × repetitions; compare with a baseline; check claims")
    csub = campaign.add_subparsers(dest="campaign_command", required=True)
    run = csub.add_parser("run", help="run a campaign's missing runs (re-running the same command resumes)")
    run.add_argument("file", type=Path)
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                     help="override a dotted key of the experiment for every run (joins the campaign's set:)")
    run.add_argument("--out", type=Path, default=Path("results"), help="results folder (default: ./results)")
    run.add_argument("--parallel", type=int, default=DEFAULT_PARALLEL,
                     help=f"guests at once (default {DEFAULT_PARALLEL}, measured by bench/campaign_throughput.py)")
    run.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                     help="run on the Dask workers of this scheduler instead of here (docs/distributed.md); "
                          "each worker runs as many guests at once as it has threads")
    run.add_argument("--max-runs", type=int, help="run at most this many of the missing runs, then stop")
    run.add_argument("--retries", type=int, metavar="N",
                     help="run a disturbed run again at most N times (default: the file's disturbed_retries, 2)")
    run.add_argument("--only", action="append", default=[], metavar="KEY=VALUE",
                     help="run only the configurations where the swept KEY has this value as written (repeatable: "
                          "values of one key are alternatives, different keys must all match)")
    run.add_argument("--until-conclusive", type=Path, metavar="CLAIMS",
                     help="then add repetitions to the configurations whose claims in CLAIMS are inconclusive, round "
                          "after round, until they are settled (sequential verdicts, valid under this optional stopping: "
                          "docs/claims.md#sequential)")
    run.add_argument("--max-repetitions", type=int, metavar="N",
                     help="--until-conclusive: at most N repetitions per configuration (default: the claims file's "
                          "repetitions:, the paper's)")
    run.add_argument("--step", type=int, metavar="N",
                     help="--until-conclusive: repetitions a round adds to a configuration (default: as many again)")
    run.add_argument("--tables", type=Path, metavar="DIR",
                     help="shipped tables (docs/campaigns.md#shipped-tables): the runs in DIR's table count as done, "
                          "and the folder's table is shipped back to DIR after every round (e.g. "
                          "reproductions/<x>/results)")
    run.add_argument("--dry-run", action="store_true", help="list the runs in order, with what is already done")
    run.add_argument("--backend", choices=capabilities.backend_choices(), default=capabilities.AUTO)
    run.add_argument("--watch", action="store_true",
                     help="watch the runs live in the browser: starts the local InfluxDB and the live view when not "
                          "running, prints the URL, streams every run there (as `sctpbench run --watch`)")
    run.add_argument("--influx-dir", type=Path, metavar="DIR",
                     help="--watch: the local InfluxDB's folder (default ~/.local/share/sctpbench/influxdb)")
    run.add_argument("--view-port", type=int, default=5106, help="--watch: the live view's port (default 5106)")
    compare = csub.add_parser("compare", help="compare a campaign with a baseline; exit 1 on regression")
    compare.add_argument("new", type=Path, help="campaign folder (or its campaign.parquet)")
    compare.add_argument("baseline", type=Path)
    compare.add_argument("--metrics", default=None, help=f"comma-separated (default: {','.join(summary.HEADLINE_METRICS)})")
    compare.add_argument("--test", choices=["welch", "mannwhitney"], default="welch")
    compare.add_argument("--alpha", type=float, default=0.05)
    compare.add_argument("--min-effect", default="10%", help="minimum relative change of the mean (default 10%%)")
    compare.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML (one test case per configuration × metric and budget)")
    compare.add_argument("--all", action="store_true", help="print unchanged metrics too")
    ship = csub.add_parser("ship", help="a campaign folder's compact run table, without runs or captures, into the "
                                        "shipped tables beside its campaign file")
    ship.add_argument("folder", type=Path, help="the campaign folder")
    ship.add_argument("file", type=Path, help="its campaign file")
    ship.add_argument("--to", type=Path, metavar="DIR",
                      help="where (default: results/ beside campaign.yaml, results-NAME/ beside campaign-NAME.yaml)")
    from sctpbench.campaign import check

    check.add_parser(csub)


def _positive(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        from sctpbench.model.errors import SpecError

        raise SpecError(f"{name} {value}: allowed: a whole number from 1")


def cmd_run(args: argparse.Namespace) -> int:
    from sctpbench.campaign import execute

    _positive("--parallel", args.parallel)
    _positive("--max-runs", args.max_runs)
    if args.retries is not None and args.retries < 0:
        from sctpbench.model.errors import SpecError

        raise SpecError(f"--retries {args.retries}: allowed: a whole number from 0")
    spec.load(args.file, args.overrides)  # a bad file says so before anything is started
    if args.watch and not args.dry_run:
        _watch(args)
    loaded = spec.load(args.file, args.overrides)
    runs = expand.runs(loaded)  # every configuration is valid before anything is built
    part = {(r.config.key, r.repetition) for r in expand.only(loaded, runs, args.only)}
    from sctpbench.outputs import destination

    destination.folder(args.out)
    folder = execute.directory(args.out, loaded.campaign.name or "campaign")
    if args.dry_run and args.until_conclusive:
        from sctpbench.campaign import until

        # a campaign not run here yet: its next round from the shipped tables
        fresh = args.tables and not (folder / campaign_files.RUNS_TABLE).exists()
        return until.plan(loaded, args.tables if fresh else folder, args.until_conclusive, args.max_repetitions,
                          args.step, print)
    if args.dry_run:
        runs = [r for r in runs if (r.config.key, r.repetition) in part]
        for i, run in enumerate(runs, 1):
            state = "done" if execute.is_done(folder, run) else "todo"
            print(f"{i:4d}  {run.run_key}  {state}  rep {run.repetition}  seed {run.seed}  {run.config.label}")
        configs = len({r.config.key for r in runs})
        print(f"{len(runs)} runs ({configs} configurations × {len(runs) // max(1, configs)} repetitions), "
              f"{sum(execute.is_done(folder, r) for r in runs)} done; folder {folder}")
        return EXIT_OK
    if args.until_conclusive:
        from sctpbench.campaign import until
        from sctpbench.model.errors import SpecError

        if args.only:
            raise SpecError("--only with --until-conclusive: allowed: one of them (the claims choose the configurations)")
        say = lambda s: print(f"{loaded.campaign.name} {s}", flush=True)  # noqa: E731
        return until.run(loaded, folder, args.until_conclusive, [], args.max_repetitions, args.step,
                         lambda grown, all_runs, part: _shipping(args, grown, all_runs, folder, part), say,
                         frozenset({EXIT_OK, EXIT_FAILED}))
    only = frozenset(r.run_key for r in runs if (r.config.key, r.repetition) in part) if args.only else None
    return _shipping(args, loaded, runs, folder, only)


def _shipping(args: argparse.Namespace, loaded: spec.Loaded, runs: list[expand.Run], folder: Path,
              only: frozenset[str] | None) -> int:
    """_execute; with --tables, the shipped runs carried in before and the table shipped after
    (interrupted too: what ran is kept)."""
    if not args.tables:
        return _execute(args, loaded, runs, folder, only)
    from sctpbench.campaign import shipped

    carried = shipped.carry(args.tables, folder, runs)
    if carried:
        print(f"{loaded.campaign.name} {carried} runs done in {args.tables} count as done", file=sys.stderr, flush=True)
    try:
        return _execute(args, loaded, runs, folder, only)
    finally:
        if (folder / campaign_files.RUNS_TABLE).exists():
            made = shipped.ship(folder, args.tables, args.file)
            print(f"{loaded.campaign.name} shipped {made.runs} runs ({made.ok} ok, {made.repetitions_min}-"
                  f"{made.repetitions_max} repetitions a configuration) to {args.tables}", file=sys.stderr, flush=True)


def _execute(args: argparse.Namespace, loaded: spec.Loaded, runs: list[expand.Run], folder: Path, only: frozenset[str] | None) -> int:
    """Run the campaign's missing runs (of `only`, when given) on the backend; print the configurations' figures."""
    from sctpbench.campaign import execute

    backend, why = capabilities.runnable(args.backend)
    if backend is None:
        print(f"sctpbench: {why}", file=sys.stderr)
        return EXIT_FAILED
    progress = lambda s: print(f"{loaded.campaign.name} {s}", file=sys.stderr, flush=True)  # noqa: E731
    runs = _on_backend_clock(runs, backend, str(args.file), progress)
    for run in runs:  # every configuration, before the first run is built
        capabilities.check_stack_variants(run.experiment, backend, str(args.file))
    expand.check_plans(runs)  # and every plan (not for --dry-run: a listing needs only the keys)
    progress(f"backend {backend}, {runs[0].experiment.clock if runs else '-'} clock, results in {folder}")
    # --only: the part's runs are run; the folder's tables keep every done run of the campaign
    if args.scheduler:
        from sctpbench.campaign import distributed

        outcome = distributed.execute_on(args.scheduler, folder, loaded, runs, backend, progress, args.max_runs, args.retries,
                                         only)
    else:
        outcome = execute.execute(folder, loaded, runs, backend, capabilities.agent_path(), progress, args.parallel,
                                  args.max_runs, args.retries, only)
    _print_configs(folder)
    print(f"ran {len(outcome.ran)} ({len(outcome.failed)} failed, {len(outcome.disturbed)} disturbed after "
          f"{sum(outcome.retried.values())} retries), {outcome.skipped} were already done, {outcome.left} left; "
          f"tables: {folder / campaign_files.RUNS_TABLE}, {folder / campaign_files.CONFIGS_TABLE}")
    if outcome.interrupted:
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_FAILED if outcome.failed else EXIT_OK


def _watch(args: argparse.Namespace) -> None:
    """Every run streams to the local InfluxDB the live view reads (the run ids leave influx: out)."""
    import os

    from sctpbench.dashboards import watch
    from sctpbench.model.errors import SpecError
    from sctpbench.telemetry import credentials

    try:
        watched = watch.prepare(args.influx_dir, args.view_port)
    except (watch.WatchError, watch.server.ServerError) as e:
        raise SpecError(f"--watch: {e}") from None
    # The runs' live writers, in this process and the executor's, read the credentials from there.
    os.environ[credentials.DIR_ENV] = str(watched.influx.directory)
    args.overrides.append(f"influx.url={watched.influx.url}")
    print(f"{args.file}: {watch.message(watched)}", file=sys.stderr, flush=True)


def _on_backend_clock(runs: list[expand.Run], backend: str, source: str, progress: Callable[[str], None]) -> list[expand.Run]:
    """Runs as they will run on the backend: a default clock it cannot give becomes real
    (new run keys, since results on another clock are other results)."""
    from sctpbench.orchestration import clock

    out: list[expand.Run] = []
    notes: set[str] = set()
    for run in runs:
        decision = clock.for_backend(run.experiment, backend, source)
        if decision.experiment is run.experiment:
            out.append(run)
            continue
        notes.add(decision.note)
        out.append(run.with_experiment(decision.experiment))
    for note in sorted(notes):
        progress(note)
    return out


def _print_configs(folder: Path) -> None:
    from sctpbench.campaign import compare

    rows = campaign_files.read_table(folder / campaign_files.CONFIGS_TABLE) or []
    info = campaign_files.read_info(folder) or {}
    shown = summary.HEADLINE_METRICS
    print("per configuration, mean ± 95% CI (ms) over ok runs:")
    for r in rows:
        figures = "  ".join(f"{k.removesuffix('_ms')} {r[k + '_mean']:.1f}" + (f" ± {r[k + '_ci95']:.1f}" if r[k + '_ci95'] is not None else "")
                            if r[k + "_mean"] is not None else f"{k.removesuffix('_ms')} -" for k in shown)
        print(f"  {r['config']}  (ok {r['runs_ok']}, disturbed {r['runs_disturbed']}, failed {r['runs_failed']})\n      {figures}")
    if info.get("budgets"):
        result = compare.compare(folder, folder)  # budgets only; the same campaign has no change
        print(f"budgets: {len(result.budgets) - len(result.over_budget)} of {len(result.budgets)} met")
        for b in result.over_budget:
            value = "no value" if b.value is None else f"{b.value:.1f}"
            print(f"  OVER  {b.config}: {b.label}: {value} (n {b.n})")


def _fraction(text: str) -> float:
    from sctpbench.model import units

    try:
        return units.parse_percent(text) / 100
    except ValueError as e:
        from sctpbench.model.errors import SpecError

        raise SpecError(f"--min-effect {text}: {e}") from None


def cmd_compare(args: argparse.Namespace) -> int:
    from sctpbench.campaign import compare, junit
    from sctpbench.model.errors import SpecError

    if not 0 < args.alpha < 1:
        raise SpecError(f"--alpha {args.alpha}: allowed: a probability between 0 and 1 (e.g. 0.05)")
    metric_names = args.metrics.split(",") if args.metrics else compare.DEFAULT_METRICS
    result = compare.compare(args.new, args.baseline, metric_names, args.test, args.alpha, _fraction(args.min_effect))
    sys.stdout.write(compare.render(result, args.all))
    if args.junit:
        junit.write(args.junit, f"sctpbench campaign {result.new_name} vs baseline {result.base_name}", compare.junit_cases(result))
    return EXIT_FAILED if result.failed else EXIT_OK


def cmd_ship(args: argparse.Namespace) -> int:
    from sctpbench.campaign import shipped
    from sctpbench.model.errors import SpecError
    from sctpbench.results.jsonfile import ResultsFileError

    dest = args.to or shipped.default_folder(args.file)
    try:
        made = shipped.ship(args.folder, dest, args.file)
    except ResultsFileError as e:
        raise SpecError(str(e)) from None
    print(f"{made.campaign}: {made.runs} runs ({made.ok} ok), {made.configurations} configurations, "
          f"{made.repetitions_min}-{made.repetitions_max} repetitions, {made.run_seconds:.0f} s of runs; in {dest}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from sctpbench.campaign import check

    return check.main(args)


def main(args: argparse.Namespace) -> int:
    return {"run": cmd_run, "compare": cmd_compare, "check": cmd_check, "ship": cmd_ship}[args.campaign_command](args)
