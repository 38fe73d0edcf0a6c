"""What the figures show, computed from a run's tables: plain data, no drawing.

Inputs are the rows of the results store's tables (analysis/store.py) as dicts, so a
test can hand-make them. Times on the figures are seconds from t0 (every endpoint ready),
which is what `t_rel_ns` holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import numpy as np

from sctpbench.analysis import store
from sctpbench.model import units
from sctpbench.model.events import registry

Row = dict[str, Any]

# The notification that announces a state, for placing a state change at its exact time
# rather than at the next sample.
NOTIFIED_STATE = {
    "ADDR_UNREACHABLE": "INACTIVE",
    "ADDR_POTENTIALLY_FAILED": "PF",
    "ADDR_AVAILABLE": "ACTIVE",
    "ADDR_CONFIRMED": "ACTIVE",
}


@dataclass(frozen=True)
class Marker:
    """A moment to mark on a time axis: an injected action or an SCTP notification."""

    t_s: float
    label: str
    kind: str
    source: str  # "timeline", "client" or "server"
    colour: str | None = None  # a timeline step's: its event kind's marker
    style: str = "-"


@dataclass(frozen=True)
class StateInterval:
    start_s: float
    end_s: float
    state: str


@dataclass
class PathTrack:
    """One endpoint's view of one peer path: its states over time and when it was primary."""

    endpoint: str
    path: str
    intervals: list[StateInterval] = field(default_factory=list)
    primary: list[tuple[float, float]] = field(default_factory=list)
    association: str = ""  # named only when the run has several (one association needs no name)

    @property
    def label(self) -> str:
        return f"{self.association} {self.endpoint} → {self.path}" if self.association else f"{self.endpoint} → {self.path}"


@dataclass(frozen=True)
class Points:
    x: np.ndarray
    y: np.ndarray


def _s(ns: int | None) -> float | None:
    return None if ns is None else ns / 1e9


def markers(path_events: Iterable[Row]) -> list[Marker]:
    """Timeline actions (fail, restore, primary, …) and SCTP path notifications, in time order."""
    out = []
    previous: dict[str, str] = {}  # source → the kind of its last row
    for e in path_events:
        t = _s(e.get("t_rel_ns"))
        if t is None:
            continue
        # A lost association fails every queued message at once: one line for the burst.
        repeated = e["kind"] == store.SEND_FAILED and previous.get(e["source"]) == store.SEND_FAILED
        previous[e["source"]] = e["kind"]
        if repeated:
            continue
        if e["source"] == "timeline":
            # Timeline steps are drawn as their event kind says (model/events/); a row of
            # a kind this version does not know is left out.
            style = registry.marker(e["kind"])
            if style is None:
                continue
            word = style.label or e["kind"]
            label = f"{word} {e['path']}" if e.get("path") else word
            out.append(Marker(t, label, e["kind"], e["source"], style.colour, style.style))
            continue
        where = e.get("path") or e.get("addr")  # a send failure names neither
        label = f"{e['source']}: {f'{where} ' if where else ''}{e['kind'].removeprefix('ADDR_')}"
        out.append(Marker(t, label, e["kind"], e["source"]))
    return sorted(out, key=lambda m: m.t_s)


def mtt_by_path(messages: Iterable[Row]) -> dict[str, Points]:
    """MTT (ms) against generation time (s), per path the message arrived on."""
    groups: dict[str, list[tuple[float, float]]] = {}
    for m in messages:
        if m.get("mtt_ns") is None or m.get("t_rel_ns") is None:
            continue
        groups.setdefault(m.get("path") or "unknown", []).append((m["t_rel_ns"] / 1e9, m["mtt_ns"] / 1e6))
    return {p: Points(np.array([x for x, _ in v]), np.array([y for _, y in v])) for p, v in sorted(groups.items())}


def associations(rows: Iterable[Row]) -> list[str]:
    """The associations a table's rows name, in order of appearance (tables from before
    associations have none: the run's one association)."""
    seen: dict[str, None] = {}
    for r in rows:
        if r.get("association"):
            seen.setdefault(r["association"], None)
    return list(seen)


def mtt_by_association(messages: Iterable[Row]) -> dict[str, Points]:
    """MTT (ms) against generation time (s), per association, in the order they appear."""
    groups: dict[str, list[tuple[float, float]]] = {}
    for m in messages:
        if m.get("mtt_ns") is None or m.get("t_rel_ns") is None:
            continue
        groups.setdefault(m.get("association") or "", []).append((m["t_rel_ns"] / 1e9, m["mtt_ns"] / 1e6))
    return {a: Points(np.array([x for x, _ in v]), np.array([y for _, y in v])) for a, v in groups.items()}


def undelivered_times(messages: Iterable[Row]) -> np.ndarray:
    """Generation times (s) of messages that never arrived: shown, not silently dropped."""
    return np.array([m["t_rel_ns"] / 1e9 for m in messages if m.get("mtt_ns") is None and m.get("t_rel_ns") is not None])


def cdf(values: Iterable[float]) -> Points:
    """Empirical CDF: sorted values against the fraction of values at or below each."""
    x = np.sort(np.asarray([v for v in values if v is not None], dtype=float))
    return Points(x, np.arange(1, x.size + 1) / x.size if x.size else np.array([]))


def mtt_cdf(messages: Iterable[Row]) -> Points:
    return cdf(m["mtt_ns"] / 1e6 for m in messages if m.get("mtt_ns") is not None)


def _t0_ns(m: Row) -> int:
    return m["t_gen_ns"] - m["t_rel_ns"]


def delivered_bytes(messages: Iterable[Row], path: str | None = None) -> Points:
    """Cumulative payload bytes delivered to the receiving application against delivery time (s)."""
    rows = [m for m in messages if m.get("t_rx_ns") is not None and m.get("t_rel_ns") is not None
            and (path is None or m.get("path") == path)]
    rows.sort(key=lambda m: m["t_rx_ns"])
    x = np.array([(m["t_rx_ns"] - _t0_ns(m)) / 1e9 for m in rows])
    y = np.cumsum([m["size"] for m in rows]).astype(float) if rows else np.array([])
    return Points(x, y)


def cum_tsn(rows: Iterable[Row]) -> dict[str, Points]:
    """Cumulative TSN acknowledged (chunks) against arrival time at the client (s), per
    association (cum_tsn.parquet): the highest so far, which is what the sender holds. A
    SACK that crossed a slower path and arrived after a newer one (the table keeps it) is
    stale, and the sender ignores it."""
    groups: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        if r.get("t_rel_ns") is not None and r.get("cum_tsn_ack") is not None:
            groups.setdefault(r.get("association") or "", []).append((r["t_rel_ns"] / 1e9, float(r["cum_tsn_ack"])))
    out = {}
    for association, points in groups.items():
        points.sort(key=lambda p: p[0])  # arrival order; equal times keep the table's order
        out[association] = Points(np.array([x for x, _ in points]), np.maximum.accumulate(np.array([y for _, y in points])))
    return out


def handover_switches(summary: Row) -> list[Row]:
    """The run's handovers as summary.json lists them (analysis/handover.py), in time order."""
    switches = (summary.get("handover") or {}).get("switches") or []
    return sorted(switches, key=lambda s: (s.get("t_rel_s") is None, s.get("t_rel_s") or 0.0))


def thin(points: Points, limit: int = 2000) -> Points:
    """At most `limit` points of a monotone curve, keeping the last; SVG size stays bounded."""
    if points.x.size <= limit:
        return points
    idx = np.unique(np.append(np.linspace(0, points.x.size - 1, limit).astype(int), points.x.size - 1))
    return Points(points.x[idx], points.y[idx])


def path_tracks(samples: Iterable[Row], path_events: Iterable[Row]) -> list[PathTrack]:
    """Per endpoint and path, the state intervals from the samples, with change times taken
    from the notifications where those came first (samples are only every sample_interval)."""
    samples, path_events = list(samples), list(path_events)
    several = len(associations(samples)) > 1
    observations: dict[tuple[str, str, str], list[tuple[float, str, bool | None]]] = {}
    for s in samples:
        if s.get("path") and s.get("t_rel_ns") is not None:
            key = (s.get("association") or "", s["endpoint"], s["path"])
            observations.setdefault(key, []).append((s["t_rel_ns"] / 1e9, s["state"], s.get("primary")))
    for e in path_events:
        key = (e.get("association") or "", e["source"], e.get("path"))
        state = NOTIFIED_STATE.get(e["kind"])
        if state and key in observations and e.get("t_rel_ns") is not None:
            observations[key].append((e["t_rel_ns"] / 1e9, state, None))
    tracks = []
    order = {a: i for i, a in enumerate(associations(samples))}
    for (association, endpoint, path), obs in sorted(observations.items(), key=lambda kv: (order.get(kv[0][0], 0), kv[0])):
        obs.sort(key=lambda o: o[0])
        tracks.append(PathTrack(endpoint, path, _intervals([(t, s) for t, s, _ in obs]),
                                _true_spans([(t, p) for t, _, p in obs if p is not None]), association if several else ""))
    return tracks


def _intervals(observations: list[tuple[float, str]]) -> list[StateInterval]:
    """Runs of equal state; each lasts until the next change, the last until the last observation."""
    out: list[StateInterval] = []
    for t, state in observations:
        if out and out[-1].state == state:
            continue
        if out:
            out[-1] = StateInterval(out[-1].start_s, t, out[-1].state)
        out.append(StateInterval(t, t, state))
    if out:
        out[-1] = StateInterval(out[-1].start_s, observations[-1][0], out[-1].state)
    return out


def _true_spans(flags: list[tuple[float, bool]]) -> list[tuple[float, float]]:
    spans = [StateInterval(i.start_s, i.end_s, i.state) for i in _intervals([(t, str(f)) for t, f in flags])]
    return [(i.start_s, i.end_s) for i in spans if i.state == "True"]


def sample_series(samples: Iterable[Row], endpoint: str, column: str) -> dict[str, Points]:
    """One column of an endpoint's path samples (cwnd, srtt_ms, rto_ms) against time, per
    path; with several associations per association and path (`ASSOC/PATH`)."""
    samples = list(samples)
    several = len(associations(samples)) > 1
    groups: dict[str, list[tuple[float, float]]] = {}
    for s in samples:
        if s["endpoint"] == endpoint and s.get("path") and s.get(column) is not None and s.get("t_rel_ns") is not None:
            key = f"{s['association']}/{s['path']}" if several else s["path"]
            groups.setdefault(key, []).append((s["t_rel_ns"] / 1e9, float(s[column])))
    return {p: Points(np.array([x for x, _ in v]), np.array([y for _, y in v])) for p, v in sorted(groups.items())}


# ---------------------------------------------------------------------------- campaigns


@dataclass(frozen=True)
class ParamValue:
    """A swept parameter's value as written, and its position on a numeric axis when it has one."""

    text: str
    number: float | None
    unit: str


def parse_param(text: str | None) -> ParamValue:
    """'200ms' → 200 (ms), '6mbit' → 6 (Mbit/s), '50/s' → 50 (/s), '1%' → 1 (%), '3' → 3; other text stays categorical."""
    raw = "" if text is None else str(text)
    parsers = (
        (lambda v: units.parse_duration(v) / 1e6, "ms"),
        (lambda v: units.parse_rate(v) / 1e6, "Mbit/s"),
        (lambda v: float(units.parse_size(v)) if re.search("[A-Za-z]", raw) else float("nan"), "B"),
        (lambda v: units.parse_percent(v) if raw.strip().endswith("%") else float("nan"), "%"),
        (lambda v: units.parse_message_rate(v) if raw.strip().endswith("/s") else float("nan"), "/s"),
        (float, ""),
    )
    for parse, unit in parsers:
        try:
            number = float(parse(raw))
        except (ValueError, TypeError):
            continue
        if not np.isnan(number):
            return ParamValue(raw, number, unit)
    return ParamValue(raw, None, "")


@dataclass
class SweepSeries:
    """One line on a campaign figure: a metric against one swept key, the others held fixed."""

    label: str  # the other swept keys' values, "" when only one key is swept
    x: list[float]  # numeric positions, or category indexes when the values are not numeric
    mean: list[float]
    ci95: list[float]  # 0 where n < 2 (no interval)
    n: list[int]
    runs_x: list[float] = field(default_factory=list)  # every repetition's value, shown beside the mean
    runs_y: list[float] = field(default_factory=list)


@dataclass
class Sweep:
    key: str
    metric: str
    unit: str
    ticks: list[str]  # category labels, or [] for a numeric axis
    series: list[SweepSeries]


def _finite(v: Any) -> TypeGuard[float]:
    return v is not None and not (isinstance(v, float) and np.isnan(v))


def sweep(configs: list[Row], runs: list[Row], key: str, others: list[str], metric: str) -> Sweep:
    """metric's mean ± 95% CI per configuration (configs.parquet) against swept key `key`."""
    values = {c[f"param.{key}"]: parse_param(c[f"param.{key}"]) for c in configs}
    numeric = all(v.number is not None for v in values.values())
    ordered = sorted(values.values(), key=lambda v: (v.number or 0.0 if numeric else 0.0, v.text))
    position: dict[str, float] = {v.text: (v.number or 0.0 if numeric else float(i)) for i, v in enumerate(ordered)}
    unit = ordered[0].unit if numeric and ordered and len({v.unit for v in ordered}) == 1 else ""

    def group(row: Row) -> str:
        return ", ".join(f"{o}={row.get(f'param.{o}')}" for o in others)

    out: dict[str, SweepSeries] = {}
    for c in sorted(configs, key=lambda c: position[c[f"param.{key}"]]):
        mean = c.get(f"{metric}_mean")
        if not _finite(mean):
            continue
        s = out.setdefault(group(c), SweepSeries(group(c), [], [], [], []))
        ci = c.get(f"{metric}_ci95")
        s.x.append(position[c[f"param.{key}"]])
        s.mean.append(float(mean))
        s.ci95.append(float(ci) if _finite(ci) else 0.0)
        s.n.append(int(c.get(f"{metric}_n") or 0))
    for r in runs:
        if r.get("status", "ok") == "ok" and _finite(r.get(metric)) and group(r) in out and r.get(f"param.{key}") in position:
            out[group(r)].runs_x.append(position[r[f"param.{key}"]])
            out[group(r)].runs_y.append(float(r[metric]))
    return Sweep(key, metric, unit, [] if numeric else [v.text for v in ordered], list(out.values()))
