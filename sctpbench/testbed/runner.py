"""Run an experiment's repetitions: plan, realise on a backend, collect, summarise.

A session folder holds the resolved experiment and one folder per repetition:
  <out>/<experiment>-<YYYYmmdd-HHMMSS>/experiment.yaml
                                      summary.json           runs and mean/ci95
                                      run-001/ …             see collectors/store.py
"""

from __future__ import annotations

import json
import platform
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import yaml

from sctpbench import __version__
from sctpbench.collectors import store
from sctpbench.testbed import metrics, plan as planning
from sctpbench.testbed.backends import netns, uml
from sctpbench.testbed.errors import BackendError
from sctpbench.testbed.spec import Experiment

Progress = Callable[[str], None]


@dataclass
class Session:
    directory: Path
    runs: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    interrupted: bool = False
    calibration: dict[str, Any] | None = None

    def document(self) -> dict[str, Any]:
        """The `--json` document: runs with params and metrics, and the summary."""
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
            return candidate
        except FileExistsError:
            continue
    raise BackendError(f"cannot create a session folder under {out}")


def run_experiment(experiment: Experiment, out: Path, backend: str, agent: Path, progress: Progress) -> Session:
    session = Session(session_dir(out, experiment.name or "experiment"))
    (session.directory / "experiment.yaml").write_text(
        yaml.safe_dump(json.loads(experiment.model_dump_json()), sort_keys=False)
    )
    try:
        if experiment.measure.calibrate:
            _calibrate(experiment, session, backend, agent, progress)
        for repetition in range(1, experiment.repeat + 1):
            tag = f"[{repetition}/{experiment.repeat}]"
            result = run_once(experiment, repetition, session.directory, backend, agent, lambda s: progress(f"{tag} {s}"))
            session.runs.append(result)
            # A disturbed run finished and is kept out of the summary; only a failed one
            # (the testbed itself broke) stops the repetitions.
            if result["status"] == "failed":
                session.error = result["error"]
                break
    except KeyboardInterrupt:
        session.interrupted = True
        session.error = "interrupted"
    finally:
        (session.directory / "summary.json").write_text(json.dumps(session.document(), indent=2) + "\n")
    return session


def _calibrate(experiment: Experiment, session: Session, backend: str, agent: Path, progress: Progress) -> None:
    """Measure the topology first; record it with the session and warn when it is off."""
    from sctpbench.testbed import calibrate

    tolerance = experiment.measure.calibration_tolerance / 100
    result = calibrate.calibrate(experiment, session.directory, backend, agent, progress, tolerance)
    session.calibration = result.to_dict()
    (session.directory / "calibration.json").write_text(json.dumps(session.calibration, indent=2) + "\n")
    for line in result.render().splitlines():
        progress(line)
    for m in result.exceeded:
        progress(f"warning: calibration of {m.path} {m.quantity} is off by more than {tolerance:.0%} "
                 f"(configured {m.configured:g}, achieved {m.achieved:.3f})")


def run_once(experiment: Experiment, repetition: int, session: Path, backend: str, agent: Path, progress: Progress) -> dict[str, Any]:
    return run_in(experiment, repetition, session / f"run-{repetition:03d}", backend, agent, progress)


def run_in(experiment: Experiment, repetition: int, run_dir: Path, backend: str, agent: Path, progress: Progress) -> dict[str, Any]:
    """One repetition into run_dir (which must not hold a run yet); returns its result."""
    p = planning.build(experiment, repetition, str(agent))
    (run_dir / "records").mkdir(parents=True)
    (run_dir / "plan.json").write_text(p.to_json())
    (run_dir / "plan.sh").write_text(p.render(str(run_dir)))
    (run_dir / "host.json").write_text(json.dumps(host_facts(backend), indent=2) + "\n")
    started = time.monotonic()
    report = lambda s: progress(f"{time.monotonic() - started:6.1f}s {s}")  # noqa: E731
    stream = _start_stream(experiment, run_dir, report)
    error: str | None = None
    try:
        if backend == "uml":
            uml.run_plan(p, run_dir, report)
        else:
            netns.run_plan(p, run_dir, report)
    except BackendError as e:
        error = str(e)
    except KeyboardInterrupt:
        _note_status(run_dir, "interrupted")
        _collect(run_dir, p, "interrupted")
        if stream:
            stream.finish(timeout_s=10)
        raise
    if error:
        _note_status(run_dir, error)
    result = _collect(run_dir, p, error)
    if stream:
        result["telemetry"] = _finish_stream(stream, report)
    return result


def _start_stream(experiment: Experiment, run_dir: Path, report: Progress) -> Any:
    """The live InfluxDB writer, a process of its own, when the experiment names a target."""
    from sctpbench.telemetry import influx, stream

    target = influx.Target.from_spec(experiment.influx)
    if target is None:
        return None
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
        "python": platform.python_version(),
        "host_kernel": platform.release(),
        "user_mode_linux": _package_version("user-mode-linux") if backend == "uml" else "",
        "lksctp": _package_version("libsctp1"),
    }


def _package_version(package: str) -> str:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else "unknown"


def _note_status(run_dir: Path, error: str) -> None:
    path = run_dir / "backend.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps(old | {"ok": False, "error": old.get("error") or error}, indent=2) + "\n")


def _collect(run_dir: Path, p: planning.Plan, error: str | None) -> dict[str, Any]:
    """Keep what was measured, even from a run that failed."""
    try:
        summary = store.collect(run_dir)
    except Exception as e:  # a broken record must not hide the run's own error
        summary = {"status": "failed", "error": f"{error or ''} (collecting failed: {e})".strip(), "metrics": {}}
    return {
        "run": run_dir.name,
        "directory": str(run_dir),
        "status": summary["status"] if not error else "failed",
        "error": error or summary.get("error"),
        "params": {"repetition": p.repetition, "seed": p.seed, "run_id": p.run_id, "clock": p.clock, "sctp": p.sctp},
        "metrics": summary.get("metrics", {}),
        "selfcheck": summary.get("selfcheck"),
        "detection_model": summary.get("detection_model"),
        "events": summary.get("events", []),
        "paths_used": summary.get("paths_used", []),
        "peers_seen": summary.get("peers_seen", []),
    }
