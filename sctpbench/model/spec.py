"""The experiment file: validated models with units, and one clear message on bad input.

Everything a run needs is checked here, before anything is built: types and units by
the pydantic models, names that refer to each other (hosts, paths, addresses) by
`_check_references`. Errors name the file, the line, the dotted key and what is allowed.
"""

from __future__ import annotations

import copy
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema, model_validator

from sctpbench.model import influxurl, inputfile, messages, sctp_params, shaping, signaltrace, units
from sctpbench.model import traffic as flows
from sctpbench.model.addressing import Family, endpoint_addresses
from sctpbench.model.errors import SpecError
from sctpbench.model.events import registry
from sctpbench.model.events.base import Context, Event, Where
from sctpbench.model.events.registry import EventItem
from sctpbench.model.fields import (  # the file's value types, also as spec.Duration, spec.Name, …
    INT_MAX,
    MAX_NAME_CHARS,
    NAME_HELP,
    NAME_PATTERN,
    U32_MAX,
    WRITTEN,  # noqa: F401 (fileschema.py reads spec.WRITTEN)
    CwndMtus,
    DirectionOverride,
    Duration,
    MessageRate,
    Name,
    Percent,
    Shaping,
    Size,
    Timer,
)
from sctpbench.model.fields import Model as _Model
from sctpbench.model.messages import MixStream, Video
from sctpbench.model.tolerances import Tolerances

TOPOLOGY_DIR = Path(__file__).resolve().parent.parent / "topologies"


# As written: numbers from 1 and ranges; whether a range runs upwards is the loader's to judge.
POSITIONS_SCHEMA = {"type": "array", "minItems": 1, "items": {"anyOf": [
    {"type": "integer", "minimum": 1}, {"type": "string", "pattern": r"^\s*[0-9]+(-[0-9]+)?\s*$"}]}}


def _positions(value: object) -> list[int]:
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

    positions: Annotated[list[int], BeforeValidator(_positions), WithJsonSchema(POSITIONS_SCHEMA)] = Field(
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


class SctpParams(_Model):
    """Kernel SCTP parameters; an unset one keeps the kernel's default."""

    rto_initial: Timer | None = None
    rto_min: Timer | None = None
    rto_max: Timer | None = None
    path_max_retrans: Annotated[int, Field(ge=0, le=INT_MAX)] | None = None
    association_max_retrans: Annotated[int, Field(ge=1, le=INT_MAX)] | None = None
    pf_enable: bool | None = None
    pf_retrans: Annotated[int, Field(ge=0, le=65535)] | None = Field(default=None, description="at most ps_retrans, 65535 by default")
    hb_interval: Timer | None = None
    sack_delay: Duration | None = None
    sack_freq: Annotated[int, Field(ge=1, le=INT_MAX)] | None = None
    nodelay: bool | None = None
    streams: Annotated[int, Field(ge=1, le=65535)] | None = None
    max_burst: Annotated[int, Field(ge=0, le=INT_MAX)] | None = Field(
        default=None, description="Max.Burst: new DATA packets per transmission beyond the flight (0: no limit; Linux: 4)")
    initial_cwnd: CwndMtus | None = Field(
        default=None, description="stack variant (the project's kernel): a new or idle path's cwnd in MTUs, or "
        "unrestricted; unset: Linux's min(4*MTU, max(2*MTU, 4380 B))")
    primary_cwnd_carry: bool | None = Field(
        default=None, description="stack variant (the project's kernel): at a primary change the new primary takes the "
        "old one's cwnd and ssthresh where larger")
    rcvbuf: Annotated[Size, Field(ge=4096)] | None = Field(
        default=None, description="receive buffer (net.sctp.sctp_rmem default); the advertised window is about half")
    sndbuf: Annotated[Size, Field(ge=4096)] | None = Field(default=None, description="send buffer (net.sctp.sctp_wmem default)")


# The name of the association a single `workload:` describes: its agents are
# main.client and main.server, its records records/main.client.rec and records/main.server.rec.
DEFAULT_ASSOCIATION = "main"
# SCTP parameters the plan writes as net.sctp.* sysctls: per network namespace, so per
# host; two associations sharing a host must agree on them. The others are socket options.
SYSCTL_PARAMS = tuple(p.key for p in sctp_params.PARAMS if p.where == "sysctl")
# Socket buffer defaults: kernel-wide sysctls (net.core, net.sctp.sctp_[rw]mem), so every association must agree.
KERNEL_WIDE_PARAMS = tuple(p.key for p in sctp_params.PARAMS if p.where == "buffer")


# Keys that only a signaling workload reads; video and mix workloads take theirs from video: and mix:.
LINUX_STREAMS = sctp_params.BY_KEY["streams"].linux_default  # outbound streams when sctp.streams is unset
MAX_NAME_LENGTH = 10  # NAME_PATTERN's
SIGNALING_KEYS = ("size", "rate", "arrival", "ordered", "streams")
MAX_COUNT = 100


# The agent's --policy (workloads/agent/policy.c checks values; here names and keys, before anything is built).
POLICY_KEYS: dict[str, tuple[str, ...]] = {
    "static": (),
    "delay-centric": ("hysteresis",),
    "predictive": ("short", "long", "threshold", "form"),
    "rtt-ratio": ("alpha_c", "alpha_a", "beta"),
    "signal": ("switch", "hysteresis", "prepare"),
}
POLICY_COMMON_KEYS = ("guard", "guard_hb", "seed", "hz")


def policy_problem(text: str) -> str | None:
    """What is wrong with a policy text NAME[:KEY=VALUE,...], or None."""
    name, _, params = text.partition(":")
    if name not in POLICY_KEYS:
        return f"unknown policy {name!r} (allowed: {', '.join(POLICY_KEYS)})"
    if not params:
        return None
    if name == "static":
        return "static takes no parameters"
    allowed = POLICY_KEYS[name] + POLICY_COMMON_KEYS
    for item in params.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            return f"bad parameter {item!r} (KEY=VALUE)"
        if key not in allowed:
            return f"unknown parameter {key!r} for {name} (allowed: {', '.join(allowed)})"
    return _signal_values(params) if name == "signal" else None


SIGNAL_SWITCH_DEFAULT = -80.0  # the agent's (policy.c)
# The signal policy's thresholds, checked here because a wrong one silently never fires.
SIGNAL_RANGES = {"switch": (signaltrace.DBM_MIN, signaltrace.DBM_MAX, "dBm"), "prepare": (signaltrace.DBM_MIN, signaltrace.DBM_MAX, "dBm"),
                 "hysteresis": (0.0, 250.0, "dB")}


def _signal_values(params: str) -> str | None:
    values: dict[str, float] = {}
    for key, _, text in (item.partition("=") for item in params.split(",")):
        if key not in SIGNAL_RANGES:
            continue
        lo, hi, unit = SIGNAL_RANGES[key]
        try:
            values[key] = float(text)
        except ValueError:
            values[key] = float("nan")
        if not lo <= values[key] <= hi:
            return f"bad {key} {text!r} (allowed: a number of {unit} from {lo:g} to {hi:g})"
    if "prepare" in values and not values["prepare"] > values.get("switch", SIGNAL_SWITCH_DEFAULT):
        return (f"prepare={values['prepare']:g} is not above switch={values.get('switch', SIGNAL_SWITCH_DEFAULT):g} "
                "(allowed: prepare above switch: it comes first)")
    return None


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
    policy: str = Field(
        default="static", description="the client's path-selection policy, NAME[:KEY=VALUE,...]: static (the stack "
        "alone), delay-centric, predictive, rtt-ratio or signal (with signal:; workloads/agent/RECORDS.md), e.g. "
        "delay-centric:hysteresis=10,guard=1000-4000")
    signal: str | SignalTrace | None = Field(
        default=None, description="policy: signal's signal-strength trace: a file of TIME PATH DBM lines (relative to the "
        "experiment), or {points: [[time, path, dBm], ...]}")

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
            or any(d.kind != "constant" for d in dists)

    def copies(self) -> list[Workload]:
        """`count: N` as N associations NAME1…NAMEn on ports port…port+n-1; one as itself."""
        first = self.first_path if isinstance(self.first_path, list) else [self.first_path]
        if self.count == 1:
            return [self if not isinstance(self.first_path, list) else self.model_copy(update={"first_path": first[0]})]
        return [self.model_copy(update={"name": f"{self.name}{i}", "port": self.port + i - 1, "count": 1,
                                        "first_path": first[(i - 1) % len(first)]})
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


CLOCKS = ("virtual", "paced", "real")


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

    @property
    def end_ns(self) -> int:
        """When the last association stops generating, from t0 (before any `vary: start`)."""
        return max((a.end_ns for a in self.associations), default=0)


# ---------------------------------------------------------------------------- loading


@dataclass(frozen=True)
class Source:
    """Where each key came from, so a message can name the line."""

    file: str
    lines: dict[tuple[str, ...], int]
    overrides: dict[tuple[str, ...], str]

    def where(self, loc: tuple[str, ...]) -> str:
        # An override wins over the file's line even when the file names a deeper key:
        # `--set sctp={rto_min: soon}` is to blame, not the file's own sctp.rto_min.
        for n in range(len(loc), -1, -1):
            if loc[:n] in self.overrides:
                return set_label(self.overrides[loc[:n]])
        for n in range(len(loc), -1, -1):
            if loc[:n] in self.lines:
                return f"{self.file}:{self.lines[loc[:n]]}"
        return self.file


def _read_yaml(path: Path) -> tuple[Any, dict[tuple[str, ...], int]]:
    return inputfile.load(path)


def _resolve_topology(data: dict[str, Any], base_dir: Path, lines: dict[tuple[str, ...], int], file: str) -> dict[str, Any]:
    """`topology: NAME` or `topology: {use: NAME, paths: {...}}` loads a file from topologies/."""
    topo = data.get("topology")
    use = topo if isinstance(topo, str) else (topo.get("use") if isinstance(topo, dict) else None)
    if use is None:
        return data
    loc = ("topology",) if isinstance(topo, str) else ("topology", "use")
    where = f"{file}:{lines[loc]}" if loc in lines else file
    known = sorted(p.stem for p in TOPOLOGY_DIR.glob("*.yaml"))
    allowed = f"a file path or one of {', '.join(known)}"
    if not isinstance(use, str) or not use or len(use) > MAX_PATH_CHARS or "\0" in use:
        raise SpecError(f"{where}: {'.'.join(loc)}: {_short(use)} is not a topology file name; allowed: {allowed}")
    candidates = [base_dir / use, base_dir / f"{use}.yaml", TOPOLOGY_DIR / use, TOPOLOGY_DIR / f"{use}.yaml"]
    found = next((c for c in candidates if _is_file(c)), None)
    if found is None:
        raise SpecError(f"{where}: {'.'.join(loc)}: no topology file {use!r}; allowed: {allowed}")
    try:
        loaded, _ = _read_yaml(found)
    except SpecError as e:  # the experiment's line first: the topology file may be one of many
        raise SpecError(f"{where}: {'.'.join(loc)}: {e}") from None
    if not isinstance(loaded, dict) or not loaded or not set(loaded) <= set(Topology.model_fields):
        what = f"keys {', '.join(map(str, loaded))}" if isinstance(loaded, dict) and loaded else "no mapping"
        raise SpecError(f"{where}: {'.'.join(loc)}: {found} is not a topology file (it holds {what[:80]}); "
                        f"allowed: a mapping with keys {', '.join(Topology.model_fields)}")
    merged = _deep_merge(loaded, {k: v for k, v in topo.items() if k != "use"} if isinstance(topo, dict) else {})
    return data | {"topology": merged}


# Linux's PATH_MAX; a longer name cannot be a file and makes os.stat raise ENAMETOOLONG.
MAX_PATH_CHARS = 4096


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a component too long, a permission denied on the way
        return False


def _short(value: object, limit: int = 60) -> str:
    """A value for a message: long inputs cut, so the message stays one readable line."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _deep_merge(base: Any, top: Any) -> Any:
    if isinstance(base, dict) and isinstance(top, dict):
        # Keys keep the file's order: the order of paths decides addresses and the primary.
        keys = list(base) + [k for k in top if k not in base]
        return {k: _deep_merge(base.get(k), top[k]) if k in top else base[k] for k in keys}
    return copy.deepcopy(top)


def _read_pattern_files(data: dict[str, Any], base_dir: Path, lines: dict[tuple[str, ...], int], file: str) -> None:
    """`drop_packets: {file: x.txt}` → positions read from the file, one number or range a line.

    Pattern file format (KauNet-like, `#` starts a comment):
        5
        10-12
        40
    """
    paths = (data.get("topology") or {}).get("paths") if isinstance(data.get("topology"), dict) else None
    for name, path in (paths or {}).items():
        pattern = path.get("drop_packets") if isinstance(path, dict) else None
        if not isinstance(pattern, dict) or "file" not in pattern:
            continue
        loc = ("topology", "paths", name, "drop_packets", "file")
        where = f"{file}:{lines[loc]}" if loc in lines else file
        if "positions" in pattern:
            raise SpecError(f"{where}: {'.'.join(loc)}: give positions or a file, not both")
        pattern_path = base_dir / str(pattern.pop("file"))
        text = inputfile.read_text(pattern_path, f"{where}: {'.'.join(loc)}")
        positions = []
        for number, raw in enumerate(text.splitlines(), 1):
            entry = raw.split("#", 1)[0].strip()
            if not entry:
                continue
            try:
                _positions([entry])
            except ValueError as e:
                raise SpecError(f"{pattern_path}:{number}: {e}") from None
            positions.append(entry)
        pattern["positions"] = positions


def _raw_entries(data: dict[str, Any]) -> list[tuple[tuple[str, ...], Any]]:
    """The workload entries as read, with their keys, before validation."""
    if isinstance(data.get("workloads"), list):
        return [(("workloads", str(i)), w) for i, w in enumerate(data["workloads"])]
    return [(("workload",), data["workload"])] if "workload" in data else []


def _read_empirical_files(data: dict[str, Any], base_dir: Path, lines: dict[tuple[str, ...], int], file: str) -> None:
    """`{empirical: {file: F}}` in a mix → the file's values and weights, read relative to the experiment."""
    parsers = {"size": units.parse_size, "gap": units.parse_duration, "burst": units.parse_duration,
               "pause": units.parse_duration}
    for loc, entry in _raw_entries(data):
        mix = entry.get("mix") if isinstance(entry, dict) else None
        for i, stream in enumerate(mix if isinstance(mix, list) else []):
            for key, parse in parsers.items():
                dist = stream.get(key) if isinstance(stream, dict) else None
                arg = dist.get("empirical") if isinstance(dist, dict) else None
                if not isinstance(dist, dict) or not isinstance(arg, dict) or "file" not in arg:
                    continue
                at = loc + ("mix", str(i), key, "empirical", "file")
                where = f"{file}:{lines[at]}" if at in lines else file
                if set(arg) != {"file"}:
                    raise SpecError(f"{where}: {'.'.join(at)}: give values (and weights) or a file, not both")
                dist["empirical"] = messages.read_empirical(base_dir / str(arg["file"]), f"{where}: {'.'.join(at)}", parse)


def _resolve_videos(exp: Experiment, base_dir: Path, source: Source) -> Experiment:
    """Each video workload's trace read in (messages.resolve_video)."""
    def resolved(w: Workload, loc: tuple[str, ...]) -> Workload:
        if w.video is None:
            return w
        at = loc + ("video", "trace")
        return w.model_copy(update={"video": messages.resolve_video(w.video, base_dir, f"{source.where(at)}: {'.'.join(at)}")})
    if exp.workloads is not None:
        return exp.model_copy(update={"workloads": [resolved(w, ("workloads", str(i))) for i, w in enumerate(exp.workloads)]})
    if exp.workload is not None:
        return exp.model_copy(update={"workload": resolved(exp.workload, ("workload",))})
    return exp


def _resolve_signals(exp: Experiment, base_dir: Path, source: Source) -> Experiment:
    """Each signal trace read in and checked against its association's paths (signaltrace.py),
    so the run id follows its content and a run needs no file."""
    def resolved(w: Workload, loc: tuple[str, ...]) -> Workload:
        if w.signal is None:
            return w
        at = loc + ("signal",)
        trace = SignalTrace(file=w.signal) if isinstance(w.signal, str) else w.signal
        paths = exp.paths_of(w)
        try:
            if trace.file is not None:
                at += ("file",) if not isinstance(w.signal, str) else ()
                trace_path = base_dir / trace.file
                text = inputfile.read_text(trace_path, f"{source.where(at)}: {'.'.join(at)}")
                points = signaltrace.parse(text, str(trace_path), ".".join(at), paths)
            else:
                at += ("points",)
                points = signaltrace.inline(trace.points or [], lambda i: source.where(at + (str(i),)), ".".join(at), paths)
        except ValueError as e:
            raise SpecError(str(e)) from None
        # Constructed, not validated: the times are ns now, which a Duration would read as unit-less.
        return w.model_copy(update={"signal": SignalTrace.model_construct(file=None, points=points)})
    if exp.workloads is not None:
        return exp.model_copy(update={"workloads": [resolved(w, ("workloads", str(i))) for i, w in enumerate(exp.workloads)]})
    if exp.workload is not None:
        return exp.model_copy(update={"workload": resolved(exp.workload, ("workload",))})
    return exp


def set_label(text: str) -> str:
    """`--set KEY=VALUE` as messages show it: a value pasted by mistake is cut."""
    return f"--set {text}" if len(text) <= 100 else f"--set {text[:100]}… ({len(text)} characters)"


def parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    """`sctp.rto_min=200ms` → (("sctp", "rto_min"), "200ms"); the value is read as YAML."""
    key, sep, value = text.partition("=")
    if not sep or not key or any(not part for part in key.split(".")):
        raise SpecError(f"{set_label(text)}: expected KEY=VALUE with a dotted key (e.g. sctp.rto_min=200ms)")
    try:
        parsed = inputfile.parse(value, set_label(text))[0] if value != "" else ""
    except SpecError:  # not YAML, or beyond a limit: the text as written, which validation judges
        parsed = value
    return tuple(key.split(".")), parsed


def _is_index(part: str) -> bool:
    # Checked before int(): Python refuses int() of more than 4,300 digits with a bare ValueError.
    return part.isdigit() and len(part) <= 9


def apply_override(data: Any, key: tuple[str, ...], value: Any, text: str) -> None:
    node = data
    for i, part in enumerate(key[:-1]):
        if isinstance(node, list):
            if not _is_index(part) or int(part) >= len(node):
                raise SpecError(f"{set_label(text)}: {shown_key(key[: i + 1])}: no such list item (the list has {len(node)})")
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node.setdefault(part, {})
        else:
            raise SpecError(f"{set_label(text)}: {shown_key(key[:i])} is not a mapping")
    last = key[-1]
    if isinstance(node, list):
        if not _is_index(last) or int(last) >= len(node):
            raise SpecError(f"{set_label(text)}: {shown_key(key)}: no such list item (the list has {len(node)})")
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise SpecError(f"{set_label(text)}: {shown_key(key[:-1])} is not a mapping")


def load(path: str | Path, overrides: Sequence[str] = ()) -> Experiment:
    """Read, override, validate and cross-check an experiment file."""
    path = Path(path)
    file = str(path)
    data, lines = _read_yaml(path)
    if not isinstance(data, dict):
        raise SpecError(f"{file}: the experiment must be a mapping with keys {', '.join(Experiment.model_fields)}")
    data = _resolve_topology(data, path.parent, lines, file)
    _read_pattern_files(data, path.parent, lines, file)
    _read_empirical_files(data, path.parent, lines, file)
    override_src: dict[tuple[str, ...], str] = {}
    for text in overrides:
        key, value = parse_override(text)
        apply_override(data, key, value, text)
        override_src[key] = text
    source = Source(file, lines, override_src)
    try:
        experiment = Experiment.model_validate(data)
    except ValidationError as e:
        raise SpecError(_describe(dict(e.errors()[0]), source, data)) from None
    _check_references(experiment, source)
    _check_events(experiment, source)
    experiment = _resolve_events(experiment, path.parent, source)
    experiment = _resolve_videos(experiment, path.parent, source)
    experiment = _resolve_signals(experiment, path.parent, source)
    if experiment.name is None:
        experiment = experiment.model_copy(update={"name": path.stem})
    return experiment


# ---------------------------------------------------------------------------- messages


def _unwrap(tp: Any) -> Any:
    """Strip Annotated and Optional so a loc can be followed through the models."""
    while True:
        origin = typing.get_origin(tp)
        if origin is Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else tp
            if len(args) != 1:
                return tp
        else:
            return tp


def _model_at(loc: tuple[Any, ...], data: Any = None) -> type[BaseModel] | None:
    """The model at loc; `data` (the input) tells which kind an event is."""
    tp: Any = Experiment
    node = data
    for part in loc:
        tp = _unwrap(tp)
        if tp is Event:
            tp = registry.kind_of(node) or tp
        elif tp is flows.Flow:
            tp = flows.kind_of(node) or tp
        node = _child(node, part)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            field = tp.model_fields.get(str(part))
            if field is None:
                return None
            tp = field.annotation
        elif typing.get_origin(tp) in (list, tuple):
            tp = typing.get_args(tp)[0]
        elif typing.get_origin(tp) is dict:
            tp = typing.get_args(tp)[1]
        else:
            return None
    tp = _unwrap(tp)
    if tp is Event:
        tp = registry.kind_of(node) or tp
    elif tp is flows.Flow:
        tp = flows.kind_of(node) or tp
    return tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None


def _child(node: Any, part: Any) -> Any:
    if isinstance(node, dict):
        return node.get(part, node.get(str(part)))
    if isinstance(node, list) and str(part).isdigit() and int(part) < len(node):
        return node[int(part)]
    return None


def _describe(error: dict[str, Any], source: Source, data: Any = None) -> str:
    loc = tuple(str(p) for p in error["loc"] if not str(p).startswith("function-"))
    key = shown_key(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        model = _model_at(tuple(error["loc"][:-1]), data)
        allowed = ", ".join(model.model_fields) if model else "see the documentation"
        detail = f"unknown key; allowed: {allowed}"
    elif kind == "missing":
        detail = "required key is missing"
        model = _model_at(tuple(error["loc"]), data)
        if model is not None:
            detail += f" (a mapping with keys {', '.join(model.model_fields)})"
    else:
        detail = value_detail(error, NAME_HELP, data)
    return f"{source.where(loc)}: {key}: {detail}"


def shown_key(loc: tuple[str, ...]) -> str:
    """The dotted key for a message; a key pasted by mistake (thousands of characters) is cut."""
    key = ".".join(loc) or "(top level)"
    return key if len(key) <= 200 else f"{key[:200]}… ({len(key)} characters)"


FILE_NAME_HELP = f"letters, digits, _ . - (starting with a letter or digit), at most {MAX_NAME_CHARS} characters"
# What each pattern of the models means, in words; a pattern's message must never borrow
# another's rule (a bad URL is not described with the rule for names).
PATTERN_HELP = {
    NAME_PATTERN: NAME_HELP,
    r"^[A-Za-z0-9][A-Za-z0-9_.-]*$": FILE_NAME_HELP,
}
# Fields whose pattern is owned elsewhere (the Influx model); worded by where they are.
FIELD_HELP: dict[tuple[str, ...], str] = {
    ("influx", "url"): "an http:// or https:// base URL: scheme, host and optional port, no path, no credentials (e.g. http://127.0.0.1:8086)",
}


def value_detail(error: dict[str, Any], name_help: str, data: Any = None) -> str:
    """What is wrong with a value (rather than a key), worded alike for every file."""
    kind = error["type"]
    value = units.shown(error.get("input"))
    loc = tuple(str(p) for p in error["loc"])
    if kind == "value_error":
        # A validator may quote the input whole; a pasted megabyte must not make the line.
        return str(error["ctx"]["error"]).replace(repr(error.get("input")), value)
    if kind == "string_pattern_mismatch":
        pattern = error["ctx"]["pattern"]
        help_text = FIELD_HELP.get(loc[-2:]) or PATTERN_HELP.get(pattern)
        if help_text is None:
            return f"{value} does not have the expected form; allowed: text matching {pattern}"
        what = "a valid URL" if loc[-2:] in FIELD_HELP else "a valid name"
        return f"{value} is not {what}; allowed: {help_text}"
    if kind == "string_too_long":
        return f"{value} is too long; allowed: at most {error['ctx']['max_length']} characters"
    if kind == "literal_error":
        return f"{value} is not allowed; allowed: {error['ctx']['expected']}"
    if kind in ("less_than_equal", "greater_than_equal", "less_than", "greater_than"):
        bound = next(iter(error["ctx"].values()))
        words = {"less_than_equal": "at most", "greater_than_equal": "at least", "less_than": "less than", "greater_than": "more than"}
        return f"{value} is out of range; allowed: {words[kind]} {_bound(loc, bound, data)}"
    return f"{error['msg']} (got {value})"


def _bound(loc: tuple[str, ...], bound: object, data: Any = None) -> str:
    """A bound as the file writes it: durations in units, not nanoseconds."""
    model = _model_at(tuple(loc[:-1]), data)
    field = model.model_fields.get(loc[-1]) if model is not None else None
    if field is not None and isinstance(bound, int) and "parse_duration" in repr((field.annotation, field.metadata)):
        return units.format_duration(bound)
    return str(bound)


def _check_shaping(path: PathSpec, which: str, fail: Any) -> None:
    values = path.merged(which)
    if values["queue"] is not None and values["queue_bytes"] is not None:
        fail("queue", f"{which}: give the queue in packets (queue) or in bytes (queue_bytes), not both")
    if values["queue_bytes"] is not None and path.rate_model == "link":
        fail("queue_bytes", f"{which}: with rate_model: link the queue is netem's own, counted in packets; allowed: queue")
    if values["queue_bytes"] is not None and not values["rate"]:
        fail("queue_bytes", f"{which}: a queue in bytes needs a rate (it is the rate limiter's queue)")
    if values["gilbert_elliott"] is not None and values["loss"]:
        fail("gilbert_elliott", f"{which}: loss and gilbert_elliott are two loss models; choose one")
    if values["reorder"] and not values["delay"]:
        fail("reorder", f"{which}: netem reorders by sending some packets without the delay; reorder needs a delay")
    if (values["jitter_distribution"] or values["jitter_correlation"]) and not values["jitter"]:
        fail("jitter", f"{which}: jitter_distribution and jitter_correlation need a jitter")
    if values["rate"] and shaping.netem_limit(values) > U32_MAX:
        fail("rate", f"{which}: rate × delay is more packets in flight than netem's 32-bit limit holds; allowed: a smaller rate or delay")
    if values["queue_bytes"] == "bdp" and values["rate"] and values["rate"] * 2 * units.MAX_DELAY_NS / 8 / 1e9 > U32_MAX:
        fail("queue_bytes", f"{which}: the bandwidth-delay product exceeds tc's 32-bit byte limit; allowed: queue_bytes as a size")


def _event_context(exp: Experiment) -> Context:
    """Events are checked against every association: the paths they use and the addresses
    of their servers (addressing.py's assignment; both families of a dual path)."""
    indexes = {name: i for i, name in enumerate(exp.topology.paths)}
    paths: list[str] = []
    peers: list[tuple[str, str]] = []
    several = len(exp.associations) > 1
    for a in exp.associations:
        for name in exp.paths_of(a):
            path = exp.topology.paths[name]
            paths += [name] if name not in paths else []
            shown = f"{name}, {a.name}" if several else name
            peers += [(shown, address) for address in endpoint_addresses(indexes[name], path.between.index(a.server),
                                                                        exp.topology.emulator, path.family)]
    return Context(
        shaping={name: {"forward": path.direction("forward"), "reverse": path.direction("reverse")}
                 for name, path in exp.topology.paths.items()},
        association=paths,
        peer_addresses=peers,
        end_ns=exp.end_ns,
        several=several,
        first_paths=[exp.paths_of(a)[0] for a in exp.associations if exp.paths_of(a)],
    )


def _check_events(exp: Experiment, source: Source) -> None:
    """What every event shares (its time, its paths), then what its kind checks."""
    context = _event_context(exp)
    for i, ev in enumerate(exp.events):
        loc = ("events", str(i))

        def fail(key: str, detail: str, loc: tuple[str, ...] = loc) -> NoReturn:
            raise SpecError(f"{source.where(loc + (key,))}: {'.'.join(loc + (key,))}: {detail}")

        if ev.at > context.end_ns:
            fail("at", f"{units.format_duration(ev.at)} is after the workload ends ({units.format_duration(context.end_ns)})")
        for name in ev.paths():
            if name not in exp.topology.paths:
                fail(ev.name, f"unknown path {name!r}; allowed: {', '.join(exp.topology.paths)}")
        ev.check(context, fail)


def _association_locs(exp: Experiment) -> list[tuple[Workload, tuple[str, ...]]]:
    """Each association (named; `count` expanded) with the key it was written under, for messages."""
    return [(a, loc) for entry, loc in _entry_locs(exp) for a in entry.copies()]


def _entry_locs(exp: Experiment) -> list[tuple[Workload, tuple[str, ...]]]:
    if exp.workloads is not None:
        return [(w, ("workloads", str(i))) for i, w in enumerate(exp.workloads)]
    return [(w, ("workload",)) for w in exp.workload_entries]


def _check_entries(exp: Experiment, fail: Any) -> None:
    """What `count` makes of an entry must still be valid names and ports."""
    for w, loc in _entry_locs(exp):
        if w.count > 1 and w.name is not None and len(w.name) + len(str(w.count)) > MAX_NAME_LENGTH:
            fail(loc + ("name",), f"{w.name!r} with count {w.count} makes names up to {w.name}{w.count}; allowed: "
                                  f"names of at most {MAX_NAME_LENGTH} characters with the number")
        if w.port + w.count - 1 > 65535:
            fail(loc + ("port",), f"count {w.count} from port {w.port} goes beyond 65535")


def _streams_used(a: Workload) -> int:
    """How many outbound streams the association's messages need."""
    if a.type == "video" and a.video is not None:
        return a.video.stream + 1
    if a.type == "mix" and a.mix is not None:
        return max(m.stream for m in a.mix) + 1
    return a.streams


def _check_associations(exp: Experiment, source: Source, fail: Any) -> list[str]:
    """Every association's names, hosts, paths, ports and sysctls; returns the paths they use."""
    if exp.workload is not None and exp.workloads is not None:
        fail(("workloads",), "give workload: (one association) or workloads: (a list of them), not both")
    if exp.workload is None and exp.workloads is None:
        fail(("workload",), f"required key is missing (a mapping with keys {', '.join(Workload.model_fields)}; "
                            "or workloads: a list of them)")
    _check_entries(exp, fail)
    hosts = exp.topology.hosts
    names: dict[str, str] = {}
    servers: dict[tuple[str, int], str] = {}
    placed: list[str] = []
    for a, loc in _association_locs(exp):
        key = ".".join(loc)
        if a.name is None:
            fail(loc + ("name",), f"required key is missing; allowed: {NAME_HELP}")
        if a.name == "all":
            fail(loc + ("name",), "'all' stands for every association in telemetry; allowed: another name")
        if a.name in names:
            fail(loc + ("name",), f"{a.name!r} is already the name of {names[a.name]}; names must be unique")
        names[str(a.name)] = key
        for role in ("client", "server"):
            if getattr(a, role) not in hosts:
                fail(loc + (role,), f"unknown host {getattr(a, role)!r}; allowed: {', '.join(hosts)}")
        if a.client == a.server:
            fail(loc + ("server",), "client and server must be different hosts")
        streams = exp.association_sctp(a).streams
        if a.type == "signaling" and streams is not None and a.streams > streams:
            fail(loc + ("streams",), f"{a.streams} streams but sctp.streams asks for {streams}")
        if a.type != "signaling" and _streams_used(a) > (streams or LINUX_STREAMS):
            fail(loc + (a.type,), f"stream {_streams_used(a) - 1} is beyond the {streams or LINUX_STREAMS} outbound "
                                  f"streams the association negotiates; allowed: a lower stream, or sctp.streams above it")
        joining = exp.paths_of(a)
        if not joining:
            fail(loc, f"no path joins {a.client} and {a.server}")
        if a.first_path is not None and a.first_path not in joining:
            fail(loc + ("first_path",), f"{a.first_path!r} does not join {a.client} and {a.server}; "
                                        f"allowed: {', '.join(joining)}")
        placed += [n for n in joining if n not in placed]
        # Two servers listening on one host and port would be one socket; clients take ephemeral ports.
        if (a.server, a.port) in servers:
            fail(loc + ("port",), f"{a.port} on host {a.server} is already the port of {servers[a.server, a.port]}; "
                                  "allowed: a port no other association's server uses on that host")
        servers[a.server, a.port] = key
        end = a.end_ns
        if end > units.MAX_DURATION_NS:
            # Blame the --set that moved the start, if one did; the duration's line otherwise.
            blamed = "start" if loc + ("start",) in source.overrides else "duration"
            fail(loc + (blamed,), f"start + duration is {units.format_duration(end)}; "
                                  f"allowed: up to {units.format_duration(units.MAX_DURATION_NS)} (the agent's limit)")
    _check_shared_sysctls(exp, fail)
    return placed


def _check_shared_sysctls(exp: Experiment, fail: Any) -> None:
    """Sysctls are per namespace (kernel-wide for buffers): associations sharing one must agree."""
    asked: dict[tuple[str | None, str], tuple[Any, str]] = {}  # (host or None, key) → (value, association)
    for a, loc in _association_locs(exp):
        values = exp.association_sctp(a)
        scopes: list[tuple[str | None, str]] = [(host, key) for host in (a.client, a.server) for key in SYSCTL_PARAMS]
        scopes += [(None, key) for key in KERNEL_WIDE_PARAMS]
        for host, key in scopes:
            value = getattr(values, key)
            if (host, key) not in asked:
                asked[host, key] = (value, str(a.name))
                continue
            other, owner = asked[host, key]
            if value != other:
                where = f"on host {host}" if host else "kernel-wide"
                fail(loc + ("sctp", key), f"{_shown_param(key, value)} but association {owner} asks for "
                                          f"{_shown_param(key, other)} {where} (a sysctl); allowed: the same value")


def _shown_param(key: str, value: Any) -> str:
    if value is None:
        return "the kernel's default"
    if sctp_params.BY_KEY[key].unit == "ms":
        return units.format_duration(value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def _resolve_events(exp: Experiment, base_dir: Path, source: Source) -> Experiment:
    """Each event with what it refers to read in (a trace's file), so runs need no files."""
    def where(i: int) -> Where:
        return lambda key: f"{source.where(('events', str(i), key))}: events.{i}.{key}"
    return exp.model_copy(update={"events": [ev.resolve(base_dir, where(i)) for i, ev in enumerate(exp.events)]})


def _check_references(exp: Experiment, source: Source) -> None:
    def fail(loc: tuple[str, ...], detail: str) -> None:
        raise SpecError(f"{source.where(loc)}: {'.'.join(loc)}: {detail}")

    hosts = exp.topology.hosts
    if len(set(hosts)) != len(hosts):
        fail(("topology", "hosts"), "host names must be unique")
    for name, path in exp.topology.paths.items():
        for end in path.between:
            if end not in hosts:
                fail(("topology", "paths", name, "between"), f"unknown host {end!r}; allowed: {', '.join(hosts)}")
        if path.between[0] == path.between[1]:
            fail(("topology", "paths", name, "between"), "a path joins two different hosts")
    if len(exp.topology.paths) > 250:
        fail(("topology", "paths"), "at most 250 paths (one or two /24 of 198.18.0.0/15 each)")
    for name, path in exp.topology.paths.items():
        if path.drop_packets is not None and not exp.topology.emulator:
            fail(("topology", "paths", name, "drop_packets"), "packet-driven loss runs on the emulator's forwarding hop; set topology.emulator: true")
    if exp.topology.emulator and "emu" in hosts:
        fail(("topology", "hosts"), "'emu' is the emulator node's name; choose another host name")
    for name, path in exp.topology.paths.items():
        for which in ("forward", "reverse"):
            _check_shaping(path, which, lambda key, detail, name=name: fail(("topology", "paths", name, key), detail))
    _check_associations(exp, source, fail)
    servers = {str(a.name): (a.server, a.port) for a in exp.associations}
    flows.check(list(exp.traffic), list(hosts), exp.topology.paths, servers, fail)  # type: ignore[arg-type]
    _check_sctp(exp.sctp, ("sctp",), fail)
    for association, where in _association_locs(exp):
        if association.sctp is not None:
            _check_sctp(exp.association_sctp(association), where + ("sctp",), fail)


def _check_sctp(p: SctpParams, loc: tuple[str, ...], fail: Any) -> None:
    """Values the kernel cross-checks or rounds; `loc` is the sctp: mapping they came from."""
    if p.rto_min is not None and p.rto_max is not None and p.rto_min > p.rto_max:
        fail(loc + ("rto_min",), "must not exceed rto_max")
    for key in (param.key for param in sctp_params.PARAMS if param.unit == "ms"):
        value = getattr(p, key)
        if value is not None and value % 1_000_000:
            fail(loc + (key,), f"{units.format_duration(value)}: the kernel takes whole milliseconds")
    if p.sack_delay is not None and not 1_000_000 <= p.sack_delay <= 500_000_000:
        fail(loc + ("sack_delay",), "allowed: 1ms to 500ms (the kernel's range)")
