"""Follow a run folder's records as the agents append them, and turn them into points.

The same reader serves the live stream (polled while the run goes) and `push` (one pass
over finished files), so both produce the same points with the same identities. Rows come
from the local store's own row builders: InfluxDB holds exactly what the store holds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.analysis import store
from sctpbench.collectors import records
from sctpbench.plan.data import Association, Plan
from sctpbench.results import backend as results_backend
from sctpbench.results import campaign as results_campaign
from sctpbench.results import events as results_events
from sctpbench.results import kernel as results_kernel
from sctpbench.results import plan as results_plan
from sctpbench.results import summary as results_summary
from sctpbench.results import tables as results_tables
from sctpbench.results.jsonfile import ResultsFileError
from sctpbench.telemetry import points


class Tail:
    """The complete lines appended to a file since the last read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.partial = b""

    def lines(self) -> list[str]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(chunk)
        data = self.partial + chunk
        end = data.rfind(b"\n") + 1
        self.partial = data[end:]
        return data[:end].decode(errors="replace").splitlines(keepends=True)


def run_tags(run_dir: Path, plan: Plan) -> points.RunTags:
    """Tags from the plan and the folder: a session's or campaign's folder names the campaign
    (<session>/run-001, <campaign>/runs/<key>), so a later push tags exactly as the live run did.
    A campaign's run also gets its configuration's label, from the campaign's runs.jsonl
    (written when the run was started, before its guest boots)."""
    resolved = run_dir.resolve()
    parent = resolved.parent
    in_campaign = parent.name == "runs"
    return points.RunTags(
        experiment=plan.experiment, campaign=parent.parent.name if in_campaign else parent.name, run=plan.run_id,
        repetition=plan.repetition, association=points.ALL_ASSOCIATIONS,  # rows name their own association
        config=results_campaign.config_of(parent.parent, resolved.name) if in_campaign else "",
    )


@dataclass
class RunSource:
    """Incremental: call poll() as often as wanted, finish() once the run is over."""

    run_dir: Path
    plan: Plan | None = None
    tags: points.RunTags | None = None
    clock: points.Clock | None = None
    stamper: points.Stamper = field(default_factory=points.Stamper)
    # Per association: messages waiting for their other half, by seq.
    pending_tx: dict[str, dict[int, tuple[records.Tx, int]]] = field(default_factory=dict)
    pending_rx: dict[str, dict[int, records.Rx]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(points.MEASUREMENTS, 0))
    delivered_wall_ns: list[int] = field(default_factory=list)
    path_of: dict[str, str] = field(default_factory=dict)
    rel: store.Relative = store.relative_to(None)
    _tails: dict[str, Tail] = field(default_factory=dict)
    _hz: int | None = None
    _finished: bool = False

    def ready(self) -> bool:
        """Points need the plan, the kernel's HZ and the clock anchor written at t0."""
        if self.clock is not None:
            return True
        try:
            backend = results_backend.read(self.run_dir)
            kernel = results_kernel.read_kernel(self.run_dir)
        except ResultsFileError:  # being written by the backend: read again at the next poll
            return False
        if backend is None or backend.t0_ns is None or backend.t0_realtime_ns is None or not results_plan.exists(self.run_dir):
            return False
        self.plan = results_plan.read(self.run_dir)
        self.tags = run_tags(self.run_dir, self.plan)
        self._hz = kernel.hz if kernel else None
        self.clock = points.Clock(backend.t0_ns, backend.t0_realtime_ns)
        self.path_of = store.path_names(self.plan)
        self.rel = store.relative_to(backend.t0_ns)
        for a in self.plan.associations:
            self._tails[a.client_agent] = Tail(self.run_dir / a.client_records)
            self._tails[a.server_agent] = Tail(self.run_dir / a.server_records)
            self.pending_tx[a.name], self.pending_rx[a.name] = {}, {}
        self._tails["events"] = Tail(self.run_dir / results_events.NAME)  # results_events.parse_line reads its lines
        return True

    def poll(self) -> list[points.Point]:
        """Points for everything appended since the last poll (messages once delivered)."""
        if not self.ready():
            return []
        out: list[points.Point] = []
        for e in (results_events.parse_line(line, self.run_dir) for line in self._tails["events"].lines() if line.strip()):
            out.append(self._event(store.timeline_event_row(e, self.path_of, self.rel)))
        assert self.plan
        for a in self.plan.associations:
            out += self._association(a)
        return out

    def _association(self, a: Association) -> list[points.Point]:
        """One association's new records as points; its messages once both halves are in."""
        assert self.clock
        out: list[points.Point] = []
        client = records.parse(self._tails[a.client_agent].lines())
        server = records.parse(self._tails[a.server_agent].lines())
        for endpoint, rec in (("client", client), ("server", server)):
            out += [self._event(store.addr_event_row(endpoint, c, self.path_of, self.rel, a.name)) for c in rec.addr]
            out += [self._event(row) for row in store.agent_event_rows(endpoint, rec, self.path_of, self.rel, a.name)]
            out += [self._sample(store.sample_row(endpoint, s, self.path_of, self.rel, self._hz, a.name)) for s in rec.path]
        out += [p for d in client.policy for p in self._policy(d, a.name)]
        pending_tx, pending_rx = self.pending_tx[a.name], self.pending_rx[a.name]
        for tx in client.tx:
            t = self.stamper.stamp(points.message_series(a.name), self.clock.wall(tx.t_gen_ns))
            rx = pending_rx.pop(tx.seq, None)
            if rx is None:
                pending_tx[tx.seq] = (tx, t)
            else:
                out.append(self._message(tx, rx, t, a.name))
        for rx in server.rx:
            waiting = pending_tx.pop(rx.seq, None)
            if waiting is None:
                pending_rx[rx.seq] = rx
            else:
                out.append(self._message(waiting[0], rx, waiting[1], a.name))
        return out

    def finish(self) -> list[points.Point]:
        """After the run: the rest, the messages never delivered, and the run's summary."""
        if self._finished or not self.ready():
            return []
        self._finished = True
        out = self.poll()
        for name, pending in self.pending_tx.items():
            out += [self._message(tx, None, t, name) for tx, t in sorted(pending.values(), key=lambda p: p[0].seq)]
            pending.clear()
        out += self._tcp_throughput()
        out += self._cum_tsn()
        summary = results_summary.read_document(self.run_dir)
        if summary and "metrics" in summary:
            assert self.clock and self.tags
            run = points.run_points(summary, self.tags, self.clock.t0_realtime_ns)
            out += run
            self.counts["sctp_run"] += len(run)
            out += self._handovers(summary)
        return out

    def _count(self, measurement: str, pts: list[points.Point]) -> list[points.Point]:
        if pts:
            self.counts[measurement] = self.counts.get(measurement, 0) + len(pts)
        return pts

    def _policy(self, decision: records.PolicyDecision, association: str) -> list[points.Point]:
        """A policy decision as it is recorded, one point per input path (live)."""
        assert self.tags and self.clock
        pts = [dataclasses.replace(p, time_ns=self.stamper.stamp((points.POLICY, association, p.tags["path"]), p.time_ns))
               for p in points.policy_points(decision, self.path_of, self.tags, association, self.clock.wall(decision.t_ns))]
        return self._count(points.POLICY, pts)

    def _handovers(self, summary: dict[str, Any]) -> list[points.Point]:
        """The handovers the store found (summary.json), each at its decision's moment."""
        assert self.tags and self.clock
        pts = []
        for s in (summary.get("handover") or {}).get("switches", []):
            if s.get("t_rel_s") is None:
                continue
            t = self.stamper.stamp((points.HANDOVER, s["association"]),
                                   self.clock.t0_realtime_ns + round(float(s["t_rel_s"]) * 1e9))
            pts.append(points.handover_point(s, self.tags, t))
        return self._count(points.HANDOVER, pts)

    def _cum_tsn(self) -> list[points.Point]:
        """Every SACK's cumulative TSN ack from the store's table (the captures are read after the run)."""
        table = results_tables.read_optional(self.run_dir, results_tables.CUM_TSN)
        if table is None:
            return []
        assert self.tags and self.clock
        pts = [points.cum_tsn_point(r, self.tags, self.stamper.stamp((points.CUM_TSN, r["association"], r["path"]),
                                                                      self.clock.t0_realtime_ns + r["t_rel_ns"]))
               for r in table if r["t_rel_ns"] is not None]
        return self._count(points.CUM_TSN, pts)

    def _tcp_throughput(self) -> list[points.Point]:
        """Competing TCP flows' samples, from the store's table (iperf3 writes only at its end)."""
        table = results_tables.read_optional(self.run_dir, results_tables.TCP_THROUGHPUT)
        if table is None:
            return []
        assert self.tags and self.clock
        rows = [r for r in table if r["t_ns"] is not None]
        out = [points.tcp_throughput_point(r, self.tags, self.stamper.stamp((points.TCP_THROUGHPUT, r["flow"]),
                                                                             self.clock.wall(r["t_ns"]))) for r in rows]
        if out:
            self.counts[points.TCP_THROUGHPUT] = self.counts.get(points.TCP_THROUGHPUT, 0) + len(out)
        return out

    def take_deliveries(self) -> list[int]:
        """Wall-clock delivery times of the messages emitted since the last call (live lag)."""
        taken, self.delivered_wall_ns = self.delivered_wall_ns, []
        return taken

    def _message(self, tx: records.Tx, rx: records.Rx | None, t: int, association: str) -> points.Point:
        assert self.tags and self.clock
        self.counts["sctp_message"] += 1
        if rx is not None:
            self.delivered_wall_ns.append(self.clock.wall(rx.t_rx_ns))
        return points.message_point(store.message_row(tx, rx, self.path_of, self.rel, association), self.tags, t)

    def _sample(self, row: dict[str, Any]) -> points.Point:
        assert self.tags and self.clock
        self.counts["sctp_path"] += 1
        return points.sample_point(row, self.tags, self.stamper.stamp(points.sample_series(row), self.clock.wall(row["t_ns"])))

    def _event(self, row: dict[str, Any]) -> points.Point:
        assert self.tags and self.clock
        self.counts["sctp_event"] += 1
        return points.event_point(row, self.tags, self.stamper.stamp(points.event_series(row), self.clock.wall(row["t_ns"])))
