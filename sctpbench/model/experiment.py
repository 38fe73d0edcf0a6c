"""The experiment file's models: what each key holds, with its unit, its bounds and the
rules inside one mapping (pydantic validators).

Checks that need several parts of the file (hosts, paths, ports, sysctls shared between
associations) are crosschecks.py's; reading the file, its overrides and the files it names is
loading.py's; the wording of a refused value is wording.py's.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from sctpbench.model import influxurl
from sctpbench.model import traffic as flows
from sctpbench.model.addressing import Family
from sctpbench.model.events.base import Event
from sctpbench.model.events.registry import EventItem
from sctpbench.model.fields import (
    MAX_NAME_CHARS,
    DirectionOverride,
    Duration,
    MessageRate,
    Name,
    Percent,
    Shaping,
    Size,
)
from sctpbench.model.fields import Model as _Model
from sctpbench.model.messages import MixStream, Video
from sctpbench.model.policy import policy_problem
from sctpbench.model.scheduler import SCHEDULER_DEFAULT, scheduler_problem
from sctpbench.model.sctp import SctpParams
from sctpbench.model.stacks import STACK_DEFAULT, Stack, UsrsctpParams
from sctpbench.model.tolerances import Tolerances

# As written: numbers from 1 and ranges; whether a range runs upwards is the loader's to judge.
POSITIONS_SCHEMA = {"type": "array", "minItems": 1, "items": {"anyOf": [
    {"type": "integer", "minimum": 1}, {"type": "string", "pattern": r"^\s*[0-9]+(-[0-9]+)?\s*$"}]}}


def packet_positions(value: object) -> list[int]:
    """`[5, "10-12"]` → [5, 10, 11, 12]: 1-based packet numbers, as KauNet counts them."""
    if not isinstance(value, list):
        raise ValueError(f"{value!r} is not a list; allowed: packet numbers from 1 and ranges like '10-12'")
    out: set[int] = set()
    for item in value:
        text = str(item).strip()
        lo, sep, hi = text.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()) or int(lo) < 1 or (sep and int(hi) < int(lo)):
            raise ValueError(f"{item!r} is not a packet number or range; allowed: numbers from 1, ranges like '10-12'")
        out.update(range(int(lo), int(hi if sep else lo) + 1))
    if not out:
        raise ValueError("no packet numbers given")
    return sorted(out)


class DropPattern(_Model):
    """Packet-driven loss on the emulator: drop exactly these packets of a direction's flow."""

    positions: Annotated[list[int], BeforeValidator(packet_positions), WithJsonSchema(POSITIONS_SCHEMA)] = Field(
        description="1-based packet numbers and ranges like '10-12'")
    every: Annotated[int, Field(ge=2)] | None = Field(default=None, description="repeat the pattern every N packets")
    data_only: bool = Field(default=False, description="count and drop only packets carrying SCTP DATA")
    direction: Literal["forward", "reverse", "both"] = "both"

    @model_validator(mode="after")
    def _within_period(self) -> DropPattern:
        if self.every is not None and self.positions[-1] > self.every:
            raise ValueError(f"position {self.positions[-1]} is beyond the period every: {self.every}")
        return self


class PathSpec(Shaping):  # type: ignore[misc,valid-type]
    """A path between two hosts; shaping keys apply to both directions unless overridden."""

    between: tuple[Name, Name]
    family: Family = Field(default="ipv4", description="address families the path carries: ipv4, ipv6 or dual (both, "
                                                       "so an association over it has two SCTP paths)")
    drop_packets: DropPattern | None = None
    rate_model: Literal["token-bucket", "link"] = Field(
        default="token-bucket",
        description="how rate is emulated: token-bucket (tbf below netem, a drop-tail queue; bursts of up to two "
                    "frames pass unserialized) or link (netem's own rate: every packet serialized behind the previous "
                    "one, as on a real link)")
    forward: DirectionOverride | None = Field(default=None, description="first host to second host")  # type: ignore[valid-type]
    reverse: DirectionOverride | None = Field(default=None, description="second host to first host")  # type: ignore[valid-type]

    def merged(self, which: str) -> dict[str, Any]:
        """The direction's values as written: the path's, with the direction's overrides."""
        values = {k: getattr(self, k) for k in Shaping.model_fields}
        override = getattr(self, which)
        if override is not None:
            values |= {k: getattr(override, k) for k in Shaping.model_fields if getattr(override, k) is not None}
        return values

    def direction(self, which: Literal["forward", "reverse"]) -> dict[str, Any]:
        """The direction's shaping values, overrides applied and `bdp` made a byte count."""
        values = self.merged(which)
        if values["queue_bytes"] == "bdp":
            rtt_ns = values["delay"] + self.merged("reverse" if which == "forward" else "forward")["delay"]
            values["queue_bytes"] = max(1514, int(values["rate"] * rtt_ns / 8 / 1e9))
        if self.rate_model == "link":  # only when chosen: plans of before it keep their values
            values["rate_model"] = "link"
        return {k: (v.model_dump() if isinstance(v, BaseModel) else v) for k, v in values.items()}


class Topology(_Model):
    hosts: list[Name] = Field(min_length=2)
    paths: dict[Name, PathSpec] = Field(min_length=1)
    emulator: bool = Field(default=False, description="run every path through an emulator node (emu) that shapes both directions")
    source_routing: bool = Field(
        default=False, description="per-source policy routing on each host (ip rule from ADDR): a packet leaves on the path "
        "of its source address, whatever its destination, as on a well-configured multihomed host; direct paths only "
        "(the emulator routes by source already)")

    @model_validator(mode="after")
    def _source_routing_direct(self) -> Topology:
        if self.source_routing and self.emulator:
            raise ValueError("source_routing is for direct paths: with emulator: true each address already has its own table")
        return self


# The name of the association a single `workload:` describes: its agents are
# main.client and main.server, its records records/main.client.rec and records/main.server.rec.
DEFAULT_ASSOCIATION = "main"
MAX_NAME_LENGTH = 10  # NAME_PATTERN's
# Keys that only a signaling workload reads; video and mix workloads take theirs from video: and mix:.
SIGNALING_KEYS = ("size", "rate", "arrival", "ordered", "streams")
MAX_COUNT = 100


class SignalTrace(_Model):
    """The `signal` policy's emulated signal strength per path over time (model/signaltrace.py)."""

    file: str | None = Field(default=None, description="TIME PATH DBM lines, relative to the experiment file")
    points: list[tuple[Duration, Name, float]] | None = Field(
        default=None, description="[[time from t0, path, dBm], ...] instead of a file")

    @model_validator(mode="after")
    def _file_or_points(self) -> SignalTrace:
        if (self.file is None) == (self.points is None):
            raise ValueError("signal needs file: PATH or points: [[time, path, dBm], ...] (one of them)")
        return self


class Workload(_Model):
    """One SCTP association (or `count` alike): its two endpoints (hosts of the topology) and its messages."""

    type: Literal["signaling", "video", "mix"] = Field(
        default="signaling", description="signaling: fixed-size messages at a rate; video: a frame trace (video:); "
        "mix: streams with sizes and gaps from distributions (mix:)")
    client: Name
    server: Name
    size: Annotated[Size, Field(ge=16, le=65536)] = 200
    rate: MessageRate = 50.0
    arrival: Literal["periodic", "poisson", "saturate"] = Field(
        default="periodic", description="saturate: as fast as the association takes them (rate is ignored)")
    ordered: bool = True
    streams: Annotated[int, Field(ge=1, le=65535)] = Field(default=1, description="messages go round-robin on this many streams")
    start: Duration = 0
    duration: Annotated[Duration, Field(ge=1_000_000)] = Field(description="at least 1ms: the agent counts whole milliseconds")
    port: Annotated[int, Field(ge=1, le=65535)] = 5000
    # Last, so that messages listing the allowed keys keep their order from before associations.
    name: Name | None = Field(default=None, description=f"the association's name, unique (required under workloads:; "
                              f"a single workload: is named {DEFAULT_ASSOCIATION!r})")
    sctp: SctpParams | None = Field(default=None, description="this association's values over the experiment's sctp:")
    video: Video | None = Field(default=None, description="type: video: the frame trace and how it is sent")
    mix: Annotated[list[MixStream], Field(min_length=1)] | None = Field(
        default=None, description="type: mix: one entry per stream of messages")
    count: Annotated[int, Field(ge=1, le=MAX_COUNT)] = Field(
        default=1, description="this many associations alike, named NAME1…NAMEn, server ports port…port+n-1")
    start_window: Annotated[Duration, Field(ge=0)] = Field(
        default=0, description="each association starts at start plus a seeded uniform draw in [0, this), per repetition")
    first_path: Name | Annotated[list[Name], Field(min_length=1)] | None = Field(
        default=None, description="the path the association starts on (its INIT's, the first primary); with count, a "
        "list is dealt out in turn (NAME1 the first, NAME2 the second, …); unset: the topology's first path joining its hosts")
    random_first_path: bool = Field(
        default=False, description="each association starts on a path drawn per repetition from the repetition's seed, "
        "uniformly and independently of the others: among first_path's list (not dealt out), or every path joining its "
        "hosts when first_path is unset; the drawn path leads its peer addresses, so the kernel makes it the primary")
    policy: str = Field(
        default="static", description="the client's path-selection policy, NAME[:KEY=VALUE,...]: static (the stack "
        "alone), delay-centric, predictive, rtt-ratio or signal (with signal:; workloads/agent/RECORDS.md), e.g. "
        "delay-centric:hysteresis=10,guard=1000-4000")
    signal: str | SignalTrace | None = Field(
        default=None, description="policy: signal's signal-strength trace: a file of TIME PATH DBM lines (relative to the "
        "experiment), or {points: [[time, path, dBm], ...]}")
    scheduler: str = Field(
        default=SCHEDULER_DEFAULT, description="the client's multipath scheduler, the path of each message, "
        "NAME[:KEY=VALUE,...]: primary (the stack's primary path), round-robin, static-stream (stream s on path s mod n), "
        "dynamic-path (least expected delivery time) or stream-aware[:margin=MS] (seed 000 Paper III; "
        "workloads/agent/RECORDS.md)")
    stack: Stack = Field(
        default=STACK_DEFAULT, description="the SCTP stack: linux (the guest kernel's) or usrsctp (FreeBSD's, in user "
        "space over UDP encapsulation; message workloads, docs/stacks.md)")
    usrsctp: UsrsctpParams | None = Field(default=None, description="stack: usrsctp's own parameters (cmt, stream_scheduler)")

    @model_validator(mode="after")
    def _scheduler_text(self) -> Workload:
        problem = scheduler_problem(self.scheduler)
        if problem:
            raise ValueError(f"scheduler: {problem}")
        if self.scheduler != SCHEDULER_DEFAULT and self.policy != "static":
            raise ValueError(f"scheduler: {self.scheduler} chooses every message's path; it goes with policy: static only, "
                             f"not {self.policy.partition(':')[0]}")
        return self

    @model_validator(mode="after")
    def _policy_text(self) -> Workload:
        problem = policy_problem(self.policy)
        if problem:
            raise ValueError(f"policy: {problem}")
        wants = self.policy.partition(":")[0] == "signal"
        if wants and self.signal is None:
            raise ValueError("policy: signal needs signal:; allowed: a trace file of TIME PATH DBM lines, or "
                             "{points: [[time, path, dBm], ...]}")
        if not wants and self.signal is not None:
            raise ValueError(f"signal: is for policy: signal (its signal-strength trace), not {self.policy.partition(':')[0]}; "
                             "allowed: policy: signal[:switch=DBM,hysteresis=DB,prepare=DBM]")
        return self

    @model_validator(mode="after")
    def _type_keys(self) -> Workload:
        if self.type == "video" and self.video is None:
            raise ValueError("type: video needs video: (a trace)")
        if self.type == "mix" and self.mix is None:
            raise ValueError("type: mix needs mix: (a list of streams)")
        if self.type != "video" and self.video is not None:
            raise ValueError(f"video: is for type: video, not {self.type}")
        if self.type != "mix" and self.mix is not None:
            raise ValueError(f"mix: is for type: mix, not {self.type}")
        unused = [k for k in SIGNALING_KEYS if k in self.model_fields_set] if self.type != "signaling" else []
        if unused:
            raise ValueError(f"{', '.join(unused)}: only for type: signaling; a {self.type} workload's messages come "
                             f"from {self.type}:")
        return self

    @property
    def end_ns(self) -> int:
        """When its last association stops generating, at the latest (a start drawn in the window)."""
        return self.start + self.start_window + self.duration

    @property
    def random(self) -> bool:
        """Whether its messages or start differ from one repetition (seed) to the next."""
        dists = [d for m in self.mix or [] for d in (m.size, m.gap, m.burst, m.pause) if d is not None]
        return (self.type == "signaling" and self.arrival == "poisson") or bool(self.start_window) \
            or self.random_first_path or any(d.kind != "constant" for d in dists)

    def copies(self) -> list[Workload]:
        """`count: N` as N associations NAME1…NAMEn on ports port…port+n-1; one as itself.
        A `first_path` list is dealt out, unless each association draws from all of it (random_first_path)."""
        first = self.first_path if isinstance(self.first_path, list) else [self.first_path]
        if self.count == 1:
            dealt = isinstance(self.first_path, list) and not self.random_first_path
            return [self.model_copy(update={"first_path": first[0]}) if dealt else self]
        return [self.model_copy(update={"name": f"{self.name}{i}", "port": self.port + i - 1, "count": 1,
                                        "first_path": self.first_path if self.random_first_path else first[(i - 1) % len(first)]})
                for i in range(1, self.count + 1)]


_TOLERANCE = Tolerances()


class SelfCheck(_Model):
    """Tolerances of the timing self-check (analysis/selfcheck.py); outside them a run is `disturbed`."""

    enabled: bool = Field(default=_TOLERANCE.enabled, description="false: record the figures, never mark a run disturbed")
    lateness_p99: Duration = Field(default=_TOLERANCE.lateness_p99_ns, description="sender lateness against its schedule, p99")
    lateness_max: Duration = Field(default=_TOLERANCE.lateness_max_ns, description="sender lateness, the worst message")
    event_lag: Duration = Field(default=_TOLERANCE.event_lag_ns, description="the largest lag of a timeline action")
    delay: Percent = Field(default=_TOLERANCE.delay_over_pct, description="MTT's low quantile above the configured delay by this share…")
    delay_slack: Duration = Field(default=_TOLERANCE.delay_slack_ns, description="…and by more than this")
    delay_under: Duration = Field(default=_TOLERANCE.delay_under_ns, description="MTT's low quantile below the configured delay by more than this")

    def tolerances(self) -> Tolerances:
        return Tolerances(
            enabled=self.enabled, lateness_p99_ns=self.lateness_p99, lateness_max_ns=self.lateness_max,
            event_lag_ns=self.event_lag, delay_over_pct=self.delay, delay_slack_ns=self.delay_slack,
            delay_under_ns=self.delay_under,
        )


class Measure(_Model):
    sample_interval: Annotated[Duration, Field(ge=0)] = 20_000_000
    capture: bool = Field(default=False, description="tcpdump on both ends of every path, saved with the run")
    calibrate: bool = Field(default=False, description="measure delay, loss and rate on the topology before the runs")
    calibration_tolerance: Percent = Field(default=5.0, description="warn when a calibration error exceeds this")
    selfcheck: SelfCheck = SelfCheck()
    # A paper's model is computed, kept and shown only when asked: beside most runs it is noise.
    # (The RFC timer model beside a failure's detection is always there: it explains the result.)
    models: list[Literal["startup"]] = Field(
        default=[], description="papers' models computed beside the measurements: startup (seed 000 Papers IV/V: the MTT "
        "of the 2 s after a path switch beside the startup model's slow start and ideal startup, analysis/startup.py)")


def _influx_url(value: Any) -> Any:
    # Before any other check, and worded without the value: a URL may carry a password.
    problem = None if value is None else influxurl.url_problem(value)
    if problem:
        raise ValueError(problem)
    return value


class Influx(_Model):
    """Where the live telemetry goes. Credentials are never written here (a URL with
    `user:password@` is refused): they come from the environment or a server folder,
    see sctpbench/telemetry/credentials.py."""

    url: Annotated[str | None, BeforeValidator(_influx_url)] = Field(
        default=None, description="base URL, e.g. http://127.0.0.1:8086; unset: no live telemetry")
    api: Literal["v1", "v2"] = Field(default="v1", description="v1: /write with database; v2: /api/v2/write with org and bucket")
    database: Annotated[str, Field(min_length=1)] = "sctpbench"
    retention_policy: str | None = None
    org: str | None = None
    bucket: str | None = None
    batch: Annotated[int, Field(ge=1, le=100_000)] = 5000
    flush_interval: Annotated[Duration, Field(ge=10_000_000, le=10_000_000_000)] = 200_000_000
    timeout: Annotated[Duration, Field(ge=100_000_000)] = 5_000_000_000

    @model_validator(mode="after")
    def _v2_needs_org(self) -> Influx:
        if self.api == "v2" and not self.org:
            raise ValueError("api: v2 needs org: (and bucket:, default the database name)")
        return self


class Vary(_Model):
    """Seeded variation between repetitions. On virtual time a run without random elements
    repeats exactly, so repetitions differ only where the experiment asks for it."""

    event_phase: Annotated[Duration, Field(ge=0)] = Field(
        default=0, description="each event moves later by a uniform draw in [0, this), per repetition")
    start: Annotated[Duration, Field(ge=0)] = Field(
        default=0, description="the workload starts later by a uniform draw in [0, this), per repetition")


class Experiment(_Model):
    # One of the two, as the loader checks (_check_associations): editors say so too.
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra={
        "oneOf": [{"required": ["workload"]}, {"required": ["workloads"]}]})

    name: Annotated[str, Field(max_length=MAX_NAME_CHARS, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")] | None = None
    description: str = ""
    topology: Topology
    sctp: SctpParams = SctpParams()
    workload: Workload | None = Field(default=None, description=f"one association, named {DEFAULT_ASSOCIATION!r}")
    workloads: Annotated[list[Workload], Field(min_length=1)] | None = Field(
        default=None, description="several associations, each with a name (instead of workload:)")
    events: list[Annotated[Event, EventItem()]] = Field(default=[], description="the timeline: one kind of event each (model/events/)")
    traffic: list[Annotated[flows.Flow, flows.FlowItem()]] = Field(
        default=[], description="competing flows beside the associations: kind tcp (iperf3) or udp (udpgen) (model/traffic.py)")
    measure: Measure = Measure()
    influx: Influx = Influx()
    repeat: Annotated[int, Field(ge=1, le=10000)] = 1
    seed: Annotated[int, Field(ge=0, le=2**64 - 1)] = Field(default=1, description="the agent's --seed is unsigned 64-bit")
    clock: Literal["virtual", "paced", "real"] = Field(
        default="virtual", description="virtual: the guest's clock moves only when it is idle; paced: virtual "
        "but never ahead of the wall clock; real: the host's clock (the only one of the netns backend)")
    vary: Vary = Vary()

    @property
    def associations(self) -> list[Workload]:
        """Every association, named: `workloads:`, or the single `workload:` as one named main;
        an entry with `count: N` is N of them."""
        return [one for entry in self.workload_entries for one in entry.copies()]

    @property
    def workload_entries(self) -> list[Workload]:
        """The entries as written, named (`workloads:`, or `workload:` named main), before `count` expands them."""
        if self.workloads is not None:
            return list(self.workloads)
        if self.workload is None:
            return []
        return [self.workload.model_copy(update={"name": self.workload.name or DEFAULT_ASSOCIATION})]

    def association_sctp(self, association: Workload) -> SctpParams:
        """The association's SCTP parameters: its own `sctp:` values over the experiment's."""
        if association.sctp is None:
            return self.sctp
        own = {k: getattr(association.sctp, k) for k in SctpParams.model_fields if getattr(association.sctp, k) is not None}
        return self.sctp.model_copy(update=own)

    def paths_of(self, association: Workload) -> list[str]:
        """The paths joining the association's two hosts, in the topology's order but its
        `first_path` first (the one its INIT takes)."""
        ends = {association.client, association.server}
        joining = [name for name, path in self.topology.paths.items() if set(path.between) == ends]
        first = association.first_path[0] if isinstance(association.first_path, list) else association.first_path
        return sorted(joining, key=lambda name: name != first)

    def first_path_choices(self, association: Workload) -> list[str]:
        """The paths the association may start on: those it draws among (random_first_path;
        each once, in the topology's order), or its one first path."""
        joining = self.paths_of(association)
        if not association.random_first_path:
            return joining[:1]
        named = association.first_path if isinstance(association.first_path, list) else [association.first_path]
        return joining if association.first_path is None else [p for p in self.topology.paths if p in named]

    @property
    def end_ns(self) -> int:
        """When the last association stops generating, from t0 (before any `vary: start`)."""
        return max((a.end_ns for a in self.associations), default=0)

