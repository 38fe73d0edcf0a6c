"""The local results store: a run folder's records into columnar tables, params.json and
summary.json (the files and their content: results/files.py, COLLECTED; summary.json's
metrics: results/summary.py).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.analysis import (
    asconf,
    cumtsn,
    fairness,
    frames,
    handover,
    load,
    metrics,
    multipath,
    reordering,
    selfcheck,
    sources,
    stack_notes,
    startup,
    strikes,
)
from sctpbench.analysis import traffic as flows
from sctpbench.collectors import captures, records
from sctpbench.plan import schedule
from sctpbench.plan.data import Association, Link, Plan
from sctpbench.results import backend as results_backend
from sctpbench.results import events as results_events
from sctpbench.results import kernel as results_kernel
from sctpbench.results import params as results_params
from sctpbench.results import plan as results_plan
from sctpbench.results import summary as results_summary
from sctpbench.results import tables

Relative = Callable[[int | None], int | None]


def relative_to(t0: int | None) -> Relative:
    return lambda t: None if t is None or t0 is None else t - t0


def path_names(plan: Plan) -> dict[str, str]:
    """Every association's endpoint addresses → the path name they belong to."""
    return {address: p.path for a in plan.associations for p in a.paths for address in (p.client_address, p.server_address)}


# One row builder per table, shared with the live telemetry stream so that what goes to
# InfluxDB while a run goes is exactly what the store keeps.

def message_row(tx: records.Tx, rx: records.Rx | None, path_of: dict[str, str], rel: Relative, association: str) -> dict[str, Any]:
    return {
        "association": association,
        "seq": tx.seq, "stream": tx.stream, "size": tx.size, "t_gen_ns": tx.t_gen_ns, "t_sent_ns": tx.t_sent_ns,
        "t_rx_ns": rx.t_rx_ns if rx else None, "mtt_ns": (rx.t_rx_ns - tx.t_gen_ns) if rx else None,
        "path": path_of.get(rx.from_addr) if rx else None, "from_addr": rx.from_addr if rx else None,
        "t_rel_ns": rel(tx.t_gen_ns),
    }


def timeline_event_row(e: dict[str, Any], path_of: dict[str, str], rel: Relative) -> dict[str, Any]:
    # A timeline action belongs to no one association (a path may carry several); start names its association.
    return {
        "association": e["target"] if e["kind"] == "start" else None,
        "t_ns": e["applied_ns"], "t_rel_ns": rel(e["applied_ns"]), "source": "timeline", "kind": e["kind"],
        "path": e["target"] if e["target"] in path_of.values() else None, "addr": None,
        "detail": f"scheduled t0+{e['at_ns'] / 1e9:.3f}s, lag {e['lag_ns'] / 1e6:.3f} ms",
    }


def addr_event_row(endpoint: str, c: records.AddrChange, path_of: dict[str, str], rel: Relative, association: str) -> dict[str, Any]:
    return {"association": association, "t_ns": c.t_ns, "t_rel_ns": rel(c.t_ns), "source": endpoint, "kind": c.state, "path": path_of.get(c.addr),
            "addr": c.addr, "detail": f"error {c.error}"}


# Kinds of the agents' own records in the path-event table, beside the notifications' ADDR_*.
PRIMARY_SET = "PRIMARY_SET"
SEND_FAILED = "SEND_FAILED"
# The client's address reconfiguration commands (RFC 5061): the request it sent; the peer's
# ADDR_ADDED, ADDR_MADE_PRIM and ADDR_REMOVED say when it arrived.
ASCONF_KINDS = {
    "addaddr": ("ASCONF_ADD_IP", "sctp_bindx ADD: ASCONF ADD-IP sent"),
    "peerprimary": ("ASCONF_SET_PRIMARY", "SCTP_SET_PEER_PRIMARY_ADDR: ASCONF SET-PRIMARY sent"),
    "deladdr": ("ASCONF_DELETE_IP", "sctp_bindx REM: ASCONF DELETE-IP sent"),
}
POLICY = "POLICY"


def agent_event_rows(endpoint: str, rec: records.Records, path_of: dict[str, str], rel: Relative,
                     association: str) -> list[dict[str, Any]]:
    """The endpoint's primary changes that took effect, its address reconfiguration requests,
    its send failures and its policy's decisions (POLICY: path/addr the candidate, detail
    DECISION BEFORE -> AFTER: REASON; the inputs), as event rows."""
    rows = [{"association": association, "t_ns": t, "t_rel_ns": rel(t), "source": endpoint, "kind": PRIMARY_SET,
             "path": path_of.get(addr), "addr": addr, "detail": "SCTP_PRIMARY_ADDR took effect"}
            for t, name, addr in rec.events if name == "primary"]
    rows += [{"association": association, "t_ns": t, "t_rel_ns": rel(t), "source": endpoint, "kind": ASCONF_KINDS[name][0],
              "path": path_of.get(addr), "addr": addr, "detail": ASCONF_KINDS[name][1]}
             for t, name, addr in rec.events if name in ASCONF_KINDS]
    rows += [{"association": association, "t_ns": s.t_ns, "t_rel_ns": rel(s.t_ns), "source": endpoint, "kind": SEND_FAILED,
              "path": None, "addr": None, "detail": f"message {'?' if s.seq is None else s.seq}, error {s.error}"}
             for s in rec.sendfail]
    rows += [{"association": association, "t_ns": d.t_ns, "t_rel_ns": rel(d.t_ns), "source": endpoint, "kind": POLICY,
              "path": path_of.get(d.candidate), "addr": d.candidate,
              "detail": f"{d.decision} {d.before} -> {d.after}: {d.reason}; " + " ".join(d.paths)}
             for d in rec.policy]
    return rows


def sample_row(endpoint: str, s: records.PathSample, path_of: dict[str, str], rel: Relative, hz: int | None,
               association: str) -> dict[str, Any]:
    return {"association": association, "t_ns": s.t_ns, "t_rel_ns": rel(s.t_ns), "endpoint": endpoint, "path": path_of.get(s.addr), "addr": s.addr,
            "state": s.state, "cwnd": s.cwnd, "srtt_ms": s.srtt_raw * 1000.0 / hz if hz else None, "rto_ms": s.rto_ms,
            "mtu": s.mtu, "primary": s.primary}


@dataclass
class AssociationData:
    """One association's records and what the run's tables and metrics take from them."""

    plan: Association
    client: records.Records
    server: records.Records
    messages: list[metrics.Message] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)


def read_association(run_dir: Path, assoc: Association) -> AssociationData:
    return AssociationData(assoc, records.read(run_dir / assoc.client_records), records.read(run_dir / assoc.server_records))


def collect(run_dir: Path, ended: Callable[[str], None] = lambda phase: None) -> dict[str, Any]:
    """Turn a run folder's records into tables and metrics; works on partial runs too.
    `ended` is told when the collection (records into tables) and the analysis end."""
    plan = results_plan.read(run_dir)
    data = [read_association(run_dir, a) for a in plan.associations]
    # A run that failed early lacks what its backend never wrote: collected all the same.
    kernel = (state.document if (state := results_kernel.read_kernel(run_dir)) else {})
    backend = results_backend.read(run_dir) or results_backend.BackendStatus(ok=False)
    events = results_events.read_documents(run_dir) or []
    t0 = backend.t0_ns
    rel = relative_to(t0)
    hz = kernel.get("hz")

    path_of = path_names(plan)
    for d in data:
        rx_by_seq = {r.seq: r for r in d.server.rx}
        for tx in d.client.tx:
            rx = rx_by_seq.get(tx.seq)
            row = message_row(tx, rx, path_of, rel, d.plan.name)
            d.messages.append(metrics.Message(tx.seq, tx.t_gen_ns, row["t_rx_ns"], row["path"]))
            d.rows.append(row)
    tables.write(run_dir, tables.MESSAGES, [r for d in data for r in d.rows])
    video = _frames(run_dir, data, t0)

    event_rows = [timeline_event_row(e, path_of, rel) for e in events]
    for d in data:
        for endpoint, rec in (("client", d.client), ("server", d.server)):
            event_rows += [addr_event_row(endpoint, c, path_of, rel, d.plan.name) for c in rec.addr]
            event_rows += agent_event_rows(endpoint, rec, path_of, rel, d.plan.name)
    event_rows.sort(key=lambda r: r["t_ns"])
    tables.write(run_dir, tables.PATH_EVENTS, event_rows)

    sample_rows = [
        sample_row(endpoint, s, path_of, rel, hz, d.plan.name)
        for d in data
        for endpoint, rec in (("client", d.client), ("server", d.server))
        for s in rec.path
    ]
    tables.write(run_dir, tables.PATH_SAMPLES, sample_rows)

    read_back = {d.plan.name: {"client": d.client.params, "server": d.server.params} for d in data}
    params = {
        "requested": plan.sctp,
        "sysctl": kernel.get("sysctl", {}),
        # The first association's, as before associations; every one's under `associations`.
        "association": read_back[data[0].plan.name] if data else {},
        "associations": {d.plan.name: {"requested": d.plan.sctp, **read_back[d.plan.name]} for d in data},
    }
    results_params.write(run_dir, params)
    ended("collection")

    check = _selfcheck(plan, data, events)
    per = {d.plan.name: _association_summary(d, plan.links, events, kernel, hz) for d in data}
    offered = [_offered(d, plan.links) for d in data]
    tcp_rows, traffic = flows.collect(run_dir, plan, events, t0) if plan.traffic else ([], {})
    loads = load.per_path(plan.links, [o for o in offered if o is not None] + _background(plan, traffic))
    for d, o in zip(data, offered, strict=True):
        figures = video.get(d.plan.name)
        per[d.plan.name] |= {"offered_wire_bps": o.bps if o else None} | ({"video": figures} if figures else {})
        per[d.plan.name]["metrics"] |= {"utilisation": load.share(plan.links, o), "frames_late": figures["late"] if figures else None}
    busiest = max((r["utilisation"] for r in loads if r["utilisation"] is not None), default=None)
    handovers = {d.plan.name: _handover(d, events, path_of, t0) for d in data}
    for name, h in handovers.items():
        per[name]["handover"] = h.summary
        per[name]["metrics"] |= h.metrics
    pooled = handover.handover_metrics([s for h in handovers.values() for s in h.switches],
                                       sum(h.changes for h in handovers.values()))
    run = metrics.across_associations({n: a["metrics"] for n, a in per.items()}, [m for d in data for m in d.messages], busiest,
                                      pooled)
    run |= _multipath(run_dir, data, per)
    # Seed 000 Papers IV/V: after a switch, beside the startup model, when the experiment asks (measure.models).
    asked = "startup" in plan.models
    startups = {d.plan.name: _startup(d, plan.links, events, kernel, handovers[d.plan.name]) if asked
                else (dict.fromkeys(STARTUP_METRICS), None) for d in data}
    for name, (figures, model_) in startups.items():
        per[name]["metrics"] |= figures
        per[name]["startup_model"] = model_
    # The run's: the first association that switched paths (the one summary.json's startup_model is of).
    run |= next((f for f, m in startups.values() if m is not None), dict.fromkeys(STARTUP_METRICS))
    goodputs = {d.plan.name: fairness.goodput_bps(sum(rx.size for rx in d.server.rx), int(d.plan.workload["duration_ns"]))
                for d in data}
    for name, g in goodputs.items():
        per[name]["goodput_bps"] = g
        # Fairness is a figure across flows, the run's alone; None keeps every metric in every association.
        per[name]["metrics"] |= dict.fromkeys(fairness.RUN_METRICS)
    run |= fairness.competing_metrics(traffic, list(goodputs.values()))
    model = _summary_model(per, run)
    summary = {
        "run_id": plan.run_id,
        "repetition": plan.repetition,
        "seed": plan.seed,
        "clock": plan.clock,  # whose time every figure here is in
        "status": selfcheck.status(bool(backend.ok), check),
        "error": backend.error,
        "metrics": run,
        "selfcheck": check.to_dict(),
        # The model of the association whose detection time is the run's (the slowest).
        "detection_model": model,
        # Papers IV/V's startup model of the first association that switched paths (analysis/startup.py).
        "startup_model": next((a["startup_model"] for a in per.values() if a.get("startup_model")), None),
        "events": [{k: e.get(k, "") for k in ("kind", "target", "detail", "at_ns", "lag_ns")} for e in events],
        "peers_seen": data[0].client.peers if data else [],
        "paths_used": sorted({m.path for d in data for m in d.messages if m.path}),
        "associations": per,
        "load": loads,
        "handover": {"window_s": [-handover.WINDOW_BEFORE_NS / 1e9, handover.WINDOW_AFTER_NS / 1e9],
                     "switches": [{"association": n} | s for n, h in handovers.items() for s in h.summary["switches"]]},
    }
    notes = stack_notes.notes([(d.plan.name, d.plan.sctp, d.plan.workload, _rtt_ms(plan.links, d.plan),
                                per[d.plan.name]["metrics"].get("mtt_p50_ms")) for d in data])
    notes += [stack_notes.Note(*n) for n in (_timeouts_note(d, events, kernel) for d in data) if n]
    if notes:  # a stack default shaped a result (analysis/stack_notes.py), the timer model failed (strikes.py)
        summary["notes"] = [n.to_dict() for n in notes]
    for d in data:  # every association has every metric: None where no capture says it
        per[d.plan.name]["metrics"] |= dict.fromkeys((*WIRE_COUNTS, *WIRE_AFTER_SWITCH, *WIRE_AT))
    if any(p.role == "capture" for p in plan.processes):
        summary["cum_tsn"], summary["asconf"], table = _from_captures(run_dir, data, backend)
        summary["wire"] = _wire(run_dir, data, backend, plan.links, handovers, table, per, run)
    if plan.traffic:
        summary["traffic"] = traffic
        tables.write(run_dir, tables.TCP_THROUGHPUT, tcp_rows)
    results_summary.write(run_dir, summary)
    ended("analysis")
    return summary


def _pooled(total: multipath.Copies, more: multipath.Copies) -> multipath.Copies:
    """Counts of DATA copies per path and kind, added up over associations."""
    out = {path: dict(counts) for path, counts in total.items()}
    for path, counts in more.items():
        mine = out.setdefault(path, {"first": 0, "again": 0})
        for kind, n in counts.items():
            mine[kind] += n
    return out


def _multipath(run_dir: Path, data: list[AssociationData], per: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """Each association's `multipath` section, HoLB and reordering metrics (from the server's
    captures, when the run has them) and MTT from the schedule; the run's, every association's
    messages pooled."""
    pooled_holb: list[int] = []
    pooled_sched_mtts: list[int] = []
    pooled_arrivals: list[multipath.Arrival] | None = None
    pooled_copies: multipath.Copies | None = None
    for d in data:
        try:
            arrived = multipath.arrivals(run_dir, d.plan, d.client)
            copies: dict[str, multipath.Copies | None] = {
                "arrived": multipath.data_copies(run_dir, d.plan, d.plan.server),
                "sent": multipath.data_copies(run_dir, d.plan, d.plan.client),
            }
        except (captures.CaptureError, ValueError) as e:  # the run's other results stand without it
            arrived, copies, per[d.plan.name]["multipath_error"] = None, {}, str(e)
        holb = multipath.holb_ns(arrived or [])
        stream_of = {t.seq: t.stream for t in d.client.tx}
        mtts = [(stream_of[m.seq], m.mtt_ns) for m in d.messages if m.mtt_ns is not None]
        chosen = dict(sorted(Counter(s.chosen for s in d.client.sched).items()))
        per[d.plan.name]["multipath"] = multipath.association_summary(arrived, holb, [m.path for m in d.messages], mtts,
                                                                      chosen, copies)
        at_server = copies.get("arrived")
        per[d.plan.name]["metrics"] |= multipath.holb_metrics(list(holb.values()), arrived, at_server)
        if arrived is not None and at_server is not None:
            pooled_copies = _pooled(pooled_copies or {}, at_server)
        sched_mtts = multipath.sched_mtt_ns(d.client, d.server)
        per[d.plan.name]["metrics"] |= multipath.sched_mtt_metrics(sched_mtts)
        pooled_sched_mtts += sched_mtts
        if arrived is not None:
            pooled_holb += holb.values()
            # Each association's own sending order: their sequence numbers are apart.
            pooled_arrivals = (pooled_arrivals or []) + arrived
    if len(data) == 1:
        return {k: per[data[0].plan.name]["metrics"][k] for k in multipath.METRIC_KEYS + multipath.SCHED_MTT_KEYS}
    out = multipath.holb_metrics(pooled_holb, pooled_arrivals, pooled_copies)
    out |= multipath.sched_mtt_metrics(pooled_sched_mtts)
    # Reordering pooled: the message-weighted mean of the associations' shares.
    shares = [(per[d.plan.name]["metrics"]["reordered_share"], len(d.client.tx)) for d in data]
    weighted = [(s, n) for s, n in shares if s is not None]
    out["reordered_share"] = sum(s * n for s, n in weighted) / sum(n for _, n in weighted) if weighted and sum(
        n for _, n in weighted) else None
    return out


@dataclass(frozen=True)
class HandoverResult:
    switches: list[handover.Switch]
    changes: int  # times the primary changed
    summary: dict[str, Any]  # the association's `handover` in summary.json
    metrics: dict[str, float | int | None]


def _handover(d: AssociationData, events: list[dict[str, Any]], path_of: dict[str, str], t0: int | None) -> HandoverResult:
    """An association's handovers: its client's primary changes, its policy's switches and
    ping-pong moves of its paths, against its messages; time on each path over its workload."""
    initial = d.plan.paths[0].path if d.plan.paths else ""
    decided = handover.decisions(d.client, events, path_of, d.plan.path_names)
    switches = handover.switches(initial, decided, d.messages)
    changes = handover.primary_changes(initial, decided)
    start = next((int(args) for _, name, args in d.client.events if name == "start" and args.isdigit()),
                 None if t0 is None else t0 + int(d.plan.workload["start_ns"]))
    seconds = {} if start is None else handover.time_on_paths(initial, changes, start, start + int(d.plan.workload["duration_ns"]))
    summary = {
        "switches": [s.to_dict(t0) for s in switches],
        "primary_seconds": seconds,
        "delivered_share": handover.delivered_share(d.messages),
    }
    return HandoverResult(switches, len(changes), summary, handover.handover_metrics(switches, len(changes)))


def _from_captures(run_dir: Path, data: list[AssociationData],
                   backend: results_backend.BackendStatus) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """From the clients' captures, read once: cum_tsn.parquet and what it holds per
    association, and each association's address reconfigurations from request to
    ASCONF-ACK (analysis/asconf.py); each with why it is missing."""
    t0_realtime, t0 = backend.t0_realtime_ns, backend.t0_ns
    if t0_realtime is None or t0 is None:
        missing = "no t0 in backend.json: the run did not get that far"
        return {"associations": {}, "error": missing}, {"associations": {}, "error": missing}, []
    table: list[dict[str, Any]] = []
    reconfigurations: dict[str, list[dict[str, Any]]] = {}
    errors = []
    read_files: dict[Path, list[captures.Packet]] = {}
    where = captures.either(cumtsn.INIT_OR_SACK, asconf.WIRE_FILTER)
    for d in data:
        assoc, ends = d.plan, cumtsn.Ends.of(d.plan)
        requests = [(t - int(t0), ASCONF_KINDS[name][0]) for t, name, _ in d.client.events if name in ASCONF_KINDS]
        try:
            by_path = cumtsn.client_packets(run_dir, assoc, where, read_files)
            if requests:
                reconfigurations[assoc.name] = asconf.completions(requests, asconf.exchanges(ends, by_path, int(t0_realtime)))
            table += cumtsn.rows(assoc.name, ends, by_path, int(t0_realtime))
        except (captures.CaptureError, ValueError) as e:  # the run's other results stand without it
            errors.append(str(e))
    tables.write(run_dir, tables.CUM_TSN, table)
    error = "; ".join(errors) or None
    return {"associations": cumtsn.summary(table), "error": error}, {"associations": reconfigurations, "error": error}, table


# Capture-derived metrics: summed over associations (counts) or averaged (after a switch).
WIRE_COUNTS = ("reordered_chunks", "foreign_source_packets")
WIRE_AFTER_SWITCH = (*cumtsn.ACKED_AFTER_METRICS, "new_path_rate_time_ms")
WIRE_AT = cumtsn.ACKED_AT_METRICS  # summed: the run's chunks acknowledged by then


def _wire(run_dir: Path, data: list[AssociationData], backend: results_backend.BackendStatus, links: list[Link],
          handovers: dict[str, HandoverResult], table: list[dict[str, Any]], per: dict[str, dict[str, Any]],
          run: dict[str, Any]) -> dict[str, Any]:
    """What the captures show around handovers, per association (summary.json's `wire`), and
    its metrics, written into the association's and the run's: reordering at the receiver
    (analysis/reordering.py), packets on a path with another path's source address
    (analysis/sources.py), and after the first primary change the chunks acknowledged at
    +0.5/1/2/4 s and the time to the new path's rate (analysis/cumtsn.py)."""
    t0_realtime, t0 = backend.t0_realtime_ns, backend.t0_ns
    if t0_realtime is None or t0 is None:
        return {"associations": {}, "error": "no t0 in backend.json: the run did not get that far"}
    out: dict[str, Any] = {}
    errors = []
    for d in data:
        name = d.plan.name
        try:
            found = sources.foreign_sources(run_dir, d.plan, int(t0_realtime))
            arrived = reordering.count(reordering.server_arrivals(run_dir, d.plan), int(t0_realtime))
        except captures.CaptureError as e:  # the run's other results stand without it
            errors.append(str(e))
            continue
        figures: dict[str, Any] = {"reordered_chunks": arrived.out_of_order, "foreign_source_packets": len(found)}
        entry: dict[str, Any] = {"sources": sources.summary(found), "reordering": arrived.to_dict()}
        figures |= _acked_at(d, table, int(t0))
        first = next((s for s in handovers[name].switches if s.from_path is not None and s.from_path != s.to), None)
        if first is not None:
            curve, at = cumtsn.held(table, name), first.t_ns - int(t0)
            figures |= dict(zip(cumtsn.ACKED_AFTER_METRICS, cumtsn.acked_after(curve, at), strict=True))
            rate = _chunks_per_s(links, d.plan, first.to)
            took = cumtsn.time_to_rate(curve, at, rate) if rate else None
            figures["new_path_rate_time_ms"] = None if took is None else took / 1e6
            entry["switch"] = {"t_rel_s": at / 1e9, "to": first.to, "new_path_chunks_per_s": rate}
        per[name]["metrics"] |= figures
        out[name] = entry | {"metrics": figures}
    own = [a["metrics"] for a in out.values()]
    for key in WIRE_COUNTS:
        run[key] = sum(m[key] for m in own) if own else None
    for key in WIRE_AFTER_SWITCH:
        values = [m[key] for m in own if m.get(key) is not None]
        run[key] = sum(values) / len(values) if values else None
    for key in WIRE_AT:  # a sum over only some associations would read as the run's: None unless all have it
        values = [m.get(key) for m in own]
        run[key] = sum(v for v in values if v is not None) if own and None not in values else None
    return {"associations": out, "error": "; ".join(errors) or None}


STARTUP_METRICS = ("startup_mtt_mean_ms", "startup_mmtt_ms", "startup_model_mtt_mean_ms", "startup_model_mmtt_ms",
                   "startup_model_error_share")


def _startup(d: AssociationData, links: list[Link], events: list[dict[str, Any]], kernel: dict[str, Any],
             h: HandoverResult) -> tuple[dict[str, float | None], dict[str, Any] | None]:
    """The messages generated from a path switch's cause (the failure of the path in use, or
    the first primary change) to startup.WINDOW_NS after it: their measured MTT mean and
    maximum, and the startup model's for the same messages on the path switched to, with the
    window the client's kernel starts it with (net.sctp.initial_cwnd_mtus read back). A
    failover's switch is the client's detection (new data moves then); a primary change's is
    the change itself."""
    none: dict[str, float | None] = dict.fromkeys(STARTUP_METRICS)
    failure = _failure(d.plan, events, d.messages)
    changes = [(c.t_ns, c.addr, c.state) for c in d.client.addr]
    first = next((s for s in h.switches if s.from_path is not None and s.from_path != s.to), None)
    if failure is not None:
        detected = metrics.detection_ns(failure, changes)
        to = next((p.path for p in d.plan.paths if p.path != failure.path), None)
        if detected is None or to is None:
            return none, None
        cause, start, switch, scenario = failure.applied_ns, failure.applied_ns, failure.applied_ns + detected, "failover"
    elif first is not None:
        cause, start, switch, to, scenario = first.t_ns, first.t_ns, first.t_ns, first.to, "primary change"
    else:
        return none, None
    window = [m for m in d.messages if start <= m.t_gen_ns < start + startup.WINDOW_NS]
    link = next((x for x in links if x.path == to), None)
    if not window or link is None:
        return none, None
    way = load.direction_from(link, d.plan.client)
    back = "reverse" if way == "forward" else "forward"
    rate = link.shaping[way].get("rate")
    path = startup.Path(float(link.shaping[way].get("delay") or 0) / 1e6, float(link.shaping[back].get("delay") or 0) / 1e6,
                        float(rate) if rate else None)
    mtu = next((s.mtu for s in reversed(d.client.path) if s.mtu), startup.DEFAULT_MTU)
    mtus = str(kernel.get("sysctl", {}).get(d.plan.client, {}).get("initial_cwnd_mtus", "0"))
    cwnd = startup.initial_cwnd_bytes(int(mtus) if mtus.isdigit() else 0, mtu)
    size = int(d.plan.workload["size"])
    messages = [startup.Message((m.t_gen_ns - cause) / 1e6, size, schedule.wire_bytes(size)) for m in window]
    prediction = startup.predict(path, startup.Startup(cwnd, mtu), messages, (switch - cause) / 1e6)
    mtts = [m.mtt_ns / 1e6 for m in window if m.mtt_ns is not None]
    measured = sum(mtts) / len(mtts) if mtts else None
    figures: dict[str, float | None] = {
        "startup_mtt_mean_ms": measured, "startup_mmtt_ms": max(mtts) if mtts else None,
        "startup_model_mtt_mean_ms": prediction.mtt_mean_ms, "startup_model_mmtt_ms": prediction.mmtt_ms,
        "startup_model_error_share": None if measured is None else abs(measured - prediction.mtt_mean_ms) / prediction.mtt_mean_ms,
    }
    model = prediction.to_dict() | {"scenario": scenario, "path": to, "window_s": startup.WINDOW_NS / 1e9,
                                    "forward_ms": path.forward_ms, "return_ms": path.return_ms, "rate_bps": path.rate_bps,
                                    "mtu_bytes": mtu, "message_bytes": size, "undelivered": len(window) - len(mtts)}
    return figures, model


def _acked_at(d: AssociationData, table: list[dict[str, Any]], t0: int) -> dict[str, int | None]:
    """An association's chunks acknowledged at fixed times after its workload's start (the
    client's `start` record, else the plan's start), None past its workload's end."""
    start = next((int(args) - t0 for _, name, args in d.client.events if name == "start" and args.isdigit()),
                 int(d.plan.workload["start_ns"]))
    end = start + int(d.plan.workload["duration_ns"])
    return dict(zip(cumtsn.ACKED_AT_METRICS, cumtsn.acked_at(cumtsn.held(table, d.plan.name), start, end), strict=True))


def _chunks_per_s(links: list[Link], assoc: Association, path: str) -> float | None:
    """The DATA chunks per second a path's configured rate carries from the client, one
    message per packet; None where the path has no rate."""
    link = next((x for x in links if x.path == path), None)
    rate = link.shaping[load.direction_from(link, assoc.client)].get("rate") if link else None
    return float(rate) / 8 / schedule.wire_bytes(int(assoc.workload["size"])) if rate else None


def _frames(run_dir: Path, data: list[AssociationData], t0: int | None) -> dict[str, dict[str, Any]]:
    """frames.parquet for the video associations; their frame metrics by association."""
    rows: list[dict[str, Any]] = []
    out: dict[str, dict[str, Any]] = {}
    for d in data:
        file = run_dir / d.plan.schedule if d.plan.schedule else None
        if d.plan.workload.get("type") != "video" or file is None or not file.exists():
            continue
        arrived = {r["seq"]: r["t_rx_ns"] for r in d.rows}
        sent = [frames.Sent(tx.seq, tx.t_sched_ns, arrived.get(tx.seq)) for tx in d.client.tx]
        deadline = int(d.plan.workload["deadline_ns"])
        mine = frames.frame_rows(schedule.parse(file.read_text()), sent, deadline, d.plan.name, t0)
        out[d.plan.name] = frames.frame_metrics(mine, deadline)
        rows += mine
    if out:
        tables.write(run_dir, tables.FRAMES, rows)
    return out


def _offered(d: AssociationData, links: list[Link]) -> load.Offered | None:
    """What the client sent, on the wire, over its duration, on its first path."""
    if not d.plan.paths:
        return None
    link = next(x for x in links if x.path == d.plan.paths[0].path)
    sent = sum(schedule.wire_bytes(tx.size) for tx in d.client.tx)
    seconds = int(d.plan.workload["duration_ns"]) / 1e9
    return load.Offered(d.plan.name, link.path, load.direction_from(link, d.plan.client), sent * 8 / seconds)


def _background(plan: Plan, traffic: dict[str, Any]) -> list[load.Offered]:
    """The UDP flows' measured load on their paths (TCP takes what it can: no offered load)."""
    out = []
    for flow in plan.traffic:
        figures = traffic.get(flow.name) or {}
        if flow.kind == "udp" and figures.get("offered_bps") is not None:
            link = next(x for x in plan.links if x.path == flow.path)
            out.append(load.Offered(flow.name, flow.path, load.direction_from(link, flow.client), figures["offered_bps"]))
    return out


def _association_summary(d: AssociationData, links: list[Link], events: list[dict[str, Any]], kernel: dict[str, Any],
                         hz: int | None) -> dict[str, Any]:
    """One association's metrics, against the failure of the path it was using."""
    failure = _failure(d.plan, events, d.messages)
    changes = [(c.t_ns, c.addr, c.state) for c in d.client.addr]
    model = _detection_model(d, links, failure, _pf_on(kernel, d.plan.client), hz,
                             metrics.backoff_pct(kernel.get("sysctl", {}).get(d.plan.client, {})))
    return {
        "client": d.plan.client,
        "server": d.plan.server,
        "paths": d.plan.path_names,
        "failure": failure.path if failure else None,
        "metrics": metrics.run_metrics(d.messages, len(d.client.tx), failure, changes),
        "detection_model": None if model is None else {
            "rto_at_failure_ms": model.rto_ms, "rto_max_ms": model.rto_max_ms,
            "path_max_retrans": model.path_max_retrans, "rtt_ms": model.rtt_ms, "sack_delay_ms": model.sack_delay_ms,
            "message_interval_ms": model.message_interval_ms, "model_ms": model.model_ms, "bound_ms": model.bound_ms,
            "backoff_pct": model.backoff_pct,
            "pf_retrans": model.pf_retrans, "pf_model_ms": model.pf_model_ms, "pf_bound_ms": model.pf_bound_ms,
        },
        "peers_seen": d.client.peers,
        "paths_used": sorted({m.path for m in d.messages if m.path}),
    }


def _summary_model(per: dict[str, dict[str, Any]], run: dict[str, Any]) -> dict[str, Any] | None:
    """The detection model of the association the run's detection time comes from."""
    with_model = [a for a in per.values() if a["detection_model"] is not None]
    slowest = [a for a in with_model if a["metrics"].get("detection_time_ms") == run.get("detection_time_ms")]
    chosen = slowest or with_model
    return chosen[0]["detection_model"] if chosen else None


def _selfcheck(plan: Plan, data: list[AssociationData], events: list[dict[str, Any]]) -> selfcheck.Result:
    """The timing self-check's inputs from the plan, the clients' records and the timeline.

    Lateness pools every client's messages. The delay check is per path and direction of
    each association; with several associations a path is named ASSOC/PATH there."""
    several = len(data) > 1
    pairs: list[tuple[int, int]] = []
    paths: list[selfcheck.PathDelay] = []
    deliveries: list[selfcheck.Delivery] = []
    for d in data:
        w = d.plan.workload
        pairs += _schedule_pairs(d.client, w)
        own = _selfcheck_workload(d.plan)
        for link in plan.links:
            if link.path in d.plan.path_names:
                direction = "forward" if link.a.host == d.plan.client else "reverse"
                values = link.shaping[direction]
                name = f"{d.plan.name}/{link.path}" if several else link.path
                paths.append(selfcheck.PathDelay(name, direction, values["delay"], values.get("jitter") or 0, values.get("rate"),
                                                 family=link.family, workload=own if several else None,
                                                 association=d.plan.name,
                                                 shared_bps=_shared_bps(plan, link, direction, d.plan.name)))
        deliveries += [selfcheck.Delivery(f"{d.plan.name}/{r['path']}" if several and r["path"] else r["path"], r["t_rx_ns"],
                                          r["mtt_ns"], d.plan.name) for r in d.rows]
    workload = _selfcheck_workload(data[0].plan) if data else selfcheck.Workload("periodic", 0.0, 0, nagle=False)
    return selfcheck.evaluate(selfcheck.Tolerances.from_dict(plan.selfcheck), pairs, events, paths, deliveries, workload)


def _rtt_ms(links: list[Link], assoc: Association) -> float | None:
    """The round trip the association's first path is shaped to (both directions' delays)."""
    link = next((x for x in links if assoc.path_names and x.path == assoc.path_names[0]), None)
    if link is None:
        return None
    return sum(float(link.shaping[d].get("delay") or 0) for d in ("forward", "reverse")) / 1e6


def _shared_bps(plan: Plan, link: Link, direction: str, association: str) -> float:
    """What the other senders on a path and direction offer, as planned (analysis/load.py
    counts what they sent): associations starting on it, UDP flows; a TCP flow fills it."""
    total = 0.0
    for a in plan.associations:
        if a.name != association and a.paths and a.paths[0].path == link.path \
                and load.direction_from(link, a.client) == direction:
            w = _selfcheck_workload(a)
            total += math.inf if w.arrival == "saturate" else selfcheck.offered_bps(w.size, w.rate, link.family)
    for flow in plan.traffic:
        if flow.path == link.path and load.direction_from(link, flow.client) == direction:
            total += math.inf if flow.kind == "tcp" else float(flow.params["offered_bps"])
    return total


def _selfcheck_workload(assoc: Association) -> selfcheck.Workload:
    w = assoc.workload
    return selfcheck.Workload(w["arrival"], w["rate"], w["size"], nagle=assoc.sctp.get("nodelay") is not True)


def _schedule_pairs(client: records.Records, w: dict[str, Any]) -> list[tuple[int, int]]:
    """(generated, scheduled) per message of one client."""
    t0 = next((int(args) for _, name, args in client.events if name == "start" and args.isdigit()), None)
    pairs = []
    for tx in client.tx:
        sched = tx.t_sched_ns
        if sched is None and t0 is not None and w["arrival"] == "periodic":  # records from before T_SCHED
            sched = selfcheck.periodic_schedule(tx.seq, t0, w["rate"])
        if sched is not None:
            pairs.append((tx.t_gen_ns, sched))
    return pairs


def _failure(assoc: Association, events: list[dict[str, Any]], messages: list[metrics.Message]) -> metrics.Failure | None:
    """The first fail or down of the association's path in use: the one the last delivery before it took."""
    # A dual-stack path's first (IPv4) SCTP path is the one the association uses on it.
    peers = {a.path: a.server_address for a in reversed(assoc.paths)}
    for e in events:
        if e["kind"] not in ("fail", "down") or e["target"] not in peers:
            continue
        before = [(m.t_rx_ns, m.path) for m in messages if m.t_rx_ns is not None and m.t_rx_ns < e["applied_ns"]]
        in_use = max(before, key=lambda tp: tp[0])[1] if before else assoc.paths[0].path
        if e["target"] == in_use:
            return metrics.Failure(e["target"], e["applied_ns"], peers[e["target"]])
    return None


def _timeouts_note(d: AssociationData, events: list[dict[str, Any]], kernel: dict[str, Any]) -> tuple[str, str, str] | None:
    """More timeouts than PMR + 1 before the failed path was declared unreachable (analysis/strikes.py)."""
    failure = _failure(d.plan, events, d.messages)
    try:
        rto_max, pmr = float(d.client.params["rto_max_ms"]), int(d.client.params["path_max_retrans"])
    except (KeyError, ValueError):
        return None
    if failure is None:
        return None
    unreachable = next((c.t_ns for c in d.client.addr
                        if c.addr == failure.peer_address and c.state == "ADDR_UNREACHABLE" and c.t_ns >= failure.applied_ns), None)
    samples = [(s.t_ns, float(s.rto_ms)) for s in d.client.path if s.addr == failure.peer_address]
    backoff = metrics.backoff_pct(kernel.get("sysctl", {}).get(d.plan.client, {}))
    found = strikes.count(failure.path, samples, failure.applied_ns, unreachable, rto_max, backoff)
    sack = d.server.params.get("sack_delay_ms")
    return strikes.note(d.plan.name, found, pmr, float(sack) if sack and sack.replace(".", "", 1).isdigit() else None)


def _pf_on(kernel: dict[str, Any], client_host: str) -> bool:
    """PF as the client's namespace had it, read back (net.sctp.pf_enable)."""
    return str(kernel.get("sysctl", {}).get(client_host, {}).get("pf_enable", "0")) == "1"


def _detection_model(d: AssociationData, links: list[Link], failure: metrics.Failure | None, pf_on: bool,
                     hz: int | None, backoff: int = metrics.DOUBLING_PCT) -> metrics.DetectionModel | None:
    """The model with the RTO in force at the failure, as the client's path samples show it,
    and PF's threshold as the association read it back."""
    if failure is None:
        return None
    client, server = d.client, d.server
    before = [s for s in client.path if s.addr == failure.peer_address and s.t_ns <= failure.applied_ns]
    try:
        rto_max = int(client.params["rto_max_ms"])
        pmr = int(client.params["path_max_retrans"])
        sack_delay = float(server.params.get("sack_delay_ms", "0"))
    except (KeyError, ValueError):
        return None
    if not before:
        return None
    link = next(link for link in links if link.path == failure.path)
    rtt_ms = sum(link.shaping[way]["delay"] for way in ("forward", "reverse")) / 1e6
    pf_retrans = client.params.get("pf_retrans", "")
    return metrics.DetectionModel(
        pf_retrans=int(pf_retrans) if pf_on and pf_retrans.isdigit() else None, hz=int(hz or 1000), backoff_pct=backoff,
        rto_ms=before[-1].rto_ms, rto_max_ms=rto_max, path_max_retrans=pmr, rtt_ms=rtt_ms,
        sack_delay_ms=sack_delay,
        # a saturating sender always has data: no wait for the next message
        message_interval_ms=0.0 if d.plan.workload["arrival"] == "saturate" or not d.plan.workload["rate"]
        else 1000.0 / d.plan.workload["rate"],
    )
