"""Run a campaign's missing runs in parallel guests, resumably; the bookkeeping every
executor shares (Session, receive; campaign/distributed.py runs them on Dask workers).

Each run goes to its own worker process (one guest each) and into `runs/<run_key>/`,
the folder runner.run_in writes. A run is done when that folder's summary.json says
`ok`; anything else (failed, interrupted, never finished) is moved to `attempts/` and
run again, so re-running the same command resumes and never repeats a finished run.
A `disturbed` run (timing outside the self-check's tolerances) is also run again at
once, at most `retries` times per invocation, its attempt kept in `attempts/` too.
`runs.jsonl` logs every start, end and retry, with the invocation it belonged to.

Workers are separate processes, not threads, because only a process can be told to
stop: on Ctrl-C the parent sends each worker one SIGINT, the worker's runner tears its
guest down (as `sctpbench run` does) and records the run as interrupted. A worker serves
one run after another (`serve`): a new process per run paid the interpreter's start and
the imports again each time, about 1.8 CPU-s of a seed 003 run's eight. A worker that dies
is replaced for the next run.
"""

from __future__ import annotations

import collections
import fcntl
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from sctpbench import __version__
from sctpbench.backends import registry
from sctpbench.campaign import provenance, table
from sctpbench.campaign.expand import Run
from sctpbench.campaign.spec import Loaded
from sctpbench.model.errors import SpecError
from sctpbench.model.experiment import Experiment
from sctpbench.results import campaign as campaign_files

Progress = Callable[[str], None]

# Guests at once by default, from bench/campaign_throughput.py on a 2-CPU host (README,
# "Campaigns"): a failover run keeps about half a CPU busy, and 3 guests kept the serial
# timing (fail lag max 19 ms against 16.5 serial) while 4 did not (42 ms; 98 ms under load).
DEFAULT_PARALLEL = (os.cpu_count() or 1) + 1
STOP_GRACE_S = 60.0  # a worker's guest teardown takes seconds; wait this long before killing it
LOG_FILE = campaign_files.LOG


def directory(out: Path, name: str) -> Path:
    """Stable (no time stamp), so the same command finds the same campaign again."""
    return out / name


def run_dir(campaign_dir: Path, run: Run) -> Path:
    return campaign_dir / "runs" / run.run_key


def is_done(campaign_dir: Path, run: Run) -> bool:
    summary = table.run_summary(run_dir(campaign_dir, run))
    return summary is not None and summary["status"] == "ok"


def describe(campaign_dir: Path, loaded: Loaded, runs: list[Run]) -> None:
    """campaign.yaml (resolved), campaign.json (what the report and compare read), experiment.yaml."""
    campaign_dir.mkdir(parents=True, exist_ok=True)
    c = loaded.campaign
    resolved = json.loads(c.model_dump_json())
    resolved |= {"experiment": str(loaded.experiment_file), "sweep": resolved_sweep(loaded)}
    (campaign_dir / "campaign.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False))
    configs = {r.config.key: r.config.label for r in runs}
    doc = {
        "name": c.name, "description": c.description, "experiment": str(loaded.experiment_file),
        "file": str(loaded.file.resolve()), "swept": loaded.swept,
        "set": {k: str(v) for k, v in c.set.items()},
        "budgets": [b.to_dict() for b in c.budgets], "runs": len(runs), "configurations": len(configs),
        "repetitions": len(runs) // max(1, len(configs)), "order": c.order, "seed": c.seed,
        "configs": [{"config_key": k, "config": v} for k, v in configs.items()], "sctpbench": __version__,
        # every swept key's values as written, run or not yet (`--only`): what `campaign check` may name
        "values": {k: v for axis in loaded.axes for k, v in axis.items()},
    }
    campaign_files.write_info(campaign_dir, doc)
    if runs:
        base = json.loads(runs[0].experiment.model_dump_json())
        (campaign_dir / "experiment.yaml").write_text(
            "# the first run's resolved experiment (durations in ns); each run's plan.json has its own\n"
            + yaml.safe_dump(base, sort_keys=False))


def resolved_sweep(loaded: Loaded) -> dict[str, Any]:
    """The sweep as written, ranges made lists: campaign.yaml loads again to the same runs."""
    axes = iter(loaded.axes)
    out: dict[str, Any] = {}
    for key, raw in loaded.campaign.sweep.items():
        if key == "zip":
            groups = [next(axes) for _ in (raw if isinstance(raw, list) else [raw])]
            out[key] = groups if isinstance(raw, list) else groups[0]
        else:
            out[key] = next(axes)[key]
    return out


@dataclass
class Outcome:
    skipped: int = 0  # already done before this invocation
    ran: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    disturbed: list[str] = field(default_factory=list)  # still disturbed after their retries
    retried: dict[str, int] = field(default_factory=dict)  # run key → disturbed attempts run again
    interrupted: bool = False
    left: int = 0  # not run (interrupted or --max-runs)


def _take_stops() -> None:
    """A worker's own process group and its SIGINT/SIGTERM: the first raises
    KeyboardInterrupt in the run, which tears its guest down."""
    os.setpgrp()  # a terminal's Ctrl-C reaches only the parent, which stops each worker once

    def stop(signum: int, frame: Any) -> None:
        # One stop only: a second signal must not interrupt the guest's teardown.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def _run_one(experiment: Experiment, repetition: int, directory: Path, backend: str, agent: Path) -> None:
    """One run into `directory`, its progress and any crash (this process's stderr) kept in
    the run folder's campaign-worker.log."""
    from sctpbench.orchestration import runner

    directory.mkdir(parents=True)
    # Left open: it is the process's stderr until the next run's log replaces it.
    log = open(directory / "campaign-worker.log", "a", buffering=1)
    os.dup2(log.fileno(), 2)
    sys.stderr = log
    progress = lambda s: print(s, file=log, flush=True)  # noqa: E731
    runner.run_in(experiment, repetition, directory, backend, agent, progress)


def work(experiment: Experiment, repetition: int, directory: Path, backend: str, agent: Path, stopping: Any) -> None:
    """A worker process of one run (a Dask worker's child): its progress and any crash kept
    in the run folder.

    It may start with SIGINT ignored (as _Worker.start starts `serve`) and takes it from here
    on; a stop that came before that is seen in `stopping`, set before any SIGINT is sent."""
    _take_stops()
    if stopping is not None and stopping.is_set():
        sys.exit(130)
    try:
        _run_one(experiment, repetition, directory, backend, agent)
    except KeyboardInterrupt:
        sys.exit(130)


def serve(jobs: Any, backend: str, agent: Path, stopping: Any) -> None:
    """A local worker process: runs (experiment, repetition, folder) from `jobs`, one after
    another, answering each with None when it ended, until told None or the pipe closes.
    A stop ends the process (exit 130) as `work` does."""
    _take_stops()
    try:
        while True:
            try:
                job = jobs.recv()
            except EOFError:
                return
            if job is None:
                return
            if stopping is not None and stopping.is_set():
                sys.exit(130)
            experiment, repetition, directory = job
            _run_one(experiment, repetition, directory, backend, agent)
            jobs.send(None)
    except KeyboardInterrupt:
        sys.exit(130)


class _Log:
    def __init__(self, campaign_dir: Path) -> None:
        self.path = campaign_dir / LOG_FILE
        self.invocation = uuid.uuid4().hex[:8]

    def write(self, event: str, **fields: Any) -> None:
        campaign_files.log(self.path.parent, campaign_files.LogEntry(
            datetime.now(UTC).isoformat(timespec="milliseconds"), self.invocation, event, fields))


def make_room(campaign_dir: Path, run: Run) -> Path | None:
    """runs/<run_key>/ free for a new attempt: a failed or interrupted attempt's folder (what
    it measured) is kept in attempts/; returns where it went (None: there was none)."""
    (campaign_dir / "runs").mkdir(parents=True, exist_ok=True)
    folder = run_dir(campaign_dir, run)
    if not folder.exists():
        return None
    attempts = campaign_dir / "attempts"
    attempts.mkdir(exist_ok=True)
    n = 1
    while (attempts / f"{run.run_key}-{n}").exists():
        n += 1
    shutil.move(str(folder), attempts / f"{run.run_key}-{n}")
    return attempts / f"{run.run_key}-{n}"


def _lock(campaign_dir: Path) -> Any:
    """One `campaign run` per folder: two would start the same missing runs."""
    campaign_dir.mkdir(parents=True, exist_ok=True)
    handle = open(campaign_dir / ".lock", "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise SpecError(f"{campaign_dir}: another `sctpbench campaign run` is running in this folder") from None
    return handle


def _eta(mean: float, remaining: int, running: int, parallel: int) -> str:
    seconds = (remaining + running * 0.5) * mean / max(1, parallel)
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


def retry_disturbed(outcome: Outcome, run_key: str, status: str, retries: int) -> bool:
    """Whether this end calls for another attempt; counts it when it does."""
    if status != "disturbed" or outcome.retried.get(run_key, 0) >= retries:
        return False
    outcome.retried[run_key] = outcome.retried.get(run_key, 0) + 1
    return True


@dataclass
class Session:
    """One `campaign run` invocation's bookkeeping, whichever executor runs the runs: the
    folder's lock, what is missing, runs.jsonl, the tables and the outcome. An executor
    sets a run's old folder aside (`set_aside`, or `receive` for a folder made elsewhere),
    starts it (`started`) and reports its end (`ended`). Its cost per run does not grow
    with the campaign: each summary is read when the session opens and when its run ends,
    the tables are kept in memory (table.Tables) and rewritten when due and at `close`."""

    folder: Path
    loaded: Loaded
    runs: list[Run]
    progress: Progress
    retries: int
    lock: Any
    log: _Log
    tables: table.Tables
    outcome: Outcome = field(default_factory=Outcome)
    pending: list[Run] = field(default_factory=list)
    seconds: float = 0.0  # the ended runs' durations, summed: their mean gives the ETA
    ended_runs: int = 0
    total: int = 0  # the runs this invocation counts towards: all, or --only's part and every done run

    @classmethod
    def open(cls, campaign_dir: Path, loaded: Loaded, runs: list[Run], progress: Progress, max_runs: int | None,
             retries: int | None, only: frozenset[str] | None = None, **start: Any) -> Session:
        """Lock the folder, describe the campaign, find what is missing (at most max_runs of it;
        with `only`, of those run keys: `--only`'s part, while the tables keep every done run)."""
        lock = _lock(campaign_dir)
        describe(campaign_dir, loaded, runs)
        tables = table.Tables.load(campaign_dir, runs, loaded.swept)
        session = cls(campaign_dir, loaded, runs, progress,
                      loaded.campaign.disturbed_retries if retries is None else retries, lock, _Log(campaign_dir), tables)
        session.pending = [run for run in runs if not tables.done(run)]
        session.outcome.skipped = len(runs) - len(session.pending)
        if only is not None:
            session.pending = [r for r in session.pending if r.run_key in only]
        session.total = session.outcome.skipped + len(session.pending)
        if max_runs is not None:
            session.outcome.left = max(0, len(session.pending) - max_runs)
            session.pending = session.pending[:max_runs]
        session.log.write("campaign-start", runs=len(runs), done=session.outcome.skipped, todo=len(session.pending), **start)
        return session

    def set_aside(self, run: Run) -> None:
        """make_room, the tables told."""
        self.tables.set_aside(run, make_room(self.folder, run))

    def receive(self, run: Run, archive: bytes, unpack: Callable[[bytes, Path], None]) -> bool:
        """receive, the tables told."""
        if is_done(self.folder, run):
            return False
        self.set_aside(run)
        return receive(self.folder, run, archive, unpack)  # its make_room finds the place free

    def started(self, run: Run, **fields: Any) -> None:
        self.log.write("start", run_key=run.run_key, config=run.config.label, repetition=run.repetition, **fields)

    def ended(self, run: Run, seconds: float, no_summary: str, running: int, queued: int, parallel: int,
              **fields: Any) -> bool:
        """A run's folder is in runs/: log its end, count it; True when it is to run again (disturbed).

        no_summary: why, when the run left no summary.json (its worker died)."""
        self.seconds += seconds
        self.ended_runs += 1
        summary = self.tables.refresh(run)
        status = summary["status"] if summary else "failed"
        error = (summary or {}).get("error") or (None if summary else no_summary)
        if status == "disturbed":
            error = table.disturbed_because(summary)
        self.log.write("end", run_key=run.run_key, status=status, error=error, seconds=round(seconds, 2), **fields)
        if retry_disturbed(self.outcome, run.run_key, status, self.retries):
            # Set aside when it starts again (set_aside); later in the queue, so the
            # moment that disturbed it has a chance to pass.
            attempt = self.outcome.retried[run.run_key]
            self.log.write("retry", run_key=run.run_key, attempt=attempt, of=self.retries, reason=error)
            self.progress(f"{run.run_key} disturbed ({error}); retry {attempt} of {self.retries}")
            return True
        self.outcome.ran.append(run.run_key)
        if status == "disturbed":
            self.outcome.disturbed.append(run.run_key)
        elif status != "ok":
            self.outcome.failed.append(run.run_key)
        if self.tables.due():
            self.tables.write()
        done = self.outcome.skipped + len(self.outcome.ran)
        where = f" on {fields['worker']}" if fields.get("worker") else ""
        self.progress(f"[{done}/{self.total} done, {running} running, {self.total - done - running} remaining, "
                      f"~{_eta(self.seconds / self.ended_runs, queued, running, parallel)} left] {run.run_key} {status} "
                      f"{run.config.label} rep {run.repetition} ({seconds:.1f}s){where}"
                      + (f": {error}" if status != "ok" else ""))
        return False

    def interrupted(self, stopped: list[Run], queued: int) -> None:
        self.outcome.interrupted = True
        self.outcome.left += queued + len(stopped)
        for run in stopped:
            self.log.write("end", run_key=run.run_key, status="interrupted")

    def close(self) -> None:
        self.tables.flush()
        o = self.outcome
        self.log.write("campaign-end", ran=len(o.ran), failed=len(o.failed), disturbed=len(o.disturbed),
                       retries=sum(o.retried.values()), interrupted=o.interrupted)
        self.lock.close()


def execute(campaign_dir: Path, loaded: Loaded, runs: list[Run], backend: str, agent: Path, progress: Progress,
            parallel: int = DEFAULT_PARALLEL, max_runs: int | None = None, retries: int | None = None,
            only: frozenset[str] | None = None) -> Outcome:
    """Run what is missing in local worker processes, `parallel` at a time, in the campaign's
    order; tables kept (table.Tables).

    retries: how often a disturbed run is run again (default: the campaign's disturbed_retries);
    only: the run keys to run, when not all (`--only`)."""
    session = Session.open(campaign_dir, loaded, runs, progress, max_runs, retries, only, parallel=parallel,
                           **provenance.facts(backend))
    progress(f"{len(runs)} runs: {session.outcome.skipped} already done, {len(session.pending)} to run, {parallel} at a time")
    # A CI job's timeout sends SIGTERM: stop the workers' guests as on Ctrl-C.
    previous_term = signal.signal(signal.SIGTERM, signal.default_int_handler)
    context = multiprocessing.get_context("spawn")  # fork is unsafe with pyarrow's threads
    stopping = context.Event()
    idle: list[_Worker] = []
    busy: list[_Worker] = []
    queue = collections.deque(session.pending)
    try:
        while queue or busy:
            while queue and len(busy) < parallel:
                run = queue.popleft()
                session.set_aside(run)
                while idle and not idle[-1].process.is_alive():  # died while it waited
                    idle.pop().process.join()
                worker = idle.pop() if idle else _Worker.start(context, backend, agent, stopping)
                worker.give(run, run_dir(campaign_dir, run))
                busy.append(worker)
                session.started(run, pid=worker.process.pid)
            ready = set(multiprocessing.connection.wait([w.waits_on() for w in busy] + [w.process.sentinel for w in busy],
                                                        timeout=30))
            for worker in [w for w in busy if w.waits_on() in ready or w.process.sentinel in ready]:
                busy.remove(worker)
                run, started = worker.finish()
                _reap(backend, run, worker.process.pid)
                if worker.process.is_alive():
                    idle.append(worker)
                if session.ended(run, time.monotonic() - started,
                                 f"the worker exited with {worker.process.exitcode} (see campaign-worker.log)",
                                 len(busy), len(queue), parallel):
                    queue.append(run)
    except KeyboardInterrupt:
        session.interrupted([w.run for w in busy if w.run is not None], len(queue))
        _stop(busy, idle, stopping, backend, progress)
    finally:
        for worker in idle:  # after _stop they have ended: closing them is then a no-op
            worker.close()
        signal.signal(signal.SIGTERM, previous_term)
        session.close()
    return session.outcome


@dataclass
class _Worker:
    """A local worker process (`serve`) and the run it has, if any."""
    process: Any
    jobs: Any  # this end of its pipe
    run: Run | None = None
    started: float = 0.0

    @classmethod
    def start(cls, context: Any, backend: str, agent: Path, stopping: Any) -> _Worker:
        ours, theirs = context.Pipe()
        # The worker starts with SIGINT ignored: an interrupt while it is still starting up
        # would otherwise end it with a traceback before it can take the signal itself.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            p = context.Process(target=serve, args=(theirs, backend, agent, stopping), name="sctpbench-worker",
                                daemon=False)
            p.start()
        finally:
            signal.signal(signal.SIGINT, previous)
        theirs.close()
        return cls(p, ours)

    def give(self, run: Run, directory: Path) -> None:
        self.run, self.started = run, time.monotonic()
        self.jobs.send((run.experiment, run.repetition, directory))

    def waits_on(self) -> Any:
        return self.jobs

    def finish(self) -> tuple[Run, float]:
        """The run it had, once it answered or died (then reaped here)."""
        assert self.run is not None
        run, started = self.run, self.started
        self.run = None
        answered = False
        try:
            if self.jobs.poll():
                self.jobs.recv()
                answered = True
        except (EOFError, OSError):  # it died: its end of the pipe closed
            pass
        if not answered:
            self.process.join()
        return run, started

    def close(self) -> None:
        try:
            self.jobs.send(None)
        except OSError:
            pass
        self.process.join()


def _reap(backend: str, run: Run, worker_pid: int | None) -> None:
    """What a worker left running when it ended (an interrupt can land while a guest is
    being started, before the backend holds it): the backend knows how to find it."""
    if worker_pid is not None:
        registry.get(backend).reap(run.run_key, worker_pid)


def _stop(busy: list[_Worker], idle: list[_Worker], stopping: Any, backend: str, progress: Progress) -> None:
    """One SIGINT to every worker; wait for each guest's teardown; kill only a hung worker."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not abandon the workers
    try:
        progress(f"interrupted: stopping {len(busy)} running run(s)")
        stopping.set()
        for w in busy + idle:
            if w.process.pid is not None and w.process.is_alive():
                os.kill(w.process.pid, signal.SIGINT)
        deadline = time.monotonic() + STOP_GRACE_S
        for w in busy + idle:
            w.process.join(timeout=max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                progress(f"{w.run.run_key if w.run else 'an idle worker'}: the worker did not stop; killing it and its guest")
                w.process.kill()
                w.process.join()
            if w.run is not None:
                _reap(backend, w.run, w.process.pid)
    finally:
        signal.signal(signal.SIGINT, previous)


def receive(campaign_dir: Path, run: Run, archive: bytes, unpack: Callable[[bytes, Path], None]) -> bool:
    """A run folder made elsewhere (a Dask worker) into runs/<run_key>/, as if run here.

    Idempotent: a run already done keeps its folder and the copy is dropped (False), so a
    run that came back twice (a worker thought lost, a retried task) is recorded once. The
    folder appears whole or not at all: unpacked beside, then renamed."""
    if is_done(campaign_dir, run):
        return False
    make_room(campaign_dir, run)
    incoming = campaign_dir / "runs" / f".incoming-{run.run_key}"
    shutil.rmtree(incoming, ignore_errors=True)  # what a client killed mid-unpack left
    unpack(archive, incoming)
    incoming.rename(run_dir(campaign_dir, run))
    return True
