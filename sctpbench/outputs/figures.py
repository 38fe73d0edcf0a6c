"""The report's plots, drawn with matplotlib's object API (no pyplot: no global figure state,
and no display backend is ever chosen; the Agg and SVG canvases render them).

Every figure plots what was measured, labels its axes with units and marks the failure
injection on time axes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure as MplFigure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from sctpbench.outputs import series
from sctpbench.outputs.folders import RunData, SessionData

WIDTH_IN = 10.0
STATE_COLOURS = {"ACTIVE": "#2ca02c", "PF": "#ff7f0e", "INACTIVE": "#d62728", "UNCONFIRMED": "#9e9e9e", "UNKNOWN": "#d9d9d9"}
STATE_LABELS = {"INACTIVE": "INACTIVE (unreachable)", "PF": "PF (potentially failed)"}
NOTIFICATION_COLOURS = {"ADDR_UNREACHABLE": "#d62728", "ADDR_POTENTIALLY_FAILED": "#ff7f0e", "ADDR_AVAILABLE": "#2ca02c",
                        "ADDR_MADE_PRIM": "#1f77b4", "PRIMARY_SET": "#1f77b4", "SEND_FAILED": "#000000"}
PATH_COLOURS = ["#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
# Many points become one embedded bitmap inside the SVG, so the page stays light.
RASTERIZE_ABOVE = 5000


@dataclass
class Figure:
    name: str  # file-name stem for --png, unique within a report
    title: str
    figure: MplFigure


def _new(height_in: float, rows: int = 1, cols: int = 1, sharex: bool = True) -> tuple[MplFigure, list[Axes]]:
    fig = MplFigure(figsize=(WIDTH_IN, height_in), layout="constrained")
    axes = fig.subplots(rows, cols, sharex=sharex, squeeze=False)
    return fig, [a for row in axes for a in row]


def _path_colour(paths: list[str], path: str) -> str:
    return PATH_COLOURS[paths.index(path) % len(PATH_COLOURS)] if path in paths else "#7f7f7f"


def _run_paths(run: RunData) -> list[str]:
    """Paths in plan order, so a path keeps its colour across a run's figures."""
    names: list[str] = []
    for p in plan_paths(run.plan):
        if p not in names:
            names.append(p)
    extra = sorted({m["path"] for m in run.messages if m.get("path")} - set(names))
    return names + extra


def plan_paths(plan: dict) -> list[str]:
    """Every association's paths as plan.json lists them (`association`: plans before associations)."""
    assocs = plan.get("associations") or [{"paths": plan.get("association", [])}]
    return [p["path"] for a in assocs for p in a.get("paths", []) if p.get("path")]


def _mark_events(ax: Axes, markers: list[series.Marker], labelled: bool) -> None:
    """Injected actions as solid labelled lines, the SCTP notifications the client saw as dashed
    ones (labelled only where asked: on every panel they would crowd the plot)."""
    for m in markers:
        if m.source == "timeline":
            colour, style = m.colour or "#7b3294", m.style
        elif m.source == "client":
            colour, style = NOTIFICATION_COLOURS.get(m.kind, "#555555"), "--"
        else:
            continue  # the server's view is in the path state figure; here it would only clutter
        ax.axvline(m.t_s, color=colour, linestyle=style, linewidth=1.2 if m.source == "timeline" else 0.9, alpha=0.9, zorder=1)
        if labelled or m.source == "timeline":
            ax.text(m.t_s, 0.98, f" {m.label}", transform=ax.get_xaxis_transform(), rotation=90, va="top", ha="right",
                    fontsize=7, color=colour, bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none", "pad": 0.5})


def _empty(ax: Axes, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} recorded", transform=ax.transAxes, ha="center", va="center", color="#777777")


def mtt_over_time(run: RunData) -> Figure:
    fig, (ax,) = _new(3.8)
    paths = _run_paths(run)
    by_path = series.mtt_by_path(run.messages)
    for path, pts in by_path.items():
        ax.scatter(pts.x, pts.y, s=6, color=_path_colour(paths, path), label=f"arrived on {path}",
                   rasterized=pts.x.size > RASTERIZE_ABOVE, zorder=2)
    lost = series.undelivered_times(run.messages)
    if lost.size:
        ax.plot(lost, [0.99] * lost.size, "x", color="black", transform=ax.get_xaxis_transform(),
                label=f"not delivered ({lost.size})", zorder=3)
    if by_path:
        ax.set_yscale("log")
    else:
        _empty(ax, "delivered messages")
    _mark_events(ax, series.markers(run.path_events), labelled=True)
    ax.set_xlabel("message generation time from t0 (s)")
    ax.set_ylabel("MTT (ms, log scale)")
    ax.grid(True, which="major", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", fontsize=8)
    return Figure("mtt-time", "Message transfer time over time (solid lines: injected events; dashed: client's SCTP notifications)", fig)


def mtt_cdf(run: RunData) -> Figure:
    fig, (ax,) = _new(3.4)
    pts = series.mtt_cdf(run.messages)
    if pts.x.size:
        ax.step(pts.x, pts.y, where="post", color="#1f77b4")
        ax.set_xscale("log")
        for q, style in ((0.5, ":"), (0.99, "--")):
            ax.axhline(q, color="#777777", linestyle=style, linewidth=0.8)
            ax.text(pts.x[0], q, f"p{int(q * 100)}", va="bottom", fontsize=7, color="#555555")
    else:
        _empty(ax, "delivered messages")
    ax.set_xlabel("MTT (ms, log scale)")
    ax.set_ylabel("fraction of delivered messages")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    return Figure("mtt-cdf", "MTT distribution (CDF of delivered messages)", fig)


def delivered_bytes(run: RunData) -> Figure:
    fig, (ax,) = _new(3.4)
    paths = _run_paths(run)
    total = series.thin(series.delivered_bytes(run.messages))
    if total.x.size:
        ax.step(total.x, total.y / 1e3, where="post", color="black", label="all paths")
        for path in paths:
            pts = series.thin(series.delivered_bytes(run.messages, path))
            if pts.x.size:
                ax.step(pts.x, pts.y / 1e3, where="post", color=_path_colour(paths, path), label=f"over {path}")
        ax.legend(loc="upper left", fontsize=8)
    else:
        _empty(ax, "deliveries")
    _mark_events(ax, series.markers(run.path_events), labelled=False)
    ax.set_xlabel("delivery time from t0 (s)")
    ax.set_ylabel("delivered payload (kB, cumulative)")
    ax.grid(True, alpha=0.3)
    return Figure("delivered", "Payload delivered to the receiving application", fig)


def path_states(run: RunData) -> Figure:
    tracks = series.path_tracks(run.path_samples, run.path_events)
    fig, (ax,) = _new(1.2 + 0.45 * max(len(tracks), 1))
    for row, track in enumerate(tracks):
        for i in track.intervals:
            ax.broken_barh([(i.start_s, max(i.end_s - i.start_s, 1e-3))], (row - 0.35, 0.7),
                           facecolors=STATE_COLOURS.get(i.state, STATE_COLOURS["UNKNOWN"]))
        for start, end in track.primary:
            ax.plot([start, end], [row + 0.42, row + 0.42], color="black", linewidth=2.5, solid_capstyle="butt")
    if not tracks:
        _empty(ax, "path samples")
    ax.set_yticks(range(len(tracks)), [t.label for t in tracks])
    ax.set_ylim(-0.6, len(tracks) - 0.3)
    ax.invert_yaxis()
    _mark_events(ax, [m for m in series.markers(run.path_events) if m.source == "timeline"], labelled=False)
    seen = sorted({i.state for t in tracks for i in t.intervals}, key=list(STATE_COLOURS).index)
    handles: list[Artist] = [Patch(color=STATE_COLOURS[s], label=STATE_LABELS.get(s, s)) for s in seen if s in STATE_COLOURS]
    handles.append(Line2D([], [], color="black", linewidth=2.5, label="primary"))
    # below the plot, so the time axis lines up with the run's other figures
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8)
    ax.set_xlabel("time from t0 (s)")
    return Figure("path-states", "Path states per endpoint (SCTP_GET_PEER_ADDR_INFO samples, refined by SCTP_PEER_ADDR_CHANGE)", fig)


def path_samples(run: RunData, endpoint: str = "client") -> Figure:
    fig, axes = _new(6.0, rows=3)
    paths = _run_paths(run)
    columns = (("cwnd", 1e-3, "cwnd (kB)"), ("srtt_ms", 1.0, "SRTT (ms)"), ("rto_ms", 1.0, "RTO (ms)"))
    markers = [m for m in series.markers(run.path_events) if m.source == "timeline"]
    for n, (ax, (column, scale, label)) in enumerate(zip(axes, columns, strict=True)):
        data = series.sample_series(run.path_samples, endpoint, column)
        for path, pts in data.items():
            ax.step(pts.x, pts.y * scale, where="post", color=_path_colour(paths, path), label=path)
        if not data:
            _empty(ax, f"{column} samples")
        _mark_events(ax, markers if n == 0 else [], labelled=False)
        for m in markers if n else []:
            ax.axvline(m.t_s, color=m.colour or "#7b3294", linestyle=m.style, linewidth=1.2, alpha=0.9, zorder=1)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    if axes[0].get_legend_handles_labels()[0]:
        axes[0].legend(loc="upper left", fontsize=8)
    axes[-1].set_xlabel("time from t0 (s)")
    title = f"Congestion window, smoothed RTT and RTO per path ({endpoint}'s samples; the kernel reports SRTT in jiffies, shown in ms)"
    return Figure("path-samples", title, fig)


def mtt_per_association(run: RunData) -> Figure:
    """One line of MTT over time per association, so one can see which a failure hit."""
    fig, (ax,) = _new(3.8)
    by_assoc = series.mtt_by_association(run.messages)
    for i, (name, pts) in enumerate(by_assoc.items()):
        order = np.argsort(pts.x, kind="stable")
        ax.plot(pts.x[order], pts.y[order], color=PATH_COLOURS[i % len(PATH_COLOURS)], linewidth=1, marker=".",
                markersize=3, label=name or "association", rasterized=pts.x.size > RASTERIZE_ABOVE, zorder=2)
    if by_assoc:
        ax.set_yscale("log")
        ax.legend(loc="upper left", fontsize=8)
    else:
        _empty(ax, "delivered messages")
    _mark_events(ax, [m for m in series.markers(run.path_events) if m.source == "timeline"], labelled=True)
    ax.set_xlabel("message generation time from t0 (s)")
    ax.set_ylabel("MTT (ms, log scale)")
    ax.grid(True, which="major", alpha=0.3)
    return Figure("mtt-associations", "Message transfer time over time per association", fig)


def cum_tsn(run: RunData) -> Figure:
    """Seed 004's handover figure: the cumulative TSN acknowledged as SACKs reach the client."""
    fig, (ax,) = _new(3.4)
    curves = series.cum_tsn(run.cum_tsn)
    for i, (name, pts) in enumerate(curves.items()):
        pts = series.thin(pts)
        ax.step(pts.x, pts.y, where="post", color=PATH_COLOURS[i % len(PATH_COLOURS)], label=name or "association")
    if len(curves) > 1:
        ax.legend(loc="upper left", fontsize=8)
    if not curves:
        _empty(ax, "SACKs")
    _mark_events(ax, [m for m in series.markers(run.path_events) if m.source == "timeline"], labelled=True)
    ax.set_xlabel("SACK arrival at the client from t0 (s)")
    ax.set_ylabel("cumulative TSN ack (chunks)")
    ax.grid(True, alpha=0.3)
    return Figure("cum-tsn", ("Cumulative TSN acknowledged over time (SACKs in the client's captures, counted from the initial TSN; "
                   "the highest so far: a stale SACK from a slower path is left out, as the sender ignores it)"), fig)


def run_figures(run: RunData) -> list[Figure]:
    """The run's figures; with several associations one more: MTT per association; with
    captures the cumulative TSN acknowledged."""
    several = len(series.associations(run.messages)) > 1
    return ([mtt_over_time(run)] + ([mtt_per_association(run)] if several else [])
            + [mtt_cdf(run), delivered_bytes(run), path_states(run), path_samples(run)]
            + ([cum_tsn(run)] if run.cum_tsn else []))


def session_mtt_cdf(session: SessionData) -> Figure:
    fig, (ax,) = _new(3.4)
    drawn = False
    for i, run in enumerate(session.runs):
        pts = series.mtt_cdf(run.messages)
        if pts.x.size:
            ax.step(pts.x, pts.y, where="post", color=PATH_COLOURS[i % len(PATH_COLOURS)], label=run.name, linewidth=1)
            drawn = True
    if drawn:
        ax.set_xscale("log")
        ax.legend(loc="lower right", fontsize=8)
    else:
        _empty(ax, "delivered messages")
    ax.set_xlabel("MTT (ms, log scale)")
    ax.set_ylabel("fraction of delivered messages")
    ax.grid(True, which="both", alpha=0.3)
    return Figure("session-mtt-cdf", "MTT distribution of every run", fig)


CAMPAIGN_METRICS = (("detection_time_ms", "detection time (ms)"), ("failover_time_ms", "failover time (ms)"),
                    ("mtt_p50_ms", "MTT p50 (ms)"))


def campaign_sweep(configs: list[dict], runs: list[dict], key: str, swept: list[str]) -> Figure:
    """One panel per metric: mean ± 95% CI per configuration, every repetition as a faint dot."""
    fig, axes = _new(3.4, cols=len(CAMPAIGN_METRICS), sharex=False)
    others = [k for k in swept if k != key]
    for ax, (metric, label) in zip(axes, CAMPAIGN_METRICS, strict=True):
        sw = series.sweep(configs, runs, key, others, metric)
        for i, s in enumerate(sw.series):
            colour = PATH_COLOURS[i % len(PATH_COLOURS)]
            ax.scatter(s.runs_x, s.runs_y, s=10, color=colour, alpha=0.35, zorder=2)
            ax.errorbar(s.x, s.mean, yerr=s.ci95, color=colour, marker="o", capsize=4, label=s.label or None, zorder=3)
        if sw.ticks:
            ax.set_xticks(range(len(sw.ticks)), sw.ticks)
        else:  # swept values only: no 1.2, 1.4 … between Path.Max.Retrans 1 and 2
            ax.set_xticks(sorted({x for s in sw.series for x in s.x}))
        if not sw.series:
            _empty(ax, metric)
        ax.set_xlabel(f"{key} ({sw.unit})" if sw.unit else key)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        if others and sw.series:
            ax.legend(fontsize=7)
    return Figure(f"campaign-{key.replace('.', '-')}", f"Detection, failover and MTT p50 against {key} (mean ± 95% CI; dots: repetitions)", fig)
