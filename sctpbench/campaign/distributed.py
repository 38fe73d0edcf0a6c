"""Run a campaign's missing runs on Dask workers (`campaign run --scheduler tcp://HOST:PORT`).

The same bookkeeping as the local executor (execute.Session: lock, missing runs,
runs.jsonl, tables, retries of disturbed runs); only where a run runs differs. Each run
is one task (remote.run) carrying its resolved experiment; its folder comes back as a tar
archive and is committed by execute.receive, so a local and a distributed campaign give
the same folder, and a run that comes back twice is recorded once.

Same software or no run: each worker the scheduler knows is checked once (remote.check,
through Client.run) before it gets a run. A worker whose sctpbench, agent and kernel are
the client's is given a Dask resource named after them, which every task asks for; the
scheduler gives runs only to such workers. Another keeps running other people's work but
gets none of ours, and the client prints one line saying what differs. Workers that join
later are checked when they appear.

Faults: a worker lost mid-run → Dask runs its task again elsewhere (up to
distributed.scheduler.allowed-failures times); the client killed → what came back is in
runs/, the next invocation runs the rest; the scheduler gone → SchedulerGone, every
finished run kept; Ctrl-C → the futures are cancelled, and each worker's task stops its
child with one SIGINT (the guest is torn down) when it sees that.
"""

from __future__ import annotations

import collections
import hashlib
import json
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.campaign import execute, provenance, remote
from sctpbench.campaign.expand import Run
from sctpbench.campaign.spec import Loaded
from sctpbench.model.errors import SpecError

CONNECT_S = 10.0  # to reach the scheduler at the start
GONE_S = 15.0  # the scheduler unreachable this long mid-campaign: stop (Dask reconnects for shorter gaps)
POLL_S = 1.0
REPORT_S = 30.0  # the workers' line when it changes, and at least this often


class SchedulerGone(SpecError):
    """The scheduler could not be reached (or stopped answering); nothing done is lost."""


@dataclass
class Workers:
    """The workers seen so far: which may take runs, which were refused and why, and what each did."""

    accepted: dict[str, int] = field(default_factory=dict)  # address → threads
    refused: dict[str, str] = field(default_factory=dict)
    done: dict[str, int] = field(default_factory=dict)

    @property
    def threads(self) -> int:
        return sum(self.accepted.values())


def resource_name(software: dict[str, str]) -> str:
    """The Dask resource a worker with this software holds: tasks ask for it."""
    return "sctpbench-" + hashlib.sha256(json.dumps(software, sort_keys=True).encode()).hexdigest()[:12]


def execute_on(scheduler: str, campaign_dir: Path, loaded: Loaded, runs: list[Run], backend: str,
               progress: execute.Progress, max_runs: int | None = None, retries: int | None = None,
               only: frozenset[str] | None = None) -> execute.Outcome:
    """Run what is missing on the scheduler's workers; tables kept as execute.execute keeps them."""
    try:
        import distributed
    except ImportError:
        raise SpecError("--scheduler needs Dask's `distributed` package: scripts/install installs it "
                        "(pip install -e '.[distributed]')") from None
    software = remote.software(backend)
    try:
        client = distributed.Client(scheduler, timeout=CONNECT_S, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise SchedulerGone(f"--scheduler {scheduler}: no Dask scheduler answers there ({e}); "
                            "start one with `dask scheduler` (see docs/distributed.md)") from None
    try:
        return _execute(client, scheduler, software, campaign_dir, loaded, runs, backend, progress, max_runs, retries, only)
    finally:
        client.close(timeout=5)


def _execute(client: Any, scheduler: str, software: dict[str, str], campaign_dir: Path, loaded: Loaded, runs: list[Run],
             backend: str, progress: execute.Progress, max_runs: int | None, retries: int | None,
             only: frozenset[str] | None) -> execute.Outcome:
    session = execute.Session.open(campaign_dir, loaded, runs, progress, max_runs, retries, only, scheduler=scheduler,
                                   software=software, commit=provenance.commit(),
                                   kernel_key=software.get("kernel_key", "-"), host=scheduler)
    progress(f"{len(runs)} runs: {session.outcome.skipped} already done, {len(session.pending)} to run on {scheduler}")
    resource = resource_name(software)
    workers = Workers()
    futures: dict[Any, tuple[Run, float]] = {}
    running: dict[str, str] = {}  # run key → worker, once seen running

    def submit(run: Run) -> None:
        task = remote.Task(run.run_key, run.experiment, run.repetition, backend, software)
        future = client.submit(remote.run, task, resources={resource: 1}, pure=False,
                               key=f"sctpbench-run-{run.run_key}-{time.monotonic_ns()}")
        futures[future] = (run, time.monotonic())

    previous_term = signal.signal(signal.SIGTERM, signal.default_int_handler)
    last_report, last_line = 0.0, ""
    unreachable_since: float | None = None
    queue = collections.deque(session.pending)
    try:
        while queue or futures:
            if client.status not in ("running", "connecting", "newly-created"):  # Dask gave up reconnecting
                raise SchedulerGone(f"the Dask scheduler at {scheduler} is gone (the client is {client.status}); the "
                                    f"{len(session.outcome.ran)} runs that came back are kept: run the same command "
                                    "again to resume")
            try:
                if _check_workers(client, workers, software, backend, resource, session, progress) and futures:
                    _resubmit_stranded(client, futures, submit)
                processing = client.processing()
                unreachable_since = None
            except (OSError, TimeoutError) as e:
                unreachable_since = unreachable_since or time.monotonic()
                if time.monotonic() - unreachable_since > GONE_S:
                    raise SchedulerGone(f"the Dask scheduler at {scheduler} is gone ({e}); the {len(session.outcome.ran)} "
                                        "runs that came back are kept: run the same command again to resume") from None
                processing = {}
            # Only two tasks per accepted worker thread (one running, one waiting: no idle gap
            # while the client commits): a task submitted before a worker held the resource
            # would never be given to it (Dask does not look again at tasks no worker could
            # take when a worker's resources change).
            while queue and len(futures) < 2 * workers.threads:
                submit(queue.popleft())
            _note_starts(processing, futures, running, session)
            for future in [f for f in futures if f.done()]:
                run, submitted = futures.pop(future)
                if future.status in ("cancelled", "lost"):
                    # Not by us: the scheduler went (or restarted) and forgot it. Not a result:
                    # submitted again if the scheduler comes back, else SchedulerGone above.
                    running.pop(run.run_key, None)
                    queue.appendleft(run)
                    continue
                if _finish(future, run, submitted, session, workers, running, len(queue) + len(futures)):
                    queue.append(run)  # disturbed: run again, later
            line = _workers_line(workers, processing, len(queue) + len(futures), running)
            if line != last_line or time.monotonic() - last_report > REPORT_S:
                last_report, last_line = time.monotonic(), line
                progress(line)
            time.sleep(POLL_S)
    except KeyboardInterrupt:
        stopped = [run for run, _ in futures.values() if run.run_key in running]
        session.interrupted(stopped, len(queue) + len(futures) - len(stopped))
        progress(f"interrupted: cancelling {len(futures)} run(s); the workers stop their guests")
        client.cancel(list(futures), force=True)
    except SchedulerGone:
        stopped = [run for run, _ in futures.values() if run.run_key in running]
        session.interrupted(stopped, len(queue) + len(futures) - len(stopped))
        raise
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        session.close()
    return session.outcome


def _check_workers(client: Any, workers: Workers, software: dict[str, str], backend: str, resource: str,
                   session: execute.Session, progress: execute.Progress) -> bool:
    """Check the workers not seen before (a refused one gets one line, here and in
    runs.jsonl) and forget those gone; True when one was accepted."""
    known = client.scheduler_info(n_workers=-1).get("workers")
    if known is None:  # the client lost the scheduler between two calls
        raise ConnectionError("no answer from the scheduler")
    for gone in set(workers.accepted) - set(known):
        del workers.accepted[gone]
        session.log.write("worker-gone", worker=gone)
        progress(f"worker {gone} gone")
    new = sorted(set(known) - set(workers.accepted) - set(workers.refused))
    if not new:
        return False
    answers = client.run(remote.check, software, backend, resource, workers=new, on_error="return")
    accepted = False
    for address, why in answers.items():
        if isinstance(why, BaseException):
            why = f"the check failed: {why}"
        if why is None:
            workers.accepted[address] = int(known[address].get("nthreads", 1))
            session.log.write("accepted", worker=address)
            progress(f"worker {address} accepted ({workers.accepted[address]} at a time)")
            accepted = True
        else:
            workers.refused[address] = why
            session.log.write("refused", worker=address, why=why)
            progress(f"worker {address} refused: {why}")
    return accepted


def _resubmit_stranded(client: Any, futures: dict[Any, tuple[Run, float]], submit: Any) -> None:
    """Tasks the scheduler holds as runnable nowhere (every accepted worker was lost): a
    newly accepted worker would never get them, so they are submitted again."""
    stranded = set(client.run_on_scheduler(_unrunnable))
    for future in [f for f in futures if str(f.key) in stranded]:
        run, _ = futures.pop(future)
        future.cancel()
        submit(run)


def _unrunnable(dask_scheduler: Any = None) -> list[str]:
    return [str(ts.key) for ts in dask_scheduler.unrunnable]


def _note_starts(processing: dict[str, Any], futures: dict[Any, tuple[Run, float]], running: dict[str, str],
                 session: execute.Session) -> None:
    """A `start` line in runs.jsonl when a run is first seen on a worker."""
    by_key = {str(f.key): run for f, (run, _) in futures.items()}
    for worker, keys in processing.items():
        for key in keys:
            run = by_key.get(str(key))
            if run is not None and run.run_key not in running:
                running[run.run_key] = worker
                session.started(run, worker=worker)


def _finish(future: Any, run: Run, submitted: float, session: execute.Session, workers: Workers,
            running: dict[str, str], queued: int) -> bool:
    """Commit what came back and count it; True when the run is to run again."""
    running.pop(run.run_key, None)
    seconds = time.monotonic() - submitted
    fields: dict[str, Any] = {}
    no_summary = "the run did not come back"
    if future.status == "finished":
        returned: remote.Returned = future.result()
        fields = {"worker": returned.worker, "host": returned.host, "software": returned.software}
        workers.done[returned.worker] = workers.done.get(returned.worker, 0) + 1
        seconds = returned.seconds
        no_summary = f"the run's process exited with {returned.exitcode} (see campaign-worker.log)"
        if execute.is_done(session.folder, run):
            session.log.write("duplicate", run_key=run.run_key, worker=returned.worker)
            return False
        if returned.archive:
            session.receive(run, returned.archive, remote.unpack)
        else:
            session.set_aside(run)
    else:
        session.set_aside(run)  # no folder came back: an older attempt's is not this one's
        no_summary = f"the task {future.status}: {future.exception() if future.status == 'error' else ''}".strip()
    return session.ended(run, seconds, no_summary, len(running), queued, max(1, workers.threads), **fields)


def _workers_line(workers: Workers, processing: dict[str, Any], waiting: int, running: dict[str, str]) -> str:
    """Runs queued, and running and done per worker."""
    parts = [f"{w}: {len(processing.get(w, ()))} running, {workers.done.get(w, 0)} done"
             for w in sorted(set(workers.accepted) | set(workers.done))]
    return f"workers: {'; '.join(parts) or 'none accepted yet'}; {waiting - len(running)} queued"
