"""Calibration: measure what the built topology achieves before the experiment runs.

Two short runs on the experiment's own topology, with the experiment's SCTP parameters
and none of its events:
  probe     unordered 200 B messages, 100/s, the primary moved to each association path in
            turn: per path the one-way delay (median MTT, client → server) and, through the
            emulator with captures, the loss (`sctpbench verify`'s drop count);
  saturate  1000 B messages as fast as SCTP takes them, the primary moved likewise: per
            path with a rate, the goodput against the rate's payload share. Its window is
            bounded (see `saturate_window`), so the shaper, not congestion control, is measured.
Only the client → server direction is measured: the agents send that way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from sctpbench.model.addressing import ip_header_bytes
from sctpbench.model.events import registry
from sctpbench.model.experiment import Experiment, PathSpec, Workload
from sctpbench.model.fields import DirectionOverride
from sctpbench.model.shaping import DEFAULT_QUEUE_PACKETS
from sctpbench.orchestration import runner
from sctpbench.plan.build import LINUX_SNDBUF
from sctpbench.results import calibration as results_calibration
from sctpbench.results import tables as results_tables

PROBE_SLOT_NS = 2_000_000_000  # per path; the first 300 ms after each move are left out
SETTLE_NS = 300_000_000
SATURATE_SLOT_NS = 3_000_000_000  # at least; long paths get 15 round trips, the first 8 to ramp up
SATURATE_SIZE = 1000
# Payload share of the bytes a qdisc counts for one 1000 B message: DATA chunk header 16,
# SCTP common header 12, IP (IPv4 20, IPv6 40), Ethernet 14.


def payload_share(family: str = "ipv4") -> float:
    return SATURATE_SIZE / (SATURATE_SIZE + 16 + 12 + ip_header_bytes(family) + 14)


PAYLOAD_SHARE = payload_share("ipv4")


def _share(exp: Experiment, path: str) -> float:
    """The payload share on `path`, by the family its packets carry."""
    return payload_share(exp.topology.paths[path].family)
# Linux SCTP charges a queued 1000 B message about 2.5 kB of send buffer (skb truesize and
# chunk): the send buffer must hold the whole window with room to spare.
SNDBUF_PER_WINDOW = 4
# Goodput further below the ceiling than this gets a reason in the note when one is found.
SHORT_OF_CEILING = 0.02
# Slow start from Linux's initial window (4 × 1095 B of data at a 1500 B MTU), growing by at
# least half per round trip with delayed SACKs (one SACK per two packets).
INITIAL_WINDOW = 4380
SLOW_START_GROWTH = 1.5


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
            flag = ("  CANNOT MEASURE" if m.achieved is None else "  EXCEEDS") if m in self.exceeded else ""
            lines.append(f"  {m.path:<10} {m.quantity:<13} configured {m.configured:g}  achieved {got}  {err}{flag}"
                         + (f"  ({m.note})" if m.note else ""))
        return "\n".join(lines) + "\n"


def _first(exp: Experiment) -> Workload:
    """Calibration measures the paths of the first association only (its client → server
    direction); with several associations the others are left out of the calibration runs."""
    return exp.associations[0]


def _association_paths(exp: Experiment) -> list[str]:
    return exp.paths_of(_first(exp))


def _derive(exp: Experiment, name: str, slot_ns: int, workload: dict[str, Any], capture: bool) -> Experiment:
    paths = _association_paths(exp)
    events = [registry.validate({"at": f"{i * slot_ns}ns", "primary": p}) for i, p in enumerate(paths)]
    return exp.model_copy(update={
        "name": f"{exp.name}-calibrate-{name}",
        "events": events,
        "repeat": 1,
        "workload": _first(exp).model_copy(update=workload | {"start": 0, "duration": slot_ns * len(paths)}),
        "workloads": None,
        "traffic": [],  # the paths alone: competing flows would load them
        "measure": exp.measure.model_copy(update={"capture": capture, "calibrate": False}),
    })


def probe_slot(exp: Experiment) -> tuple[int, int]:
    """(slot, settle): the congestion window must first grow to the probe's load."""
    rtt = _rtt_ns(exp)
    return max(PROBE_SLOT_NS, 10 * rtt), max(SETTLE_NS, 5 * rtt)


def probe_experiment(exp: Experiment) -> Experiment:
    return _derive(exp, "probe", probe_slot(exp)[0], {"size": 200, "rate": 100.0, "arrival": "periodic", "ordered": False},
                   capture=exp.topology.emulator)


def _pipe_bytes(exp: Experiment, path: str) -> float:
    """Payload bytes in flight when the path runs at its rate for one round trip."""
    forward = _forward(exp, path)
    return forward["rate"] / 8 * _share(exp, path) * _path_rtt_ns(exp, path) / 1e9


def _queue_payload_bytes(exp: Experiment, path: str) -> float:
    """Payload bytes the bottleneck queue holds when full of saturate messages."""
    forward = _forward(exp, path)
    if forward.get("queue_bytes"):
        return forward["queue_bytes"] * _share(exp, path)
    return (forward.get("queue") or DEFAULT_QUEUE_PACKETS) * SATURATE_SIZE


def _rated_paths(exp: Experiment) -> list[str]:
    return [p for p in _association_paths(exp) if _forward(exp, p)["rate"]]


def saturate_window(exp: Experiment) -> int:
    """Payload bytes the saturate run may have in flight: each rated path's round trip at
    its rate plus half its bottleneck queue, the smallest over the paths.

    Unbounded (8 MB buffers), slow start overshoots the queue by up to its own size: on
    virtual time a 45 Mbit/s, 40 ms path lost about a thousand packets at once, stalled in
    fast recovery and then a T3 timeout (RTO.min 1 s) with a 7 kB window, and a 3 s slot
    measured 21 instead of 42 Mbit/s (100 Mbit/s: 10). Bounded, the queue never overflows
    and never empties. The receive window (half of rcvbuf) is the bound: it counts payload
    bytes, exactly."""
    return int(min((_pipe_bytes(exp, p) + _queue_payload_bytes(exp, p) / 2 for p in _rated_paths(exp)),
                   default=0))


def window_limited(exp: Experiment, path: str) -> str:
    """Why the bounded window cannot fill `path` ('' when it can): another path's queue
    bounds it below this path's round trip at its rate."""
    window, pipe = saturate_window(exp), _pipe_bytes(exp, path)
    if window >= pipe + SATURATE_SIZE:
        return ""
    return (f"not measurable alongside the other paths: filling it takes {pipe / 1e3:.0f} kB in flight, "
            f"but a window above {window / 1e3:.0f} kB overflows another path's queue; calibrate it alone")


def _saturate_sctp(exp: Experiment) -> Any:
    window = saturate_window(exp)
    if not window:
        return exp.sctp
    sndbuf = max(exp.sctp.sndbuf or LINUX_SNDBUF, SNDBUF_PER_WINDOW * window)
    return exp.sctp.model_copy(update={"rcvbuf": max(4096, 2 * window), "sndbuf": sndbuf})


def _direction_name(exp: Experiment, path: str) -> Literal["forward", "reverse"]:
    return "forward" if _is_client_to_server(exp, path, "forward") else "reverse"


def _deepened(exp: Experiment, path: str) -> PathSpec:
    """The path with its client → server queue at least one round trip at its rate.

    SCTP's slow start (no pacing, no early exit) sends at up to twice the bottleneck rate
    in its last round trips: the queue must absorb about half a round trip's worth, else
    it overflows before the window is open (1000 Mbit/s, 40 ms, 1000 packets: a thousand
    packets lost, a T3 timeout, then 2.5 Mbit/s). Depth changes nothing about the rate a
    shaper carries, only how much congestion control can lose in getting there."""
    spec = exp.topology.paths[path]
    which = _direction_name(exp, path)
    values = spec.direction(which)
    if not values["rate"]:
        return spec
    pipe_wire = values["rate"] / 8 * _path_rtt_ns(exp, path) / 1e9
    if values.get("queue_bytes"):
        key, depth = "queue_bytes", max(values["queue_bytes"], math.ceil(pipe_wire))
    else:
        key, depth = "queue", max(values.get("queue") or DEFAULT_QUEUE_PACKETS, math.ceil(pipe_wire * _share(exp, path) / SATURATE_SIZE))
    override = getattr(spec, which) or DirectionOverride()
    return spec.model_copy(update={which: override.model_copy(update={key: depth})})


def saturate_topology(exp: Experiment) -> Experiment:
    """The experiment as the saturate run shapes it: no loss (it would make SCTP's congestion
    control, not the shaper, the limit) and queues deep enough for slow start (`_deepened`).
    Delay and rate are the experiment's own."""
    lossless = {"loss": 0.0, "gilbert_elliott": None}
    paths = {
        name: path.model_copy(update=lossless | {
            d: getattr(path, d).model_copy(update={"loss": None, "gilbert_elliott": None})
            for d in ("forward", "reverse") if getattr(path, d) is not None
        })
        for name, path in exp.topology.paths.items()
    }
    exp = exp.model_copy(update={"topology": exp.topology.model_copy(update={"paths": paths})})
    paths = {name: _deepened(exp, name) if name in _association_paths(exp) else spec for name, spec in paths.items()}
    return exp.model_copy(update={"topology": exp.topology.model_copy(update={"paths": paths})})


def saturate_experiment(exp: Experiment) -> Experiment:
    """The window is bounded to what the path holds (`saturate_window`), by buffers sized
    for it: the experiment's own buffers are the experiment's business, the calibration
    measures the path."""
    exp = saturate_topology(exp)
    exp = exp.model_copy(update={"sctp": _saturate_sctp(exp)})
    return _derive(exp, "saturate", saturate_slot(exp)[0], {"size": SATURATE_SIZE, "arrival": "saturate", "ordered": True},
                   capture=False)


def _slots(messages: list[dict[str, Any]], paths: list[str], slot_ns: int, settle_ns: int = SETTLE_NS) -> dict[str, list[dict[str, Any]]]:
    """Messages generated while each path was the primary, past the settling time."""
    return {p: [m for m in messages if i * slot_ns + settle_ns <= (m["t_rel_ns"] or -1) < (i + 1) * slot_ns]
            for i, p in enumerate(paths)}


BOTH_DIRECTIONS: tuple[Literal["forward", "reverse"], ...] = ("forward", "reverse")


def _path_rtt_ns(exp: Experiment, path: str) -> int:
    return sum(exp.topology.paths[path].direction(d)["delay"] for d in BOTH_DIRECTIONS)


def _rtt_ns(exp: Experiment) -> int:
    return max(_path_rtt_ns(exp, p) for p in _association_paths(exp))


def _ramp_rtts(exp: Experiment) -> int:
    """Round trips slow start takes to open the window to the largest path's round trip at
    its rate: from then on the path runs at its rate (what remains fills the queue)."""
    pipe = max((_pipe_bytes(exp, p) for p in _rated_paths(exp)), default=0)
    if pipe <= INITIAL_WINDOW:
        return 0
    return math.ceil(math.log(pipe / INITIAL_WINDOW, SLOW_START_GROWTH))


def saturate_slot(exp: Experiment) -> tuple[int, int]:
    """(slot, settle): slow start and the queue filling take a few round trips, more at high
    bandwidth-delay products (1 Gbit/s over 40 ms took 13); the slot leaves at least 7 round
    trips after them."""
    rtt = _rtt_ns(exp)
    settle = max(SETTLE_NS, 8 * rtt, (2 + _ramp_rtts(exp)) * rtt)
    return max(SATURATE_SLOT_NS, 15 * rtt, settle + 7 * rtt), settle


def analyse_probe(exp: Experiment, run_dir: Path) -> list[Measurement]:
    messages = results_tables.read(run_dir, results_tables.MESSAGES)
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
    from sctpbench.analysis import verify  # the capture reader only when there are captures

    report = verify.verify_run(run_dir)
    out = []
    for path in _association_paths(exp):
        d = next(x for x in report.directions if x.path == path and _is_client_to_server(exp, path, x.direction))
        configured = _forward(exp, path)["loss"]
        if not d.loss_exposed:
            out.append(Measurement(path, "loss_pct", configured, None, None, "no packets"))
            continue
        achieved = 100.0 * d.loss_drops / d.loss_exposed
        from scipy import stats  # scipy.stats takes about 1.6 CPU-s to import (a 2-CPU build machine): only where a loss is judged

        p = stats.binomtest(d.loss_drops, d.loss_exposed, configured / 100).pvalue if configured else float(d.loss_drops == 0)
        out.append(Measurement(path, "loss_pct", configured, achieved, achieved - configured,
                               f"{d.loss_drops} of {d.loss_exposed} packets, binomial p = {p:.3g}", within=p >= LOSS_P_MIN))
    return out


def analyse_saturate(exp: Experiment, run_dir: Path) -> list[Measurement]:
    """Goodput per path: bytes delivered over it while it was the primary, past the ramp-up,
    per second of that window. Delivery time, not generation time: with large send buffers
    the client generates far ahead of what the path carries."""
    messages = results_tables.read(run_dir, results_tables.MESSAGES)
    configured_exp, exp = exp, saturate_topology(exp)
    slot, settle = saturate_slot(exp)
    out: list[Measurement] = []
    for i, path in enumerate(_association_paths(exp)):
        rate = _forward(exp, path)["rate"]
        if not rate:
            continue
        configured = rate / 1e6 * _share(exp, path)
        why = window_limited(exp, path)
        if why:
            out.append(Measurement(path, "goodput_mbit", round(configured, 6), None, None, why, within=False))
            continue
        lo, hi = i * slot + settle, (i + 1) * slot
        delivered = sum(m["size"] for m in messages if m["mtt_ns"] is not None and m["path"] == path
                        and lo <= m["t_rel_ns"] + m["mtt_ns"] < hi)
        achieved = delivered * 8 / ((hi - lo) / 1e9) / 1e6 if delivered else None
        error = None if achieved is None else achieved / configured - 1
        note = (f"rate {rate / 1e6:g} Mbit/s, {_share(exp, path):.1%} of it is payload; "
                f"window {saturate_window(exp) / 1e3:.0f} kB{_queue_note(configured_exp, exp, path)}")
        if error is not None and error < -SHORT_OF_CEILING:
            note += _sender_limited(exp, run_dir, path, lo, hi)
        out.append(Measurement(path, "goodput_mbit", round(configured, 6), achieved, error, note))
    return out


def _sender_limited(exp: Experiment, run_dir: Path, path: str, lo: int, hi: int) -> str:
    """Names the sender as the limit when the bottleneck queue stayed (nearly) empty.

    With the bounded window a path at its rate holds half its queue: the smoothed RTT sits
    that far above the path's own. Short of the rate with the RTT at the path's own, the
    packets never waited for the shaper: the sender could not keep up (on the real clock,
    the guest's one CPU: 34.5 of 42.4 Mbit/s at 45, 42.4 of 94.2 at 100)."""
    samples = results_tables.read(run_dir, results_tables.PATH_SAMPLES)
    srtts = [s["srtt_ms"] for s in samples if s["endpoint"] == "client" and s["path"] == path
             and s["srtt_ms"] and lo <= s["t_rel_ns"] < hi]
    if not srtts:
        return ""
    base = _path_rtt_ns(exp, path) / 1e6
    standing = _queue_payload_bytes(exp, path) / 2 * 8 / (_forward(exp, path)["rate"] * _share(exp, path)) * 1e3
    srtt = float(np.median(srtts))
    if srtt - base >= standing / 4:
        return ""
    return (f"; the bottleneck queue stayed empty (srtt {srtt:.0f} ms, path round trip {base:.0f} ms): the sender, "
            f"not the shaper, was the limit (on the real clock: the guest's CPU; use clock: virtual)")


def _queue_note(configured: Experiment, measured: Experiment, path: str) -> str:
    """Says so when the saturate run deepened the path's queue (`_deepened`)."""
    was, now = _forward(configured, path), _forward(measured, path)
    key = "queue_bytes" if now.get("queue_bytes") else "queue"
    if (was.get(key) or DEFAULT_QUEUE_PACKETS) == (now.get(key) or DEFAULT_QUEUE_PACKETS):
        return ""
    unit = " B" if key == "queue_bytes" else " packets"
    return f"; queue {now[key]}{unit} for slow start (configured {was.get(key) or DEFAULT_QUEUE_PACKETS}{unit})"


def _is_client_to_server(exp: Experiment, path: str, direction: str) -> bool:
    first = exp.topology.paths[path].between[0]
    return (first == _first(exp).client) == (direction == "forward")


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


def run_experiment(experiment: Experiment, out: Path, backend: str, agent: Path, progress: runner.Progress) -> runner.Session:
    """The experiment's session, calibrated first when `measure.calibrate` asks for it."""
    prelude = (lambda session: _calibrate(experiment, session, backend, agent, progress)) if experiment.measure.calibrate else None
    return runner.run_experiment(experiment, out, backend, agent, progress, prelude)


def _calibrate(experiment: Experiment, session: runner.Session, backend: str, agent: Path, progress: runner.Progress) -> None:
    """Measure the topology first; record it with the session and warn when it is off."""
    tolerance = experiment.measure.calibration_tolerance / 100
    result = calibrate(experiment, session.directory, backend, agent, progress, tolerance)
    session.calibration = result.to_dict()
    results_calibration.write(session.directory, session.calibration)
    for line in result.render().splitlines():
        progress(line)
    for m in result.exceeded:
        progress(f"warning: calibration of {m.path} {m.quantity} is off by more than {tolerance:.0%} "
                 f"(configured {m.configured:g}, achieved {m.achieved:.3f})")
