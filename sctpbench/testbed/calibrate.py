"""Calibration: measure what the built topology achieves before the experiment runs.

Two short runs on the experiment's own topology, with the experiment's SCTP parameters
and none of its events:
  probe     unordered 200 B messages, 100/s, the primary moved to each association path in
            turn: per path the one-way delay (median MTT, client → server) and, through the
            emulator with captures, the loss (`sctpbench verify`'s drop count);
  saturate  1000 B messages as fast as SCTP takes them, the primary moved likewise: per
            path with a rate, the goodput against the rate's payload share.
Only the client → server direction is measured: the agents send that way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow.parquet as pq
from scipy import stats

from sctpbench.testbed import runner
from sctpbench.testbed.spec import Event, Experiment

PROBE_SLOT_NS = 2_000_000_000  # per path; the first 300 ms after each move are left out
SETTLE_NS = 300_000_000
SATURATE_SLOT_NS = 3_000_000_000  # at least; long paths get 15 round trips, the first 8 to ramp up
SATURATE_SIZE = 1000
# Payload share of the bytes a qdisc counts for one 1000 B message: DATA chunk header 16,
# SCTP common header 12, IPv4 20, Ethernet 14.
PAYLOAD_SHARE = SATURATE_SIZE / (SATURATE_SIZE + 16 + 12 + 20 + 14)


# A loss rate is a count out of a sample: it is judged by a binomial test, not a ratio.
LOSS_P_MIN = 0.001


@dataclass
class Measurement:
    path: str
    quantity: str  # delay_ms, loss_pct, goodput_mbit
    configured: float
    achieved: float | None
    error: float | None  # relative (delay, goodput) or absolute percentage points (loss)
    note: str = ""
    within: bool | None = None  # loss only: the binomial test's verdict


@dataclass
class Calibration:
    tolerance: float
    measurements: list[Measurement]
    directory: str

    @property
    def exceeded(self) -> list[Measurement]:
        return [m for m in self.measurements
                if (m.within is False) or (m.within is None and m.error is not None and abs(m.error) > self.tolerance)]

    def to_dict(self) -> dict[str, Any]:
        return {"tolerance": self.tolerance, "directory": self.directory,
                "measurements": [asdict(m) for m in self.measurements], "exceeded": [asdict(m) for m in self.exceeded]}

    def render(self) -> str:
        lines = [f"calibration (client → server; delay and goodput within {self.tolerance:.0%}, loss by a binomial test at p ≥ {LOSS_P_MIN}):"]
        for m in self.measurements:
            got = "-" if m.achieved is None else f"{m.achieved:.3f}"
            err = "" if m.error is None else (f"{m.error:+.2f} pp" if m.quantity == "loss_pct" else f"{m.error:+.1%}")
            flag = "  EXCEEDS" if m in self.exceeded else ""
            lines.append(f"  {m.path:<10} {m.quantity:<13} configured {m.configured:g}  achieved {got}  {err}{flag}"
                         + (f"  ({m.note})" if m.note else ""))
        return "\n".join(lines) + "\n"


def _association_paths(exp: Experiment) -> list[str]:
    w = exp.workload
    return [n for n, p in exp.topology.paths.items() if set(p.between) == {w.client, w.server}]


def _derive(exp: Experiment, name: str, slot_ns: int, workload: dict[str, Any], capture: bool) -> Experiment:
    paths = _association_paths(exp)
    events = [Event(at=f"{i * slot_ns}ns", primary=p) for i, p in enumerate(paths)]
    return exp.model_copy(update={
        "name": f"{exp.name}-calibrate-{name}",
        "events": events,
        "repeat": 1,
        "workload": exp.workload.model_copy(update=workload | {"start": 0, "duration": slot_ns * len(paths)}),
        "measure": exp.measure.model_copy(update={"capture": capture, "calibrate": False}),
    })


def probe_slot(exp: Experiment) -> tuple[int, int]:
    """(slot, settle): the congestion window must first grow to the probe's load."""
    rtt = _rtt_ns(exp)
    return max(PROBE_SLOT_NS, 10 * rtt), max(SETTLE_NS, 5 * rtt)


def probe_experiment(exp: Experiment) -> Experiment:
    return _derive(exp, "probe", probe_slot(exp)[0], {"size": 200, "rate": 100.0, "arrival": "periodic", "ordered": False},
                   capture=exp.topology.emulator)


def saturate_experiment(exp: Experiment) -> Experiment:
    """Loss is taken out: it would make SCTP's congestion control, not the shaper, the limit."""
    lossless = {"loss": 0.0, "gilbert_elliott": None}
    paths = {
        name: path.model_copy(update=lossless | {
            d: getattr(path, d).model_copy(update={"loss": None, "gilbert_elliott": None})
            for d in ("forward", "reverse") if getattr(path, d) is not None
        })
        for name, path in exp.topology.paths.items()
    }
    exp = exp.model_copy(update={"topology": exp.topology.model_copy(update={"paths": paths})})
    return _derive(exp, "saturate", saturate_slot(exp)[0], {"size": SATURATE_SIZE, "arrival": "saturate", "ordered": True},
                   capture=False)


def _slots(messages: list[dict[str, Any]], paths: list[str], slot_ns: int, settle_ns: int = SETTLE_NS) -> dict[str, list[dict[str, Any]]]:
    """Messages generated while each path was the primary, past the settling time."""
    return {p: [m for m in messages if i * slot_ns + settle_ns <= (m["t_rel_ns"] or -1) < (i + 1) * slot_ns]
            for i, p in enumerate(paths)}


def _rtt_ns(exp: Experiment) -> int:
    return max(sum(exp.topology.paths[p].direction(d)["delay"] for d in ("forward", "reverse")) for p in _association_paths(exp))


def saturate_slot(exp: Experiment) -> tuple[int, int]:
    """(slot, settle): slow start and the queue filling take a few round trips."""
    rtt = _rtt_ns(exp)
    return max(SATURATE_SLOT_NS, 15 * rtt), max(SETTLE_NS, 8 * rtt)


def analyse_probe(exp: Experiment, run_dir: Path) -> list[Measurement]:
    messages = pq.read_table(run_dir / "messages.parquet").to_pylist()
    paths = _association_paths(exp)
    out: list[Measurement] = []
    for path, rows in _slots(messages, paths, *probe_slot(exp)).items():
        forward = _forward(exp, path)
        configured = forward["delay"] / 1e6
        mtts = [m["mtt_ns"] / 1e6 for m in rows if m["mtt_ns"] is not None and m["path"] == path]
        achieved = float(np.median(mtts)) if mtts else None
        error = None if achieved is None or configured == 0 else achieved / configured - 1
        note = "" if configured else "no delay configured: error not defined"
        out.append(Measurement(path, "delay_ms", configured, achieved, error, note))
    out += _loss(exp, run_dir)
    return out


def _loss(exp: Experiment, run_dir: Path) -> list[Measurement]:
    if not exp.topology.emulator:
        return [Measurement(p, "loss_pct", _forward(exp, p)["loss"], None, None, "direct links: loss is not visible")
                for p in _association_paths(exp)]
    from sctpbench.testbed import verify  # tshark only when there are captures

    report = verify.verify_run(run_dir)
    out = []
    for path in _association_paths(exp):
        d = next(x for x in report.directions if x.path == path and _is_client_to_server(exp, path, x.direction))
        configured = _forward(exp, path)["loss"]
        if not d.loss_exposed:
            out.append(Measurement(path, "loss_pct", configured, None, None, "no packets"))
            continue
        achieved = 100.0 * d.loss_drops / d.loss_exposed
        p = stats.binomtest(d.loss_drops, d.loss_exposed, configured / 100).pvalue if configured else float(d.loss_drops == 0)
        out.append(Measurement(path, "loss_pct", configured, achieved, achieved - configured,
                               f"{d.loss_drops} of {d.loss_exposed} packets, binomial p = {p:.3g}", within=p >= LOSS_P_MIN))
    return out


def analyse_saturate(exp: Experiment, run_dir: Path) -> list[Measurement]:
    """Goodput per path: bytes delivered over it while it was the primary, past the ramp-up,
    per second of that window. Delivery time, not generation time: with large send buffers
    the client generates far ahead of what the path carries."""
    messages = pq.read_table(run_dir / "messages.parquet").to_pylist()
    slot, settle = saturate_slot(exp)
    out: list[Measurement] = []
    for i, path in enumerate(_association_paths(exp)):
        rate = _forward(exp, path)["rate"]
        if not rate:
            continue
        lo, hi = i * slot + settle, (i + 1) * slot
        delivered = sum(m["size"] for m in messages if m["mtt_ns"] is not None and m["path"] == path
                        and lo <= m["t_rel_ns"] + m["mtt_ns"] < hi)
        achieved = delivered * 8 / ((hi - lo) / 1e9) / 1e6 if delivered else None
        configured = rate / 1e6 * PAYLOAD_SHARE
        error = None if achieved is None else achieved / configured - 1
        out.append(Measurement(path, "goodput_mbit", round(configured, 6), achieved, error,
                               f"rate {rate / 1e6:g} Mbit/s, {PAYLOAD_SHARE:.1%} of it is payload"))
    return out


def _is_client_to_server(exp: Experiment, path: str, direction: str) -> bool:
    first = exp.topology.paths[path].between[0]
    return (first == exp.workload.client) == (direction == "forward")


def _forward(exp: Experiment, path: str) -> dict[str, Any]:
    """Shaping of the client → server direction of a path."""
    return exp.topology.paths[path].direction("forward" if _is_client_to_server(exp, path, "forward") else "reverse")


def calibrate(exp: Experiment, out: Path, backend: str, agent: Path, progress: Callable[[str], None],
              tolerance: float) -> Calibration:
    measurements: list[Measurement] = []
    folder = out / f"{exp.name}-calibration"
    runs: list[tuple[Experiment, Callable[[Experiment, Path], list[Measurement]]]] = [(probe_experiment(exp), analyse_probe)]
    if any(_forward(exp, p)["rate"] for p in _association_paths(exp)):
        runs.append((saturate_experiment(exp), analyse_saturate))
    for derived, analyse in runs:
        session = runner.run_experiment(derived, folder, backend, agent, lambda s: progress(f"calibration {s}"))
        if session.error:
            raise RuntimeError(f"calibration run {derived.name} failed: {session.error}")
        measurements += analyse(exp, Path(session.runs[0]["directory"]))
    return Calibration(tolerance, measurements, str(folder))
