"""InfluxDB points from the local store's rows, with identities that never change.

A point's identity in InfluxDB is its measurement, tag set and timestamp: writing the same
identity again overwrites the fields instead of adding a point. Every point here gets its
identity from the run's records alone (tags from the plan, time from the agents' clock
mapped to wall-clock time through the anchor the backend recorded at t0), so a live write,
a retry and a later `sctpbench push` all land on the same points and never duplicate one.

Measurements (one per local-store table, plus the run's summary):
  sctp_message  messages.parquet     tags …, path (arrival path, "none" if lost)
                                     fields mtt_ms, size, stream, seq, delivered
  sctp_path     path_samples.parquet tags …, endpoint, path
                                     fields state, state_code, cwnd, srtt_ms, rto_ms, mtu, primary
  sctp_event    path_events.parquet  tags …, source (timeline|client|server), kind, path
                                     fields detail, addr, title
  sctp_run      summary.json         tags …, status (ok, disturbed, failed); fields: the run's
                                     metrics, the detection model, the timing self-check's
                                     figures (selfcheck_lateness_p50_ms, _p99_ms, _max_ms,
                                     selfcheck_event_lag_max_ms, selfcheck_delay_excess_ms,
                                     selfcheck_reasons), seed, clock (virtual, paced, real)
  tcp_throughput  tcp_throughput.parquet  tags …, flow (a competing TCP flow, traffic:), only
                                     in runs with one; fields bits_per_second, bytes, retransmits,
                                     snd_cwnd, rtt_ms; sent after the run (iperf3 reports at its end)
  sctp_policy   the client's policy records  tags …, path (an input's path), decision; one point
                                     per decision and input path, fields state, state_code,
                                     srtt_ms, rto_ms, cwnd, short_ms, long_ms, signal_dbm (the
                                     inputs), chosen (this path is the candidate), candidate,
                                     before, after (paths), reason, title; live
  sctp_handover summary.json's handover switches  tags …, cause, path (the path handed over
                                     to); fields from_path, to_path, delay_ms, mtt_mean_ms, mmtt_ms,
                                     messages, undelivered, title; at the decision's time, sent
                                     after the run (a delay needs the messages after it)
  sctp_cum_tsn  cum_tsn.parquet      tags …, path (the SACK's arrival path); field cum_tsn_ack,
                                     only in runs with captures; sent after the run (the
                                     captures are read when the run has ended)
where … is experiment, campaign, run, repetition, association: the association's name for
its messages, samples, path notifications and its own sctp_run point; `all` for timeline
events (a path may carry several associations) and the sctp_run point of the run's
metrics across its associations; and, for a campaign's runs, config: the campaign
configuration's label (its swept values, e.g. "sctp.path_max_retrans=2"; absent outside a
campaign).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from sctpbench.analysis import selfcheck
from sctpbench.collectors import records

MEASUREMENTS = ("sctp_message", "sctp_path", "sctp_event", "sctp_run")
# Not in MEASUREMENTS, which every run has: competing TCP flows' iperf3 intervals, a
# policy's decisions, the handovers, and the cumulative TSN (runs with captures).
TCP_THROUGHPUT = "tcp_throughput"
POLICY = "sctp_policy"
HANDOVER = "sctp_handover"
CUM_TSN = "sctp_cum_tsn"
# The association tag of what belongs to the whole run (the spec refuses it as an association's name).
ALL_ASSOCIATIONS = "all"

# Numeric path states for Grafana's state timeline: higher is healthier.
STATE_CODES = {"ACTIVE": 3, "UNCONFIRMED": 2, "PF": 1, "INACTIVE": 0, "UNKNOWN": -1}


@dataclass(frozen=True)
class RunTags:
    experiment: str
    campaign: str
    run: str
    repetition: int
    association: str
    config: str = ""  # a campaign configuration's label; outside a campaign none (no tag)

    @functools.cached_property
    def _tags(self) -> dict[str, str]:
        tags = {"experiment": self.experiment, "campaign": self.campaign, "run": self.run,
                "repetition": str(self.repetition), "association": self.association}
        return tags | ({"config": self.config} if self.config else {})

    def as_dict(self) -> dict[str, str]:
        return dict(self._tags)


@dataclass(frozen=True)
class Point:
    measurement: str
    tags: dict[str, str]
    fields: dict[str, Any]
    time_ns: int

    def line(self) -> str:
        """InfluxDB line protocol; tags sorted, as the server stores them."""
        fields = ",".join(f"{_escape_key(k)}={_field_value(v)}" for k, v in self.fields.items() if v is not None)
        return f"{_series_key(self.measurement, tuple(sorted(self.tags.items())))} {fields} {self.time_ns}"


@functools.lru_cache(maxsize=4096)
def _series_key(measurement: str, tags: tuple[tuple[str, str], ...]) -> str:
    # A run has a handful of series and many points each: encode each series once.
    return _escape_measurement(measurement) + "".join(f",{_escape_key(k)}={_escape_key(v)}" for k, v in tags if v != "")


def _escape_measurement(s: str) -> str:
    return s.replace("\\", "\\\\").replace(",", "\\,").replace(" ", "\\ ")


def _escape_key(s: str) -> str:
    return _escape_measurement(s).replace("=", "\\=")


def _field_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v}i"
    if isinstance(v, float):
        return repr(v)
    text = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


@dataclass(frozen=True)
class Clock:
    """The agents' CLOCK_MONOTONIC mapped to wall-clock nanoseconds through t0."""

    t0_ns: int
    t0_realtime_ns: int

    def wall(self, monotonic_ns: int) -> int:
        return self.t0_realtime_ns + (monotonic_ns - self.t0_ns)


@dataclass
class Stamper:
    """Unique timestamps within a series: two points at one nanosecond would be one point.

    Fed in record-file order, which is the same live and afterwards, so the nudge
    (one nanosecond later than the previous point of the series) is the same too.
    """

    last: dict[tuple[str, ...], int] = field(default_factory=dict)

    def stamp(self, series: tuple[str, ...], t_ns: int) -> int:
        previous = self.last.get(series)
        t = t_ns if previous is None or t_ns > previous else previous + 1
        self.last[series] = t
        return t


def message_point(row: dict[str, Any], tags: RunTags, time_ns: int) -> Point:
    delivered = row["t_rx_ns"] is not None
    return Point(
        "sctp_message", _tags(row, tags) | {"path": row["path"] or "none"},
        {"mtt_ms": row["mtt_ns"] / 1e6 if delivered else None, "size": row["size"], "stream": row["stream"],
         "seq": row["seq"], "delivered": delivered},
        time_ns,
    )


def sample_point(row: dict[str, Any], tags: RunTags, time_ns: int) -> Point:
    return Point(
        "sctp_path", _tags(row, tags) | {"endpoint": row["endpoint"], "path": row["path"] or row["addr"]},
        {"state": row["state"], "state_code": STATE_CODES.get(row["state"], -1), "cwnd": row["cwnd"],
         "srtt_ms": row["srtt_ms"], "rto_ms": row["rto_ms"], "mtu": row["mtu"], "primary": row["primary"]},
        time_ns,
    )


def event_point(row: dict[str, Any], tags: RunTags, time_ns: int) -> Point:
    where = row["path"] or row["addr"] or ""
    return Point(
        "sctp_event", _tags(row, tags) | {"source": row["source"], "kind": row["kind"], "path": row["path"] or "none"},
        {"title": f"{row['source']}: {row['kind']} {where}".strip(), "detail": row["detail"], "addr": row["addr"]},
        time_ns,
    )


def tcp_throughput_point(row: dict[str, Any], tags: RunTags, time_ns: int) -> Point:
    """One iperf3 interval of a competing flow; its association tag is `all` (a flow is no association's)."""
    return Point(
        TCP_THROUGHPUT, tags.as_dict() | {"flow": row["flow"]},
        {"bits_per_second": row["bits_per_second"], "bytes": row["bytes"], "retransmits": row["retransmits"],
         "snd_cwnd": row["snd_cwnd"], "rtt_ms": row["rtt_ms"]},
        time_ns,
    )


def policy_points(decision: records.PolicyDecision, path_of: dict[str, str], tags: RunTags, association: str,
                  time_ns: int) -> list[Point]:
    """A policy's decision as one point per input path: what it saw of each path, and what it chose."""
    def name(addr: str) -> str:
        return path_of.get(addr, addr)

    title = f"{decision.decision} {name(decision.before)} -> {name(decision.after)}: {decision.reason}"
    out = []
    for i in decision.inputs():
        out.append(Point(
            POLICY, tags.as_dict() | {"association": association, "path": name(i.addr), "decision": decision.decision},
            {"state": i.state, "state_code": STATE_CODES.get(i.state, -1), "srtt_ms": i.srtt_ms, "rto_ms": i.rto_ms,
             "cwnd": i.cwnd, "short_ms": i.short_ms, "long_ms": i.long_ms, "signal_dbm": i.signal_dbm,
             "chosen": i.addr == decision.candidate, "candidate": name(decision.candidate), "before": name(decision.before),
             "after": name(decision.after), "reason": decision.reason, "title": title},
            time_ns))
    return out


def handover_point(switch: dict[str, Any], tags: RunTags, time_ns: int) -> Point:
    """One handover of summary.json's `handover.switches`, at its decision's moment."""
    delay = switch.get("delay_ms")
    said = "never delivered on it" if delay is None else f"{delay:.1f} ms"
    return Point(
        HANDOVER, tags.as_dict() | {"association": switch["association"], "cause": switch["cause"], "path": switch["to"]},
        {"from_path": switch.get("from") or "", "to_path": switch["to"], "delay_ms": delay,
         "mtt_mean_ms": switch.get("mtt_mean_ms"), "mmtt_ms": switch.get("mmtt_ms"), "messages": switch.get("messages"),
         "undelivered": switch.get("undelivered"),
         "title": f"{switch['association']}: {switch.get('from') or '?'} -> {switch['to']} ({switch['cause']}), {said}"},
        time_ns,
    )


def cum_tsn_point(row: dict[str, Any], tags: RunTags, time_ns: int) -> Point:
    """One SACK the client received: the cumulative TSN acknowledged, counted from the initial TSN."""
    return Point(CUM_TSN, _tags(row, tags) | {"path": str(row["path"] or "none")}, {"cum_tsn_ack": int(row["cum_tsn_ack"])},
                 time_ns)


def _tags(row: dict[str, Any], tags: RunTags) -> dict[str, str]:
    return tags.as_dict() | {"association": row.get("association") or tags.association}


def sample_series(row: dict[str, Any]) -> tuple[str, ...]:
    return ("sctp_path", row.get("association") or "", row["endpoint"], row["path"] or row["addr"])


def event_series(row: dict[str, Any]) -> tuple[str, ...]:
    return ("sctp_event", row.get("association") or "", row["source"], row["kind"], row["path"] or "none")


def message_series(association: str) -> tuple[str, ...]:
    """One sequence per association's messages: stamped by seq, before the path is known."""
    return ("sctp_message", association)


def run_points(summary: dict[str, Any], tags: RunTags, time_ns: int) -> list[Point]:
    """The run's point (metrics across associations, tag association=all) and one per association."""
    out = [run_point(summary, tags, time_ns)]
    for name, assoc in (summary.get("associations") or {}).items():
        own = {"metrics": assoc.get("metrics", {}), "detection_model": assoc.get("detection_model"),
               "seed": summary.get("seed", 0), "clock": summary.get("clock", "real"), "status": summary.get("status")}
        out.append(run_point(own, dataclasses.replace(tags, association=name), time_ns))
    return out


def run_point(summary: dict[str, Any], tags: RunTags, time_ns: int) -> Point:
    fields: dict[str, Any] = {k: float(v) for k, v in summary.get("metrics", {}).items() if isinstance(v, (int, float))}
    model = summary.get("detection_model") or {}
    if model.get("model_ms") is not None:
        fields["detection_model_ms"] = float(model["model_ms"])
        fields["detection_bound_ms"] = float(model["bound_ms"])
    if model.get("pf_model_ms") is not None:
        fields["pf_detection_model_ms"] = float(model["pf_model_ms"])
        fields["pf_detection_bound_ms"] = float(model["pf_bound_ms"])
    fields |= selfcheck.run_fields(summary.get("selfcheck"))
    fields["seed"] = int(summary.get("seed", 0))
    fields["clock"] = str(summary.get("clock", "real"))
    return Point("sctp_run", tags.as_dict() | {"status": summary.get("status", "unknown")}, fields, time_ns)
