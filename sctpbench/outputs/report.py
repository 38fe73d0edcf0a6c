"""`sctpbench report`: one self-contained HTML page for a run, a session or a campaign.

Self-contained means it opens offline, mailed or archived: the figures are inline SVG,
the style is inline, and nothing is fetched. `--png DIR` writes the same figures as PNG
for papers.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib

from sctpbench.analysis.metrics import DOUBLING_PCT, METRIC_KEYS
from sctpbench.model import sctp_params
from sctpbench.outputs import figures, folders, series, summary_text, traffic
from sctpbench.outputs.figures import Figure
from sctpbench.results import calibration as results_calibration
from sctpbench.results.summary import HEADLINE_METRICS, RunMetrics
from sctpbench.results.summary import NAME as SUMMARY

PNG_DPI = 200
# The report's tables of metrics show them in these groups, in this order, and only those a
# run produced: a row of "–" with n 0 is a metric that does not apply to the experiment.
METRIC_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("delivery", ("messages_sent", "messages_delivered", "messages_affected", "pre_failure_p99_ms", "frames_late",
                  "utilisation")),
    ("latency", ("mtt_mean_ms", "mtt_p50_ms", "mtt_p99_ms", "mmtt_ms", "sched_mtt_mean_ms", "sched_mtt_p99_ms")),
    ("failure", ("detection_time_ms", "pf_detection_time_ms", "unreachable_time_ms", "failover_time_ms")),
    ("handover", ("path_switches", "handover_delay_ms", "handover_delay_max_ms", "handover_mtt_mean_ms", "handover_mmtt_ms",
                  "acked_0_5s_after_switch", "acked_1s_after_switch", "acked_2s_after_switch", "acked_4s_after_switch",
                  "new_path_rate_time_ms")),
    ("multipath", ("holb_mean_ms", "holb_p99_ms", "holb_share", "reordered_share", "duplicate_share", "reordered_chunks",
                   "foreign_source_packets")),
    ("bulk", ("acked_at_10s", "acked_at_30s", "acked_at_60s", "acked_at_120s")),
    ("competing traffic", ("competing_tcp_mbps", "jain_fairness")),
    ("models", ("startup_mtt_mean_ms", "startup_mmtt_ms", "startup_model_mtt_mean_ms", "startup_model_mmtt_ms",
                "startup_model_error_share")),
)
OTHER_GROUP = "other"  # a metric of a later or earlier version, not in a group above
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin-top: 1.2em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0 1.5em; } figcaption { font-size: .9em; color: #444; margin-bottom: .3em; }
figure svg { width: 100%; height: auto; display: block; }
.placeholder { background: #fff; border: 1px dashed #ccc; }
.warn { color: #a00; } .muted { color: #777; } pre { background: #f6f6f6; padding: .6em; overflow-x: auto; font-size: .85em; }
details > summary { cursor: pointer; font-weight: 600; font-size: 1.1em; margin: .6em 0; }
.wide { overflow-x: auto; }
nav li { display: inline; margin-right: 1em; }
"""


@dataclass
class Report:
    """A page's title and body, and every figure on it, for the HTML and for --png."""

    title: str
    body: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)


@dataclass(frozen=True)
class Options:
    draw_figures: bool = True  # False draws empty frames of the same size: a baseline for tests and quick looks


# ---------------------------------------------------------------------------- building blocks


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(header: list[str], rows: Iterable[list[Any]], numeric_from: int = 1) -> str:
    """Cells are escaped here; columns from numeric_from on are right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td{' class=num' if i >= numeric_from else ''}>{esc(c)}</td>" for i, c in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f"<div class=wide><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def svg(figure: Figure) -> str:
    """The figure as inline SVG: text stays text (smaller, searchable), no XML prologue or metadata."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        figure.figure.savefig(buf, format="svg")
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)


def figure_html(report: Report, figure: Figure, options: Options) -> str:
    report.figures.append(figure)
    if options.draw_figures:
        content = svg(figure)
    else:
        w, h = figure.figure.get_size_inches()
        content = f'<div class="placeholder" style="aspect-ratio: {w} / {h}"></div>'
    return f'<figure id="{esc(figure.name)}"><figcaption>{esc(figure.title)}</figcaption>{content}</figure>'


# ---------------------------------------------------------------------------- run


def metrics_table(summary: dict[str, Any], m: RunMetrics) -> str:
    """The run's headline metrics; a failure's and a model's rows only where the run has them."""
    model = summary.get("detection_model")
    rows: list[list[Any]] = [["messages sent / delivered", f"{fmt(m.messages_sent)} / {fmt(m.messages_delivered)}"]]
    if m.messages_affected is not None:
        rows.append(["messages affected (MTT above the pre-failure p99)",
                     f"{fmt(m.messages_affected)} (pre-failure p99 {fmt(m.pre_failure_p99_ms)} ms)"])
    rows += [["MTT mean / p50 / p99 (ms)", f"{fmt(m.mtt_mean_ms)} / {fmt(m.mtt_p50_ms)} / {fmt(m.mtt_p99_ms)}"],
             ["MMTT (ms)", fmt(m.mmtt_ms)]]
    failed = model is not None or m.detection_time_ms is not None or m.failover_time_ms is not None
    if failed:
        rows.append(["detection time (ms)", fmt(m.detection_time_ms)])
    if model and model.get("pf_retrans") is not None:
        rows.append(["PF detection time (ms)", f"{fmt(m.pf_detection_time_ms)} (model {fmt(model['pf_model_ms'], 0)}: "
                     f"pf_retrans {model['pf_retrans']} + 1 timeouts; bound {fmt(model['pf_bound_ms'], 0)})"])
        rows.append(["UNREACHABLE time (ms)", fmt(m.unreachable_time_ms)])
    if model:
        pct = model.get("backoff_pct") or DOUBLING_PCT
        growth = "2^i" if pct == DOUBLING_PCT else f"({pct / 100:g})^i"  # the relaxed back-off the model follows
        rows.append([f"{summary_text.model_name(model)} Σ min(RTO·{growth}, RTO.max), i = 0…PMR (ms)",
                     f"{fmt(model['model_ms'], 0)} (RTO {model['rto_at_failure_ms']} ms at the failure, "
                     f"PMR {model['path_max_retrans']}, RTO.max {model['rto_max_ms']} ms); bound {fmt(model['bound_ms'], 0)}"])
    if failed:
        rows.append(["failover time (ms)", fmt(m.failover_time_ms)])
    startup = summary.get("startup_model")
    if startup:
        window = "unrestricted (ideal)" if startup.get("initial_cwnd_bytes") is None else f"{startup['initial_cwnd_bytes']:.0f} B"
        rows.append([f"MTT after the {startup['scenario']} to {startup['path']}, {startup['messages']} messages in "
                     f"{startup['window_s']:g} s: mean / max (ms, {summary.get('clock') or 'unnamed'} clock)",
                     f"{fmt(m.startup_mtt_mean_ms)} / {fmt(m.startup_mmtt_ms)}"])
        rows.append([f"startup model of Papers IV/V, cwnd {window}, switch at +{startup['switch_ms']:.0f} ms: mean / max (ms)",
                     f"{fmt(startup['mtt_mean_ms'])} / {fmt(startup['mmtt_ms'])} (|measured − model| / model "
                     f"{fmt(m.startup_model_error_share)}); slow start {fmt(startup['slow_start_mtt_mean_ms'])} / "
                     f"{fmt(startup['slow_start_mmtt_ms'])}, ideal startup {fmt(startup['ideal_mtt_mean_ms'])} / "
                     f"{fmt(startup['ideal_mmtt_ms'])}: slow start {100 * startup['penalty_mean']:+.0f} % / "
                     f"{100 * startup['penalty_max']:+.0f} %; the run's window with Linux's idle ssthresh (= cwnd, "
                     f"congestion avoidance at once) {fmt(startup['idle_ssthresh_mtt_mean_ms'])} / "
                     f"{fmt(startup['idle_ssthresh_mmtt_ms'])}"])
    rows.append(["paths used", ", ".join(summary.get("paths_used") or []) or "–"])
    return table(["metric", "value"], rows)


# sysctl names that differ from the requested parameter's (requested ones end in _ms)
SYSCTL_NAME = {p.key: p.name for p in sctp_params.PARAMS if p.where == "sysctl" and p.name != p.key}
ASSOCIATION_NAME = {"streams": "streams_out"}


def params_table(params: dict[str, Any]) -> str:
    """Requested against what the kernel had in force: sysctls and getsockopt, per endpoint."""
    requested: dict[str, Any] = params.get("requested") or {}
    sysctl: dict[str, dict[str, Any]] = params.get("sysctl") or {}
    hosts = sorted(sysctl)
    ends = _read_back_ends(params)
    rows = []
    covered: set[str] = set()
    for key, value in requested.items():
        base = key.removesuffix("_ms")
        sysctl_key = SYSCTL_NAME.get(base, base)
        assoc_key = ASSOCIATION_NAME.get(key, key)
        covered.add(assoc_key)
        rows.append([key, "unset (kernel default)" if value is None else fmt(value)]
                    + [fmt(sysctl.get(h, {}).get(sysctl_key)) for h in hosts]
                    + [fmt(v.get(assoc_key)) for v in ends.values()])
    extra = sorted({k for v in ends.values() for k in v} - covered)
    rows += [[k, "–"] + ["–" for _ in hosts] + [fmt(v.get(k)) for v in ends.values()] for k in extra]
    header = ["parameter", "requested"] + [f"sysctl {h}" for h in hosts] + [f"association {e} (getsockopt)" for e in ends]
    return table(header, rows)


def _read_back_ends(params: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """getsockopt values per association endpoint: `client`, `server` with one association,
    `NAME client`, `NAME server` with several (the requested column is the experiment's)."""
    several: dict[str, dict[str, Any]] = params.get("associations") or {}
    if len(several) > 1:
        return {f"{name} {role}": values.get(role) or {} for name, values in several.items() for role in ("client", "server")}
    return dict(params.get("association") or {})


def associations_table(summary: dict[str, Any]) -> str:
    """One line per association: its hosts and paths, the failure it saw, its own metrics. A
    run of one association says so in a sentence: its metrics are the run's (the Metrics table),
    and a table of them again only repeated it."""
    several = summary.get("associations") or {}
    if len(several) == 1:
        ((name, a),) = several.items()
        failure = f", the failure on its path {esc(a['failure'])}" if a.get("failure") else ""
        return (f"<p>One association, <b>{esc(name)}</b>: {esc(a.get('client'))} → {esc(a.get('server'))} over "
                f"{esc(', '.join(a.get('paths') or []) or '–')}{failure}. Its metrics are the run's, in the table above.</p>")
    rows = []
    for name, a in several.items():
        m = RunMetrics.from_dict(a.get("metrics") or {}, f"summary.json: associations.{name}")
        rows.append([name, f"{a.get('client')} → {a.get('server')}", ", ".join(a.get("paths") or []), a.get("failure") or "–",
                     f"{fmt(m.messages_sent)} / {fmt(m.messages_delivered)}", fmt(m.messages_affected),
                     fmt(m.mtt_p50_ms), fmt(m.mtt_p99_ms), fmt(m.mmtt_ms),
                     fmt(m.detection_time_ms), fmt(m.failover_time_ms)])
    if not rows:
        return "<p class=muted>No per-association metrics in this run's summary (collected before associations).</p>"
    note = ("<p class=muted>The metrics above are across associations: MTT of all messages pooled, counts summed, "
            "detection and failover the slowest association's that the failure hit.</p>")
    return note + table(["association", "client → server", "paths", "failure of its path", "sent / delivered", "affected",
                         "MTT p50 (ms)", "MTT p99 (ms)", "MMTT (ms)", "detection (ms)", "failover (ms)"], rows, 4)


def video_table(summary: dict[str, Any]) -> str:
    """Per video association and frame type: frames, delivered, late past the deadline, frame MTT."""
    rows = []
    for name, a in (summary.get("associations") or {}).items():
        v = a.get("video")
        if not v:
            continue
        for kind, f in [("all", v)] + sorted((v.get("by_type") or {}).items()):
            rows.append([name, kind, fmt(v.get("deadline_ms"), 0), fmt(f["frames"]), fmt(f["delivered"]), fmt(f["late"]),
                         fmt(100 * f["late_share"] if f.get("late_share") is not None else None, 1),
                         fmt(f.get("mtt_p50_ms")), fmt(f.get("mtt_p99_ms")), fmt(f.get("mtt_max_ms"))])
    if not rows:
        return ""
    return ("<p class=muted>A frame's MTT runs from its send time to the arrival of its last message; it is late when "
            "it arrived after the playout deadline or not at all.</p>"
            + table(["association", "frame type", "deadline (ms)", "frames", "delivered", "late", "late (%)",
                     "frame MTT p50 (ms)", "p99 (ms)", "max (ms)"], rows, 2))


def handover_table(summary: dict[str, Any]) -> str:
    """Each handover of the run: when, from which path to which, why, how long until the new
    path delivered, and the MTT of the messages around it; then time and deliveries per path."""
    switches = series.handover_switches(summary)
    if not switches:
        return ""
    m = RunMetrics.from_dict(summary.get("metrics") or {}, SUMMARY)
    before, after = ((summary.get("handover") or {}).get("window_s") or [-1.0, 2.0])[:2]
    rows = [[s.get("association"), fmt(s.get("t_rel_s"), 3), s.get("from") or "–", s.get("to"), s.get("cause"),
             fmt(s.get("delay_ms")), fmt(s.get("mtt_mean_ms")), fmt(s.get("mmtt_ms")),
             f"{fmt(s.get('messages'))} ({fmt(s.get('undelivered'))} not delivered)"] for s in switches]
    per_path = [[name, path, fmt(seconds, 3), fmt(100 * ((a.get("handover") or {}).get("delivered_share") or {}).get(path, 0.0), 1)]
                for name, a in (summary.get("associations") or {}).items()
                for path, seconds in ((a.get("handover") or {}).get("primary_seconds") or {}).items()]
    return (f"<p>Primary changed {fmt(m.path_switches)} time(s); handover delay mean {fmt(m.handover_delay_ms)} ms, "
            f"max {fmt(m.handover_delay_max_ms)} ms; messages generated from {before:g} s to +{after:g} s around "
            f"a decision: MTT mean {fmt(m.handover_mtt_mean_ms)} ms, MMTT {fmt(m.handover_mmtt_ms)} ms.</p>"
            "<p class=muted>A handover starts at its decision (a timeline primary step, a policy's switch, or a ping-pong "
            "move) and its delay ends at the first message delivered over the new path.</p>"
            + table(["association", "decision (s from t0)", "from", "to", "cause", "delay (ms)", "MTT mean (ms)", "MMTT (ms)",
                     "messages in the window"], rows, 1)
            + table(["association", "path", "primary for (s)", "deliveries over it (%)"], per_path, 2))


def _path_rates(summary: dict[str, Any], plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every path of the run, in the plan's order, with its rate per direction (None: unshaped or
    unknown); a run folder without a plan names its paths through its associations."""
    links = plan.get("links") or []
    if links:
        return {link["path"]: {d: ((link.get("shaping") or {}).get(d) or {}).get("rate") for d in ("forward", "reverse")}
                for link in links}
    named = [p for a in (summary.get("associations") or {}).values() for p in a.get("paths") or []]
    return {p: {"forward": None, "reverse": None} for p in dict.fromkeys(named)}


def load_table(summary: dict[str, Any], plan: dict[str, Any] | None = None) -> str:
    """Offered load per path and direction, from the senders' records, over the path's rate:
    every path of the run in each direction that carries load, 0 where nothing was offered
    (a failover run's second path too, not only the primary its association started on)."""
    loaded = {(r["path"], r["direction"]): r for r in summary.get("load") or []}
    if not loaded:
        return ""
    rates = _path_rates(summary, plan or {})
    directions = [d for d in ("forward", "reverse") if any(k[1] == d for k in loaded)]
    paths = list(rates) + [p for p, _ in loaded if p not in rates]
    rows = []
    for direction in directions:
        for path in paths:
            capacity = rates.get(path, {}).get(direction)
            r = loaded.get((path, direction)) or {"offered_bps": 0.0, "capacity_bps": capacity, "sources": [],
                                                  "utilisation": 0.0 if capacity else None}
            rows.append([path, direction, ", ".join(r["sources"]) or "–", fmt(r["offered_bps"] / 1e6, 3),
                         fmt(r["capacity_bps"] / 1e6 if r.get("capacity_bps") else None, 3), fmt(r["utilisation"], 3)])
    return ("<p class=muted>Offered load: what each sender sent over its duration, with the Ethernet, IPv4 and SCTP "
            "headers the rate limiter charges, counted on the association's first path (0 on a path no sender started on).</p>"
            + table(["path", "direction", "senders", "offered (Mbit/s)", "capacity (Mbit/s)", "utilisation"], rows, 3))


def events_table(run: folders.RunData) -> str:
    timeline = [[e.get("kind"), e.get("target"), e.get("detail") or "", f"{e.get('at_ns', 0) / 1e9:.3f}",
                 f"{e.get('lag_ns', 0) / 1e6:.2f}"] for e in run.summary.get("events") or []]
    notes = [[f"{e['t_rel_ns'] / 1e9:.3f}" if e.get("t_rel_ns") is not None else "–", e["source"], e.get("path") or "–",
              e.get("addr") or "–", e["kind"], e.get("detail") or ""] for e in run.path_events if e["source"] != "timeline"]
    return ("<h3>Timeline</h3>" + table(["action", "target", "detail", "scheduled (s from t0)", "applied late by (ms)"], timeline, 3)
            + "<h3>SCTP path notifications (SCTP_PEER_ADDR_CHANGE), primary changes and send failures</h3>"
            + table(["time from t0 (s)", "endpoint", "path", "peer address", "state", "detail"], notes, 6))


def selfcheck_rows(check: dict[str, Any]) -> list[list[Any]]:
    """check, measured, allowed, verdict: every figure, within tolerance or not."""
    tol = check["tolerances"]
    failed = {r["check"] for r in check.get("reasons") or []}
    verdict = lambda name: "OUTSIDE" if name in failed else "ok"  # noqa: E731
    rows: list[list[Any]] = []
    late = check.get("lateness")
    if late:
        rows.append(["sender lateness p50 (ms)", fmt(late["p50_ms"], 3), "", ""])
        rows.append(["sender lateness p99 (ms)", fmt(late["p99_ms"], 3), f"≤ {fmt(tol['lateness_p99_ns'] / 1e6, 1)}", verdict("lateness_p99")])
        rows.append(["sender lateness max (ms)", fmt(late["max_ms"], 3), f"≤ {fmt(tol['lateness_max_ns'] / 1e6, 1)}", verdict("lateness_max")])
    lag = check.get("event_lag")
    if lag:
        rows.append([f"event lag max (ms), {lag['worst']}", fmt(lag["max_ms"], 3), f"≤ {fmt(tol['event_lag_ns'] / 1e6, 1)}", verdict("event_lag")])
    for d in check.get("delay") or []:
        outside = any(r["check"].startswith("delay") and r.get("path") == d["path"] for r in check.get("reasons") or [])
        rows.append([f"{d['path']} {d['direction']} MTT p{d['quantile']:g} (ms), configured {fmt(d['expected_ms'], 3)}",
                     fmt(d["achieved_ms"], 3), f"{fmt(d['low_ms'], 3)} – {fmt(d['high_ms'], 3)}", "OUTSIDE" if outside else "ok"])
    rows += [[f"not checked: {note}", "", "", ""] for note in check.get("skipped") or []]
    return rows


def selfcheck_table(check: dict[str, Any] | None) -> str:
    if not check:
        return "<p class=muted>No self-check in this run's summary (collected before it existed).</p>"
    note = "" if check.get("enabled", True) else "<p class=muted>Judging is off (measure.selfcheck.enabled: false): figures only.</p>"
    return note + table(["check", "measured", "allowed", "verdict"], selfcheck_rows(check), 1)


def traffic_tables(run: folders.RunData) -> str:
    """A table per competing flow (outputs/traffic.py)."""
    parts = [f"<p class=muted>{esc(traffic.NOTE)}</p>"]
    for head, rows in traffic.flow_tables(run):
        parts.append(f"<h3>{esc(head)}</h3>" + table(["figure", "value"], [[k, v if isinstance(v, str) else fmt(v)] for k, v in rows], 1))
    return "\n".join(parts)


def versions_table(run: folders.RunData) -> str:
    rows = [[f"guest {k}", v] for k, v in run.versions.items()] + [[f"host {k}", v] for k, v in run.host.items()]
    return table(["component", "version"], rows, 2)


def cost_table(run: folders.RunData) -> str:
    """Where the run's host time went (cost.json); empty for a run from before it."""
    if run.cost is None:
        return ""
    rows = [[p.name, fmt(p.wall_s), fmt(p.cpu_s), p.switches] for p in run.cost.phases]
    rows.append(["all phases", fmt(run.cost.wall_s), fmt(run.cost.cpu_s), sum(p.switches for p in run.cost.phases)])
    return ("<p class=muted>The host's clock and CPU time of the whole process tree, guest included: they change with "
            "the host's load and are not in the run's figures.</p>"
            + table(["phase", "wall s", "CPU s", "context switches"], rows, 1))


def run_section(report: Report, run: folders.RunData, options: Options, heading: str = "h2") -> str:
    s = run.summary
    status = s.get("status", "unknown")
    parts = [f"<p>Run <b>{esc(run.name)}</b>: status <b class={'muted' if status == 'ok' else 'warn'}>{esc(status)}</b>, "
             f"repetition {esc(s.get('repetition'))}, seed {esc(s.get('seed'))}, run id {esc(s.get('run_id'))}, "
             f"times on the <b>{esc(s.get('clock', 'real'))}</b> clock. "
             f"Folder <code>{esc(run.directory)}</code>.</p>"]
    if s.get("error"):
        parts.append(f"<p class=warn>error: {esc(s['error'])}</p>")
    for reason in (s.get("selfcheck") or {}).get("reasons") or []:
        parts.append(f"<p class=warn>disturbed: {esc(reason['detail'])}</p>")
    for note in s.get("notes") or []:  # a stack default the experiment left unset shaped a result
        parts.append(f"<p class=warn>note ({esc(note.get('association'))}): {esc(note.get('text'))}</p>")
    parts.append(f"<{heading}>Metrics</{heading}>" + metrics_table(s, run.metrics))
    parts.append(f"<{heading}>Associations</{heading}>" + associations_table(s))
    if handover_table(s):
        parts.append(f"<{heading}>Handovers</{heading}>" + handover_table(s))
    if video_table(s):
        parts.append(f"<{heading}>Video frames</{heading}>" + video_table(s))
    if load := load_table(s, run.plan):
        parts.append(f"<{heading}>Offered load per path</{heading}>" + load)
    if s.get("traffic"):
        parts.append(f"<{heading}>Competing traffic</{heading}>" + traffic_tables(run))
    parts.append(f"<{heading}>Timing self-check</{heading}>" + selfcheck_table(s.get("selfcheck")))
    parts.append(f"<{heading}>Figures</{heading}>")
    for f in figures.run_figures(run):
        f.name = f"{run.name}-{f.name}"
        parts.append(figure_html(report, f, options))
    parts.append(f"<{heading}>Parameters: requested and read back from the kernel</{heading}>" + params_table(run.params))
    parts.append(f"<{heading}>Events</{heading}>" + events_table(run))
    parts.append(f"<{heading}>Versions</{heading}>" + versions_table(run))
    if run.cost is not None:
        parts.append(f"<{heading}>Where the time went</{heading}>" + cost_table(run))
    return "\n".join(parts)


# ---------------------------------------------------------------------------- session


def calibration_table(calibration: dict[str, Any] | None) -> str:
    if not calibration:
        return "<p class=muted>No calibration in this session (measure: {calibrate: true} adds one).</p>"
    exceeded = {(m["path"], m["quantity"]) for m in calibration.get("exceeded") or []}
    rows = [[m["path"], m["quantity"], fmt(m.get("configured"), 3), fmt(m.get("achieved"), 3),
             fmt(m.get("error"), 4), "EXCEEDS" if (m["path"], m["quantity"]) in exceeded else "ok", m.get("note", "")]
            for m in calibration.get("measurements") or []]
    return (f"<p>Tolerance {fmt((calibration.get('tolerance') or 0) * 100, 1)} % (loss: binomial test).</p>"
            + table(["path", "quantity", "configured", "achieved", "error", "verdict", "note"], rows, 2))


def grouped(names: Iterable[str]) -> list[tuple[str, list[str]]]:
    """The metric names by METRIC_GROUPS, in the groups' order; empty groups left out."""
    given = list(names)
    groups = [(group, [k for k in keys if k in given]) for group, keys in METRIC_GROUPS]
    known = {k for _, keys in METRIC_GROUPS for k in keys}
    groups.append((OTHER_GROUP, [k for k in given if k not in known]))
    return [(group, keys) for group, keys in groups if keys]


def summary_table(summary: dict[str, Any]) -> str:
    """Across runs: the metrics the runs produced (n above 0), by group."""
    produced = [k for k, v in summary.items() if v.get("n")]
    if not produced:
        return "<p class=muted>No metric has a value in any ok run.</p>"
    rows = [[group if i == 0 else "", k, fmt(summary[k].get("mean")), fmt(summary[k].get("ci95")), fmt(summary[k].get("n"))]
            for group, keys in grouped(produced) for i, k in enumerate(keys)]
    return table(["group", "metric", "mean", "± 95% CI (Student's t)", "n"], rows, 2)


def runs_table(runs: list[folders.RunData]) -> str:
    keys = [k for k in ("detection_time_ms", "failover_time_ms", "mtt_p50_ms", "mtt_p99_ms", "mmtt_ms", "messages_delivered")
            if any(r.metrics.get(k) is not None for r in runs)]  # a column of "–" only is a metric that does not apply
    rows = [[r.name, r.summary.get("status"), r.summary.get("seed")] + [fmt(r.metrics.get(k)) for k in keys]
            for r in runs]
    return table(["run", "status", "seed"] + keys, rows, 2)


def session_report(session: folders.SessionData, options: Options) -> Report:
    report = Report(f"sctpbench session {session.directory.name}")
    b = report.body
    if session.summary.get("error"):
        b.append(f"<p class=warn>stopped: {esc(session.summary['error'])}</p>")
    b.append("<h2>Across runs: mean ± 95% confidence interval</h2>" + summary_table(session.summary.get("summary") or {}))
    disturbed = session.summary.get("disturbed") or []
    if disturbed:
        b.append(f"<p class=warn>Over ok runs only; disturbed (timing outside the self-check's tolerances): {esc(', '.join(disturbed))}</p>")
    b.append("<h2>Runs</h2>" + runs_table(session.runs))
    if len(session.runs) > 1:
        b.append(figure_html(report, figures.session_mtt_cdf(session), options))
    b.append("<h2>Calibration</h2>" + calibration_table(session.calibration))
    if session.experiment:
        b.append(f"<details><summary>Experiment (resolved)</summary><pre>{esc(session.experiment)}</pre></details>")
    b.append("<nav><ul>" + "".join(f'<li><a href="#{esc(r.name)}">{esc(r.name)}</a></li>' for r in session.runs) + "</ul></nav>")
    for i, run in enumerate(session.runs):
        # every run's figures are on the page; later runs start folded to keep it readable
        b.append(f'<details id="{esc(run.name)}"{" open" if i == 0 else ""}><summary>{esc(run.name)}</summary>'
                 f"{run_section(report, run, options, 'h3')}</details>")
    return report


# ---------------------------------------------------------------------------- campaign


def configs_table(campaign: folders.CampaignData) -> str:
    params = [f"param.{k}" for k in campaign.swept]
    # The metrics some configuration has a mean of, by group.
    produced = [k for k in METRIC_KEYS if any(c.get(f"{k}_mean") is not None for c in campaign.configs)]
    metrics = [k for _, keys in grouped(produced) for k in keys]

    def cell(c: dict[str, Any], k: str) -> str:
        mean, ci = c.get(f"{k}_mean"), c.get(f"{k}_ci95")
        if mean is None:
            return "–"
        return f"{fmt(mean)} ± {fmt(ci)} (n={fmt(c.get(f'{k}_n'))})" + modes_note(c.get(f"{k}_modes"))

    rows = [[c.get("config"), *[c.get(p) for p in params], *[cell(c, k) for k in metrics]] for c in campaign.configs]
    return table(["configuration", *campaign.swept, *metrics], rows, 1 + len(params))


def modes_note(found: list[dict[str, Any]] | None) -> str:
    """A configuration's modes across its runs, shown only when there are several (analysis/modes.py)."""
    if not found or len(found) < 2:
        return ""
    runs = sum(int(m["runs"]) for m in found)
    return "; modes " + " | ".join(f"{fmt(m['value'])} ({int(m['runs'])} of {runs})" for m in found)


def claims_section(claims: dict[str, Any] | None) -> str:
    """The verdicts of the last `sctpbench campaign check` (claims.json), one row per claim."""
    if not claims:
        return ""
    counts = claims.get("counts") or {}
    head = (f"<h2>Claims</h2><p>{esc(claims.get('paper'))}: {counts.get('holds', 0)} hold, "
            f"{counts.get('contradicted', 0)} contradicted, {counts.get('inconclusive', 0)} inconclusive"
            f"{', ' + str(counts['not exercised']) + ' not exercised' if counts.get('not exercised') else ''} at "
            f"{float(claims.get('confidence') or 0):.0%} confidence over {claims.get('runs_ok')} ok runs "
            f"(<code>{esc(claims.get('claims_file'))}</code>)</p>")
    rows = [[r.get("verdict"), r.get("id"), r.get("where"), r.get("says"),
             "; ".join(f"{ch['group'] + ': ' if ch.get('group') else ''}{ch['figures']} → {ch['verdict']}" for ch in r.get("checks") or [])]
            for r in claims.get("results") or []]
    return head + table(["verdict", "claim", "where", "the paper says", "figures"], rows, 5)


def campaign_runs_table(campaign: folders.CampaignData) -> str:
    keys = [k for k in HEADLINE_METRICS if any(r.get(k) is not None for r in campaign.runs)]
    rows = [[r.get("run_key"), r.get("config"), r.get("repetition"), r.get("seed"), r.get("status"),
             *[fmt(r.get(k)) for k in keys], r.get("directory")] for r in campaign.runs]
    return table(["run", "configuration", "repetition", "seed", "status", *keys, "folder"], rows, 2)


def campaign_report(campaign: folders.CampaignData, options: Options) -> Report:
    c = campaign.campaign
    report = Report(f"sctpbench campaign {c.get('name') or campaign.directory.name}")
    b = report.body
    b.append(table(["", ""], [["experiment", c.get("experiment")], ["swept", ", ".join(campaign.swept) or "–"],
                              ["runs", c.get("runs", len(campaign.runs))],
                              ["budgets", "; ".join(b.get("label", str(b)) for b in c.get("budgets") or []) or "–"]]))
    b.append("<h2>Metrics against each swept parameter</h2>")
    if not campaign.configs:
        b.append("<p class=warn>configs.parquet is missing or empty: nothing to plot.</p>")
    for key in campaign.swept if campaign.configs else []:
        b.append(figure_html(report, figures.campaign_sweep(campaign.configs, campaign.runs, key, campaign.swept), options))
    b.append(claims_section(campaign.claims))
    b.append("<h2>Configurations (mean ± 95% CI)</h2>" + configs_table(campaign))
    b.append("<h2>Runs</h2>" + campaign_runs_table(campaign))
    return report


# ---------------------------------------------------------------------------- page


def build(path: Path, options: Options = Options()) -> Report:
    """The report of whatever results folder `path` is; raises folders.NotAResultsFolder otherwise."""
    kind = folders.kind(path)
    if kind == "campaign":
        return campaign_report(folders.load_campaign(path), options)
    if kind == "session":
        return session_report(folders.load_session(path), options)
    run = folders.load_run(path)
    report = Report(f"sctpbench run {path.parent.name}/{path.name}")
    report.body.append(run_section(report, run, options))
    session = path.parent
    if results_calibration.read_optional(session) is not None:
        report.body.append("<h2>Calibration (session)</h2>" + calibration_table(folders.load_session(session).calibration))
    return report


def page(report: Report) -> str:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>{esc(report.title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{esc(report.title)}</h1>"
            f"<p class=muted>Made by sctpbench report on {stamp}. Times are from t0, when every endpoint was ready.</p>"
            + "\n".join(report.body) + "</body></html>\n")


def write_pngs(report: Report, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for f in report.figures:
        target = directory / f"{f.name}.png"
        f.figure.savefig(target, dpi=PNG_DPI, format="png")
        written.append(target)
    return written


def write(path: Path, out: Path | None = None, png_dir: Path | None = None, options: Options = Options()) -> tuple[Path, list[Path]]:
    report = build(path, options)
    target = out or path / "report.html"
    target.write_text(page(report))
    return target, write_pngs(report, png_dir) if png_dir else []
