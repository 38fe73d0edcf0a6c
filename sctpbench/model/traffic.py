"""Competing traffic beside the associations: `traffic:`, a list of flows by `kind`.

A `tcp` flow is one bulk TCP transfer (iperf3) from client to server over one path, with
the congestion control asked for; a `udp` flow is background UDP (sctpbench-udpgen) at a
datagram rate or at a share of the path's capacity. Both share the paths with the SCTP
associations, which is the point: seed 001 measures SCTP against competing TCP, seed 003
beside 40 % background load.

Kept apart from the experiment's models (experiment.py), which import it; the checks that
need the rest of the experiment take it as plain arguments (`check`, run by crosschecks.py),
so this module never imports the models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, NoReturn

from pydantic import Field, GetCoreSchemaHandler, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from sctpbench.model import units
from sctpbench.model.fields import Duration, MessageRate, Model, Name, Percent, Size

SECOND_NS = 1_000_000_000
# What a datagram costs beyond its payload as the rate limiter (tbf) charges it: Ethernet
# (14 B), IPv4 (20 B) and UDP (8 B) headers; SCTP's are counted alike (plan/schedule.wire_bytes).
UDP_WIRE_OVERHEAD = 42
# udpgen's --rate bounds (the agent's RATE_MIN, RATE_MAX).
UDP_RATE_MIN, UDP_RATE_MAX = 0.001, 1e6

# (key path below traffic.N, detail) → raises the loader's one-line message.
Fail = Callable[[tuple[str, ...], str], NoReturn]


class Flow(Model):
    """What every flow has: a name, two hosts of the topology, a path joining them, a time."""

    kind: str = Field(description="tcp or udp")
    name: Name = Field(description="unique among flows and associations; its output files are named after it")
    client: Name = Field(description="the sending host")
    server: Name = Field(description="the receiving host")
    path: Name | None = Field(default=None, description="the path it uses (default: the first joining the two hosts)")
    start: Duration = Field(default=0, description="from t0")
    duration: Annotated[Duration, Field(ge=SECOND_NS)]

    @property
    def end_ns(self) -> int:
        return self.start + self.duration


class TcpFlow(Flow):
    """A bulk TCP transfer with iperf3: as much as the congestion control takes."""

    kind: Literal["tcp"]
    duration: Annotated[Duration, Field(ge=SECOND_NS)] = Field(description="whole seconds (iperf3's -t)")
    congestion: Literal["cubic", "reno"] = "cubic"
    sample_interval: Annotated[Duration, Field(ge=100_000_000, le=60 * SECOND_NS)] = Field(
        default=SECOND_NS, description="iperf3's reporting interval (-i), at least 100ms")
    port: Annotated[int, Field(ge=1, le=65535)] = Field(default=5201, description="the iperf3 server's port")
    parallel: Annotated[int, Field(ge=1, le=128)] = Field(
        default=1, description="this many TCP connections at once (iperf3's -P), each with its own congestion control; "
        "the figures are their sum")


class UdpFlow(Flow):
    """Background UDP with sctpbench-udpgen: fixed-size datagrams, seeded gaps."""

    kind: Literal["udp"]
    duration: Annotated[Duration, Field(ge=1_000_000)] = Field(description="at least 1ms: udpgen counts whole milliseconds")
    size: Annotated[Size, Field(ge=28, le=65507)] = Field(default=250, description="UDP payload bytes")
    rate: MessageRate | None = Field(default=None, description="datagrams per second (or share)")
    share: Annotated[Percent, Field(gt=0)] | None = Field(
        default=None, description="a share of the path's rate from client to server, counting Ethernet, IP and UDP headers (or rate)")
    arrival: Literal["poisson", "periodic"] = "poisson"
    port: Annotated[int, Field(ge=1, le=65535)] = Field(default=9000, description="the sink's port")

    @model_validator(mode="after")
    def _rate_or_share(self) -> UdpFlow:
        if (self.rate is None) == (self.share is None):
            raise ValueError("give rate (datagrams/s) or share (of the path's rate), exactly one")
        return self


KINDS: dict[str, type[Flow]] = {"tcp": TcpFlow, "udp": UdpFlow}


def kind_of(value: Any) -> type[Flow] | None:
    """The model a flow as written names with `kind`."""
    kind = value.get("kind") if isinstance(value, dict) else None
    return KINDS.get(kind) if isinstance(kind, str) else None


def validate(value: Any) -> Flow:
    """A flow as written → its kind's model; pydantic keeps the errors' locations."""
    if isinstance(value, Flow):
        return value
    if not isinstance(value, dict):
        raise ValueError(f"a flow is a mapping with kind: {' or '.join(KINDS)}")
    kind = kind_of(value)
    if kind is None:
        shown = units.shown(value.get("kind")) if "kind" in value else "missing"
        raise ValueError(f"kind {shown} is not a flow kind; allowed: {', '.join(KINDS)}")
    return kind.model_validate(value)


class FlowItem:
    """Annotation of the experiment's `traffic:` items: validation by kind, and a schema per kind."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(validate)

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {
            "type": "object",
            "description": "A competing flow: kind tcp (iperf3 bulk transfer) or udp (background datagrams).",
            "required": ["kind"],
            "allOf": [{"if": {"properties": {"kind": {"const": name}}}, "then": handler(kind.__pydantic_core_schema__)}
                      for name, kind in KINDS.items()],
        }


# ---------------------------------------------------------------------------- cross-checks


def direction(path: Any, client: str) -> Literal["forward", "reverse"]:
    """The path's direction from the flow's client to its server."""
    return "forward" if path.between[0] == client else "reverse"


def udp_rate(flow: UdpFlow, path: Any) -> float:
    """Datagrams per second: as written, or the share of the path's rate in the flow's direction."""
    if flow.rate is not None:
        return float(flow.rate)
    capacity = path.direction(direction(path, flow.client))["rate"]
    return float(flow.share or 0) / 100 * capacity / ((flow.size + UDP_WIRE_OVERHEAD) * 8)


def flow_path(flow: Flow, paths: Mapping[str, Any]) -> str | None:
    """The path the flow uses: its own, or the first joining its two hosts."""
    if flow.path is not None:
        return flow.path
    return next((name for name, p in paths.items() if set(p.between) == {flow.client, flow.server}), None)


def check(flows: list[Flow], hosts: list[str], paths: Mapping[str, Any], associations: Mapping[str, tuple[str, int]],
          fail: Fail) -> None:
    """Names, hosts, path, ports and times of every flow; `associations`: name → (server host, port)."""
    listening = {(host, port): f"association {name}" for name, (host, port) in associations.items()}
    names: set[str] = set(associations)
    for i, flow in enumerate(flows):
        def here(key: str, detail: str, i: int = i) -> NoReturn:
            fail(("traffic", str(i), key), detail)

        if flow.name in names:
            here("name", f"{flow.name!r} is already the name of a flow or association; names must be unique")
        names.add(flow.name)
        for role in ("client", "server"):
            if getattr(flow, role) not in hosts:
                here(role, f"unknown host {getattr(flow, role)!r}; allowed: {', '.join(hosts)}")
        if flow.client == flow.server:
            here("server", "client and server must be different hosts")
        _check_path(flow, paths, here)
        assert isinstance(flow, TcpFlow | UdpFlow)
        server_port = flow.port
        if (flow.server, server_port) in listening:
            here("port", f"{server_port} on host {flow.server} is already the port of {listening[flow.server, server_port]}; "
                         "allowed: a port nothing else listens on there")
        listening[flow.server, server_port] = f"flow {flow.name}"
        _check_times(flow, here)
        if isinstance(flow, UdpFlow):
            _check_udp(flow, paths[str(flow_path(flow, paths))], here)


def _check_path(flow: Flow, paths: Mapping[str, Any], here: Callable[[str, str], NoReturn]) -> None:
    joining = [name for name, p in paths.items() if set(p.between) == {flow.client, flow.server}]
    if flow.path is None:
        if not joining:
            here("server", f"no path joins {flow.client} and {flow.server}")
    elif flow.path not in paths:
        here("path", f"unknown path {flow.path!r}; allowed: {', '.join(paths)}")
    elif flow.path not in joining:
        allowed = ", ".join(joining) or "none (no path joins them)"
        here("path", f"path {flow.path} does not join {flow.client} and {flow.server}; allowed: {allowed}")


def _check_times(flow: Flow, here: Callable[[str, str], NoReturn]) -> None:
    if isinstance(flow, TcpFlow) and flow.duration % SECOND_NS:
        here("duration", f"{units.format_duration(flow.duration)}: iperf3 takes whole seconds; allowed: 1s, 2s, …")
    if isinstance(flow, UdpFlow) and flow.duration % 1_000_000:
        here("duration", f"{units.format_duration(flow.duration)}: udpgen takes whole milliseconds")
    if flow.end_ns > units.MAX_DURATION_NS:
        here("duration", f"start + duration is {units.format_duration(flow.end_ns)}; "
                         f"allowed: up to {units.format_duration(units.MAX_DURATION_NS)}")


def _check_udp(flow: UdpFlow, path: Any, here: Callable[[str, str], NoReturn]) -> None:
    way = direction(path, flow.client)
    if flow.share is not None and not path.direction(way)["rate"]:
        here("share", f"a share needs the path's rate, and its {way} direction has none; allowed: rate (datagrams/s)")
    rate = udp_rate(flow, path)
    if not UDP_RATE_MIN <= rate <= UDP_RATE_MAX:
        key = "share" if flow.share is not None else "rate"
        here(key, f"{rate:g} datagrams/s; allowed: {UDP_RATE_MIN:g} to {UDP_RATE_MAX:g} (udpgen's limits)")
