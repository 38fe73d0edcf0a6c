"""The run summary's text: the lines `sctpbench run` prints for a session document.

Each run's metrics are read as typed fields (RunMetrics); the parts of summary.json the
metrics do not hold (associations, handover switches, video, traffic, the self-check,
telemetry, events) are read as the session document gives them.
"""

from __future__ import annotations

import textwrap
from typing import Any, TextIO

from sctpbench.analysis.metrics import DOUBLING_PCT
from sctpbench.results.summary import NAME as SUMMARY
from sctpbench.results.summary import RunMetrics

# With many associations the timing line names only this many path delays.
TIMING_PATHS_SHOWN = 6
# No printed line is longer: a terminal or a mail shows it whole.
LINE_MAX = 160
# A long line goes on under its values, past the label column ("  failure   ").
CONTINUATION = " " * 12


def wrapped(line: str, width: int = LINE_MAX) -> list[str]:
    """A line longer than `width` broken as a person would: after the `; ` between its
    clauses (as many on a line as fit), a clause still too long at a space; the lines after
    the first indented under the values."""
    if len(line) <= width:
        return [line]
    clauses = line.split("; ")
    packed: list[str] = []
    for i, clause in enumerate(clauses):
        text = clause + (";" if i < len(clauses) - 1 else "")
        if packed and len(packed[-1]) + 1 + len(text) <= width:
            packed[-1] += " " + text
        else:
            packed.append(text if not packed else CONTINUATION + text)
    out: list[str] = []
    for part in packed:
        out += textwrap.wrap(part, width, subsequent_indent=CONTINUATION, break_long_words=False,
                             break_on_hyphens=False) if len(part) > width else [part]
    return out


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}{unit}"
    return f"{value}{unit}"


def timing_line(check: dict[str, Any]) -> str:
    """The self-check's figures beside their tolerances, so the margin shows."""
    tol = check["tolerances"]
    parts = []
    if check.get("lateness"):
        late = check["lateness"]
        parts.append(f"sender late p50 {late['p50_ms']:.2f} p99 {late['p99_ms']:.2f} (≤ {tol['lateness_p99_ns'] / 1e6:g})"
                     f" max {late['max_ms']:.2f} ms (≤ {tol['lateness_max_ns'] / 1e6:g})")
    if check.get("event_lag"):
        parts.append(f"event lag max {check['event_lag']['max_ms']:.2f} ms (≤ {tol['event_lag_ns'] / 1e6:g})")
    delays = check.get("delay") or []
    # Only the paths closest to their upper bound: the rest is in the summary.
    shown = sorted(delays, key=lambda d: d["high_ms"] - d["achieved_ms"])[:TIMING_PATHS_SHOWN]
    for d in shown:
        parts.append(f"{d['path']} MTT p{d['quantile']:g} {d['achieved_ms']:.2f} ms "
                     f"(configured {d['expected_ms']:g}, allowed {d['low_ms']:g}–{d['high_ms']:g})")
    if len(delays) > len(shown):
        parts.append(f"{len(delays) - len(shown)} more path delays, further from their upper bound (summary.json)")
    return "; ".join(parts) or "nothing to check"


def model_name(model: dict[str, Any]) -> str:
    """The timer model's name: RFC 4960's doubling, or the project kernel's relaxed back-off
    (rto_backoff_pct read back) that the model then follows."""
    pct = model.get("backoff_pct") or DOUBLING_PCT
    return "RFC timer model" if pct == DOUBLING_PCT else f"timer model with back-off {pct} %"


def beyond(value: float | None, bound: float | None) -> str:
    """A word when a measured time exceeds its model's bound: the model no longer explains it."""
    return ", BEYOND THE BOUND" if value is not None and bound is not None and value > bound else ""


def failure_lines(m: RunMetrics, model: dict[str, Any] | None) -> list[str]:
    """Detection, and with PF on its two moments, each beside its timer model and bound."""
    if not model or model.get("pf_retrans") is None:
        line = f"  failure   detection {_fmt(m.detection_time_ms, ' ms')}"
        if model:
            line += (f" ({model_name(model)} {model['model_ms']:.0f} ms from RTO {model['rto_at_failure_ms']} ms,"
                     f" PMR {model['path_max_retrans']}, RTO.max {model['rto_max_ms']} ms; bound {model['bound_ms']:.0f} ms"
                     f"{beyond(m.detection_time_ms, model['bound_ms'])})")
        return [line]
    return [
        f"  failure   detection {_fmt(m.detection_time_ms, ' ms')} (the first of:)",
        f"            PF {_fmt(m.pf_detection_time_ms, ' ms')} (model {model['pf_model_ms']:.0f} ms: pf_retrans "
        f"{model['pf_retrans']} + 1 timeouts from RTO {model['rto_at_failure_ms']} ms; bound {model['pf_bound_ms']:.0f} ms"
        f"{beyond(m.pf_detection_time_ms, model['pf_bound_ms'])})",
        f"            UNREACHABLE {_fmt(m.unreachable_time_ms, ' ms')} (model {model['model_ms']:.0f} ms: PMR "
        f"{model['path_max_retrans']} + 1, RTO.max {model['rto_max_ms']} ms; bound {model['bound_ms']:.0f} ms with heartbeats after PF"
        f"{beyond(m.unreachable_time_ms, model['bound_ms'])})",
    ]


def startup_line(m: RunMetrics, model: dict[str, Any], clock: str | None) -> str:
    """Transfer times after a path switch beside seed 000 Papers IV/V's startup model
    (analysis/startup.py): the run's own window, and slow start against the ideal startup."""
    window = "unrestricted (ideal)" if model.get("initial_cwnd_bytes") is None else f"{model['initial_cwnd_bytes']:.0f} B"
    return (f"startup   {model['scenario']} to {model['path']}, {model['messages']} messages from the cause to "
            f"+{model['window_s']:g} s ({clock or 'unnamed'} clock): MTT mean {_fmt(m.startup_mtt_mean_ms, ' ms')} "
            f"max {_fmt(m.startup_mmtt_ms, ' ms')}; startup model (Papers IV/V, cwnd {window}, switch at "
            f"+{model['switch_ms']:.0f} ms) mean {model['mtt_mean_ms']:.1f} max {model['mmtt_ms']:.1f} ms; "
            f"model slow start vs ideal: mean {model['slow_start_mtt_mean_ms']:.1f} vs {model['ideal_mtt_mean_ms']:.1f} ms "
            f"({100 * model['penalty_mean']:+.0f} %), max {model['slow_start_mmtt_ms']:.1f} vs {model['ideal_mmtt_ms']:.1f} ms "
            f"({100 * model['penalty_max']:+.0f} %); with Linux's idle ssthresh (= cwnd) mean "
            f"{model['idle_ssthresh_mtt_mean_ms']:.1f} max {model['idle_ssthresh_mmtt_ms']:.1f} ms")


def association_line(name: str, a: dict[str, Any]) -> str:
    m = RunMetrics.from_dict(a.get("metrics") or {}, f"summary.json: associations.{name}")
    failure = (f"  failure of {a['failure']}: detection {_fmt(m.detection_time_ms, ' ms')}"
               f" failover {_fmt(m.failover_time_ms, ' ms')}") if a.get("failure") else "  no failure of its path"
    return (f"{name:<9} {a.get('client')} → {a.get('server')}  sent {_fmt(m.messages_sent)}"
            f" delivered {_fmt(m.messages_delivered)}  MTT p50 {_fmt(m.mtt_p50_ms, ' ms')}"
            f" MMTT {_fmt(m.mmtt_ms, ' ms')}{failure}")


def handover_line(m: RunMetrics, h: dict[str, Any]) -> str | None:
    """Every association's handovers in one line (each switch is in summary.json), or None without any."""
    switches = h.get("switches") or []
    if not switches:
        return None
    before, after = (h.get("window_s") or [-1.0, 2.0])[:2]
    delivered = sum(1 for s in switches if s.get("delay_ms") is not None)
    return (f"handover  {len(switches)} switch(es), primary changed {_fmt(m.path_switches)} time(s); delay mean "
            f"{_fmt(m.handover_delay_ms)} max {_fmt(m.handover_delay_max_ms, ' ms')} ({delivered} of "
            f"{len(switches)} delivered on the new path); messages from {before:g} s to +{after:g} s: MTT mean "
            f"{_fmt(m.handover_mtt_mean_ms, ' ms')} MMTT {_fmt(m.handover_mmtt_ms, ' ms')}")


def video_line(name: str, v: dict[str, Any]) -> str:
    """Frames of a video association: delivered, late past the deadline, frame MTT."""
    return (f"video     {name}: {_fmt(v['delivered'])} of {_fmt(v['frames'])} frames delivered, {_fmt(v['late'])} late "
            f"(deadline {v['deadline_ms']:g} ms); frame MTT p50 {_fmt(v.get('mtt_p50_ms'), ' ms')}"
            f" p99 {_fmt(v.get('mtt_p99_ms'), ' ms')}")


def traffic_line(name: str, f: dict[str, Any]) -> str:
    """A competing flow in one line: what TCP's receiver got, UDP's rates and loss (with headers)."""
    mbit = lambda v: "-" if v is None else f"{v / 1e6:.2f} Mbit/s"  # noqa: E731
    ends = f"{name} {f.get('kind')} {f.get('client')} → {f.get('server')} over {f.get('path')}"
    if f.get("kind") == "tcp":
        return (f"{ends}: {mbit(f.get('mean_throughput_bps'))} received, {f.get('congestion') or '-'},"
                f" {_fmt(f.get('retransmits'))} retransmissions" + (f"; iperf3: {f['error']}" if f.get("error") else ""))
    loss = f.get("loss")
    return (f"{ends}: offered {mbit(f.get('offered_bps'))} (configured {mbit(f.get('configured_bps'))}), achieved "
            f"{mbit(f.get('achieved_bps'))}, sent {f.get('sent')} received {f.get('received')}"
            f" loss {'-' if loss is None else f'{100 * loss:.2f}'} %")


def run_lines(run: dict[str, Any]) -> list[str]:
    """One run of a session document: the headline lines (messages, MTT, failure, timing),
    then only what applies: a model the experiment asked for, handovers, associations,
    video, competing traffic, notes, telemetry and the timeline's events."""
    m = RunMetrics.from_dict(run["metrics"], f"{run['directory']}/{SUMMARY}")
    clock = run["params"].get("clock")
    on = f"  {clock} clock" if clock else ""
    lines = [f"{run['run']}  {run['status']}  seed {run['params']['seed']}{on}  ({run['directory']})"]
    if run["error"]:
        lines.append(f"  error: {run['error']}")
    lines += [f"  disturbed {reason['detail']}" for reason in (run.get("selfcheck") or {}).get("reasons", [])]
    lines.append(f"  messages  sent {_fmt(m.messages_sent)}  delivered {_fmt(m.messages_delivered)}"
                 f"  affected {_fmt(m.messages_affected)}  paths used {', '.join(run['paths_used']) or '-'}")
    lines.append(f"  MTT       mean {_fmt(m.mtt_mean_ms, ' ms')}  p50 {_fmt(m.mtt_p50_ms, ' ms')}"
                 f"  p99 {_fmt(m.mtt_p99_ms, ' ms')}  MMTT {_fmt(m.mmtt_ms, ' ms')}")
    model = run.get("detection_model")
    if m.detection_time_ms is not None or model:
        lines += failure_lines(m, model)
        lines.append(f"            failover {_fmt(m.failover_time_ms, ' ms')}")
    if run.get("startup_model"):  # only where the experiment asked for it (measure.models: [startup])
        lines.append(f"  {startup_line(m, run['startup_model'], clock)}")
    handovers = handover_line(m, run.get("handover") or {})
    if handovers:
        lines.append(f"  {handovers}")
    associations = run.get("associations") or {}
    if len(associations) > 1:  # the lines above are across associations; one line each
        lines += [f"  {association_line(name, a)}" for name, a in associations.items()]
    lines += [f"  {video_line(name, a['video'])}" for name, a in associations.items() if a.get("video")]
    lines += [f"  traffic   {traffic_line(name, flow)}" for name, flow in (run.get("traffic") or {}).items()]
    # A stack default the experiment left unset shaped a result (analysis/stack_notes.py).
    lines += [f"  note      {note['association']}: {note['text']}" for note in run.get("notes") or []]
    if run.get("selfcheck"):
        lines.append(f"  timing    {timing_line(run['selfcheck'])}")
    telemetry = run.get("telemetry")
    if telemetry:
        lines.append(telemetry_line(telemetry))
    for e in run["events"]:
        if e["kind"] != "start":
            detail = f" {e['detail']}" if e.get("detail") else ""
            lines.append(f"  event     t0+{e['at_ns'] / 1e9:.3f}s {e['kind']} {e['target']}{detail}: "
                         f"applied {e['lag_ns'] / 1e6:.2f} ms late")
    return lines


def telemetry_line(telemetry: dict[str, Any]) -> str:
    target = f"{telemetry['target']['url']}"
    if telemetry["not_sent"]:
        return (f"  telemetry {telemetry['not_sent']} point(s) NOT sent to {target} (kept; send with sctpbench push): "
                f"{telemetry['errors'][0] if telemetry['errors'] else ''}")
    lag = telemetry["lag_ms"]
    return (f"  telemetry {sum(telemetry['sent'].values())} points to {target}; delivery-to-written lag "
            f"p50 {_fmt(lag['p50'], ' ms')} max {_fmt(lag['max'], ' ms')}")


def summary_lines(document: dict[str, Any]) -> list[str]:
    """A session document (`run --json`'s) as the lines `sctpbench run` prints: each run,
    then the across-runs summary; none longer than LINE_MAX."""
    lines = [line for run in document["runs"] for line in run_lines(run)]
    if len(document["runs"]) > 1:
        lines.append("across runs (mean ± 95% CI, Student's t):")
        lines += [f"  {key:<20} {s['mean']:.2f} ± {_fmt(s['ci95'])}  (n={s['n']})"
                  for key, s in document["summary"].items() if s["mean"] is not None]
    if document.get("disturbed"):
        lines.append(f"disturbed (left out of the summary): {', '.join(document['disturbed'])}")
    if document["error"]:
        lines.append(f"stopped: {document['error']}")
    lines.append(f"results: {document['directory']}")
    return [part for line in lines for part in wrapped(line)]


def print_summary(document: dict[str, Any], out: TextIO) -> None:
    """A session document (`run --json`'s) as text: each run, then the across-runs summary."""
    for line in summary_lines(document):
        print(line, file=out)
