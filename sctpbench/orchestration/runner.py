"""Run an experiment's repetitions: plan, realise on a backend, collect, summarise.

A session folder holds the resolved experiment and one folder per repetition:
  <out>/<experiment>-<YYYYmmdd-HHMMSS>/experiment.yaml
                                      summary.json           runs and mean/ci95
                                      run-001/ …             see analysis/store.py
"""

from __future__ import annotations

import json
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sctpbench import __version__
from sctpbench.backends import lastwords, phases, registry, stops
from sctpbench.backends.protocol import installed_version
from sctpbench.model.errors import BackendError
from sctpbench.model.experiment import Experiment
from sctpbench.orchestration import capabilities
from sctpbench.plan import build as planning
from sctpbench.plan.data import Plan
from sctpbench.results import backend as results_backend
from sctpbench.results import cost as results_cost
from sctpbench.results import experiment as results_experiment
from sctpbench.results import host as results_host
from sctpbench.results import plan as results_plan
from sctpbench.results import summary as results_summary
from sctpbench.results import version

Progress = Callable[[str], None]


@dataclass
class Session:
    directory: Path
    runs: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    interrupted: bool = False  # stopped by a signal: error says which ("interrupted", "terminated")
    calibration: dict[str, Any] | None = None
    stop: KeyboardInterrupt | None = None  # the signal's exception, for the exit status
    summary_error: str | None = None  # summary.json could not be written (said on stderr)

    def document(self) -> dict[str, Any]:
        """The `--json` document: runs with params and metrics, and the summary."""
        from sctpbench.analysis import metrics  # numpy: after the runs, not before the first guest boots

        return {
            "directory": str(self.directory),
            "runs": self.runs,
            # Only ok runs: a disturbed run's numbers are the host's load, not the experiment's.
            "summary": metrics.summarize([r["metrics"] for r in self.runs if r["status"] == "ok"]),
            "disturbed": [r["run"] for r in self.runs if r["status"] == "disturbed"],
            "error": self.error,
            "interrupted": self.interrupted,
            "calibration": self.calibration,
        }


def session_dir(out: Path, name: str) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        candidate = out / (f"{name}-{stamp}" + (f"-{n}" if n else ""))
        try:
            candidate.mkdir(parents=True)
        except FileExistsError:
            continue
        except OSError as e:
            raise BackendError(f"cannot create a session folder under {out}: {e.strerror}") from None
        lastwords.reserve(candidate)
        return candidate
    raise BackendError(f"cannot create a session folder under {out}")


def run_experiment(experiment: Experiment, out: Path, backend: str, agent: Path, progress: Progress,
                   prelude: Callable[[Session], None] | None = None) -> Session:
    """The experiment's repetitions in a new session folder; `prelude` runs in it first
    (calibrate.py measures the topology there)."""
    session = Session(session_dir(out, experiment.name or "experiment"))
    try:
        version.mark(session.directory, "session")
        results_experiment.write(session.directory, json.loads(experiment.model_dump_json()))
        if prelude is not None:
            prelude(session)
        for repetition in range(1, experiment.repeat + 1):
            result = run_once(experiment, repetition, session.directory, backend, agent,
                              _tagged(progress, f"[{repetition}/{experiment.repeat}]"))
            session.runs.append(result)
            # A disturbed run finished and is kept out of the summary; only a failed one
            # (the testbed itself broke) stops the repetitions.
            if result["status"] == "failed":
                session.error = result["error"]
                break
    except KeyboardInterrupt as stop:
        session.interrupted = True
        session.error = stops.reason(stop)
        session.stop = stop
    except OSError as e:  # the results folder itself (the runs' own files are handled in run_in)
        session.error = _os_error(e, session.directory)
    finally:
        _write_session_summary(session)
    return session


def _write_session_summary(session: Session) -> None:
    """The session's last words; a failure here must not hide the run's own outcome."""
    try:
        reserves = tuple(Path(r["directory"]) for r in session.runs)
        results_summary.write(session.directory, session.document(), lambda path, document: lastwords.write_json(path, document, reserves))
    except OSError as e:
        session.error = session.error or _os_error(e, session.directory)
        session.summary_error = f"summary.json not written: {e.strerror}"
    finally:
        lastwords.release(session.directory)


def _os_error(e: OSError, folder: Path) -> str:
    if stops.is_no_space(e):
        return stops.describe_no_space(folder)
    return f"{e.filename or folder}: {e.strerror}"


def _tagged(progress: Progress, tag: str) -> Progress:
    return lambda text: progress(f"{tag} {text}")


def run_once(experiment: Experiment, repetition: int, session: Path, backend: str, agent: Path, progress: Progress) -> dict[str, Any]:
    return run_in(experiment, repetition, session / f"run-{repetition:03d}", backend, agent, progress)


def run_in(experiment: Experiment, repetition: int, run_dir: Path, backend: str, agent: Path, progress: Progress) -> dict[str, Any]:
    """One repetition into run_dir (which must not hold a run yet); returns its result."""
    p = planning.build(experiment, repetition, str(agent), str(capabilities.udpgen_path()))
    chosen = registry.get(backend)
    (run_dir / "records").mkdir(parents=True)
    lastwords.reserve(run_dir)
    started = time.monotonic()
    meter = phases.Meter()
    report = meter.observe(lambda s: progress(f"{time.monotonic() - started:6.1f}s {s}"))
    stream = None
    error: str | None = None
    begun = False  # whether the backend started: before it, nothing was measured to collect
    try:
        version.mark(run_dir, "run")
        results_plan.write(run_dir, p)
        results_plan.write_files(run_dir, p)
        results_plan.write_script(run_dir, chosen.render(p, str(run_dir)))
        results_host.write(run_dir, host_facts(backend))
        stream = _start_stream(experiment, run_dir, report)
        begun = True
        phases.ended(report, "plan")
        chosen.run_plan(p, run_dir, report)
    except BackendError as e:
        error = str(e)
    except OSError as e:  # the run folder's own files: a full or vanished results folder
        error = _os_error(e, run_dir)
    except KeyboardInterrupt as stop:
        _end(run_dir, p, stops.reason(stop), begun, meter)
        if stream:
            stream.finish(timeout_s=10)
        raise
    result = _end(run_dir, p, error, begun, meter)
    if stream:
        result["telemetry"] = _finish_stream(stream, report)
    return result


def _end(run_dir: Path, p: Plan, error: str | None, begun: bool, meter: phases.Meter | None = None) -> dict[str, Any]:
    """Say how the run ended and keep what it measured; the run's summary.json always exists afterwards."""
    if error and stops.NO_SPACE not in error and stops.no_space_left(run_dir):
        # A process that died of the full disk (the agent) had no room left to say why.
        error = f"{stops.describe_no_space(run_dir)} ({error})"
    if error:
        try:
            _note_status(run_dir, error)
        except OSError:
            pass  # the summary below says it, from the reserve
    try:
        return _collect(run_dir, p, error, meter) if begun else _unmeasured(run_dir, p, error)
    finally:
        _write_cost(run_dir, meter)
        lastwords.release(run_dir)


def _write_cost(run_dir: Path, meter: phases.Meter | None) -> None:
    """Where the run's host time went; a run stopped before it measured anything has no phases
    (nor one collected by another process than the one that ran it: orchestration/killed.py)."""
    if meter is None or not meter.phases:
        return
    try:
        results_cost.write(run_dir, [phase.as_dict() for phase in meter.phases])
    except OSError:
        pass  # a full disk: the summary, written first, says what matters


def _start_stream(experiment: Experiment, run_dir: Path, report: Progress) -> Any:
    """The live InfluxDB writer, a process of its own, when the experiment names a target."""
    from sctpbench.telemetry import influx

    target = influx.Target.from_spec(experiment.influx)
    if target is None:
        return None
    from sctpbench.telemetry import stream  # only a streaming run pays for its imports

    report(f"telemetry to {target.describe()}")
    return stream.Stream(run_dir, target)


def _finish_stream(stream: Any, report: Progress) -> dict[str, Any] | None:
    ledger = stream.finish()
    if ledger is None:
        report("telemetry: the writer left no ledger (see telemetry.log)")
    elif ledger["not_sent"]:
        why = f": {ledger['errors'][0]}" if ledger["errors"] else ""
        report(f"telemetry: {ledger['not_sent']} point(s) not sent (kept in the store; `sctpbench push` sends them){why}")
    else:
        report(f"telemetry: {sum(ledger['sent'].values())} points sent, lag p50 {ledger['lag_ms']['p50']} ms")
    return ledger


def host_facts(backend: str) -> dict[str, str]:
    """The orchestrating side of what was in force; the guest writes its own versions.json."""
    return {
        "backend": backend,
        "sctpbench": __version__,
        # Virtual-time results repeat within one version of what runs in the guest: say which.
        "sctpbench_commit": _commit(),
        "python": platform.python_version(),
        "host_kernel": platform.release(),
        **registry.get(backend).host_facts(),
        "lksctp": installed_version("libsctp1"),
    }


def _commit() -> str:
    """The checkout's commit, with "+changes" when it has uncommitted ones; "" outside git."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if head.returncode != 0:
        return ""
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def _note_status(run_dir: Path, error: str) -> None:
    """backend.json's error: the guest's own words first, unless the host knows the cause (a full disk)."""
    results_backend.amend(run_dir, False, error, keep_earlier_error=stops.NO_SPACE not in error, writer=lastwords.write_json)


def _unmeasured(run_dir: Path, p: Plan, error: str | None) -> dict[str, Any]:
    """A run stopped before its backend started (a Ctrl-C while the plan was being written):
    its error alone, not a collector's complaint about the plan it never finished writing."""
    summary = _failed_summary(run_dir, p, error or "the run ended before its backend started")
    return _result(run_dir, p, summary, summary["error"])


def _failed_summary(run_dir: Path, p: Plan, error: str) -> dict[str, Any]:
    summary = {"run_id": p.run_id, "repetition": p.repetition, "seed": p.seed, "clock": p.clock, "status": "failed",
               "error": error, "metrics": {}}
    try:
        results_summary.write(run_dir, summary, lastwords.write_json)
    except OSError:
        pass  # nothing more can be written there; the session's summary and stdout still say it
    return summary


def _collect(run_dir: Path, p: Plan, error: str | None, meter: phases.Meter | None = None) -> dict[str, Any]:
    """Keep what was measured, even from a run that failed."""
    from sctpbench.analysis import store  # pyarrow and numpy: loaded while nothing waits on them, not before the guest

    try:
        summary = store.collect(run_dir, meter.end) if meter else store.collect(run_dir)
    except Exception as e:  # a broken record must not hide the run's own error
        why = stops.describe_no_space(run_dir) if stops.is_no_space(e) else str(e)
        summary = _failed_summary(run_dir, p, f"{error}; collecting failed: {why}" if error else f"collecting failed: {why}")
        error = summary["error"]
    return _result(run_dir, p, summary, error)


def _result(run_dir: Path, p: Plan, summary: dict[str, Any], error: str | None) -> dict[str, Any]:
    return {
        "run": run_dir.name,
        "directory": str(run_dir),
        "status": summary["status"] if not error else "failed",
        "error": error or summary.get("error"),
        "params": {"repetition": p.repetition, "seed": p.seed, "run_id": p.run_id, "clock": p.clock, "sctp": p.sctp},
        "metrics": summary.get("metrics", {}),
        "selfcheck": summary.get("selfcheck"),
        "detection_model": summary.get("detection_model"),
        **({"startup_model": summary["startup_model"]} if summary.get("startup_model") else {}),  # Papers IV/V's
        "events": summary.get("events", []),
        "paths_used": summary.get("paths_used", []),
        "peers_seen": summary.get("peers_seen", []),
        "associations": summary.get("associations", {}),  # each association's own metrics, failure and model
        "handover": summary.get("handover", {}),  # every association's handovers: decision, paths, delay
        **({"traffic": summary["traffic"]} if summary.get("traffic") else {}),  # competing flows, when the run had any
        **({"notes": summary["notes"]} if summary.get("notes") else {}),  # stack defaults that shaped a result
    }
