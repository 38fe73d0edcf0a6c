"""One run as plain data: what to build and do, not how a backend does it.

Hosts, links with their addresses and shaping, the commands that configure each host,
the processes and the timeline. A plan round-trips through JSON (plan.json) and is read
inside the guest by the netns backend, so this module uses the standard library only.
Each backend renders it as its own commands (`sctpbench plan`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# 2: associations (one per workload, each with its agents and record files) instead of
# one `workload` and `association`; plans of format 1 are read as one association.
PLAN_FORMAT = 2
LEGACY_ASSOCIATION = "main"  # the name a format-1 plan's single association is read under
EMULATOR = "emu"  # the emulator node's name, when paths run through one

# wire: join two hosts' interfaces [host, ifname, mac, host, ifname, mac] (a veth pair, a switch port, a cable).
Tool = Literal["ip", "tc", "sysctl", "modprobe", "iptables", "ip6tables", "wire"]
# A primitive event kind (model/events/: fail, restore, primary, degrade, down, up, …) or start.
ActionKind = str


@dataclass
class Command:
    """One command of the plan, run on `host` (None: the emulation machine itself, for
    kernel-wide settings). How it reaches the host is the backend's: the netns backend
    runs it in the host's namespace (backends/netns/render.py)."""

    tool: Tool
    args: list[str]
    host: str | None = None


@dataclass
class Interface:
    """A host's end of a link. `address`/`prefix` is its first address: IPv4 (/24), or
    IPv6 (/64) on an IPv6-only path; a dual-stack interface has its IPv6 one in `address6`."""

    host: str
    ifname: str
    address: str
    prefix: int
    address6: str | None = None

    @property
    def addresses(self) -> list[str]:
        return [self.address] + ([self.address6] if self.address6 else [])


@dataclass
class Link:
    """A path between two hosts: one veth pair, or two through the emulator node.

    Direct, each host's egress is shaped; through the emulator, the emulator's egress
    toward each host is, as on the seeds' Dummynet/KauNet boxes, and the hosts' own
    interfaces (and captures there) see the traffic unshaped on the way out.
    """

    path: str
    a: Interface  # the first host's interface
    b: Interface  # the second host's interface
    shaping: dict[str, dict[str, Any]]  # "forward" (a→b) and "reverse" (b→a): values as in shaping.py
    shaped_at: dict[str, Interface]  # direction → the interface whose egress shapes it
    emulator: list[Interface] = field(default_factory=list)  # the emulator's interfaces facing a and b
    routes: list[Command] = field(default_factory=list)  # what `up` must put back after `down`: neighbours, routes
    burst: dict[str, int | None] = field(default_factory=dict)  # the rate limiter's bucket (bytes) per direction
    drop_packets: dict[str, Any] | None = None  # the packet-driven loss pattern, as configured
    family: str = "ipv4"  # ipv4, ipv6 or dual (both): the address families the path carries

    @property
    def cut_points(self) -> list[Interface]:
        """Where a blackhole drops ingress traffic, one point per direction."""
        return self.emulator or [self.a, self.b]


@dataclass
class Process:
    name: str
    # traffic-server, traffic-client: a competing flow's receiver (iperf3 server, udpgen sink) and sender.
    role: Literal["server", "client", "capture", "traffic-server", "traffic-client"]
    host: str
    argv: list[str]
    ready_line: str  # the process is ready once a line of its output starts with this
    association: str | None = None  # the association an agent serves (None: a capture)


@dataclass
class TimedAction:
    """Something the timeline does at `at_ns` after t0 (t0: every process is ready)."""

    at_ns: int
    kind: ActionKind
    target: str
    commands: list[Command] = field(default_factory=list)  # all of one tool (ip or tc)
    control: str | None = None  # line written to the stdin of each agent in `agents`
    confirm: list[list[str]] = field(default_factory=list)  # [host, dev] shown afterwards to confirm
    detail: str = ""  # where it comes from (flap, trace, pingpong) and what it changes
    direction: str | None = None  # degrade: the direction it changes
    agents: list[str] = field(default_factory=list)  # the agent processes (by name) told `control`


@dataclass
class AssociationPath:
    """One SCTP path of the association: a dual-stack path gives two, one per family."""

    path: str
    client_address: str
    server_address: str
    family: str = "ipv4"  # ipv4 or ipv6: the family of this pair of addresses


def agent_name(association: str, role: str) -> str:
    """One scheme for every association: its agents are ASSOC.client and ASSOC.server."""
    return f"{association}.{role}"


def records_file(association: str, role: str) -> str:
    """An agent's record file, relative to the run folder: records/ASSOC.ROLE.rec."""
    return f"records/{agent_name(association, role)}.rec"


@dataclass
class Association:
    """One SCTP association: its two hosts, the paths joining them, its agents and messages."""

    name: str
    client: str  # the client's host
    server: str  # the server's host
    paths: list[AssociationPath]  # the paths joining the two hosts, in the topology's order
    workload: dict[str, Any]  # size, rate, arrival, ordered, streams, start_ns, duration_ns, port
    sctp: dict[str, Any]  # requested values: the experiment's sctp with the association's own over them
    client_agent: str  # process names
    server_agent: str
    client_records: str  # record files, relative to the run folder
    server_records: str
    drain_timeout_ns: int = 0
    schedule: str | None = None  # the client's message schedule (plan/schedule.py), relative to the run folder

    @property
    def end_ns(self) -> int:
        return int(self.workload["start_ns"]) + int(self.workload["duration_ns"])

    @property
    def path_names(self) -> list[str]:
        return [a.path for a in self.paths]

    def hosts(self) -> tuple[str, str]:
        return self.client, self.server


@dataclass
class Flow:
    """A competing flow beside the associations (model/traffic.py): tcp (iperf3) or udp (udpgen)."""

    name: str
    kind: str  # tcp or udp
    client: str  # the sending host
    server: str  # the receiving host
    path: str
    client_address: str
    server_address: str
    start_ns: int  # from t0
    duration_ns: int
    params: dict[str, Any]  # tcp: congestion, sample_interval_ns, port; udp: size, rate, arrival, port, offered_bps
    client_process: str  # process names
    server_process: str
    outputs: dict[str, str]  # role → file relative to the run folder (iperf3's JSON, udpgen's records)

    @property
    def end_ns(self) -> int:
        return self.start_ns + self.duration_ns


class PlanFormatError(ValueError):
    """plan.json is not a plan sctpbench wrote: the reason in words, no Python exception's name."""


@dataclass
class Plan:
    format: int
    experiment: str
    run_id: str
    repetition: int
    seed: int
    modules: list[str]
    hosts: list[str]  # every host of the network, the emulator node included
    links: list[Link]
    setup: list[Command]
    processes: list[Process]
    timeline: list[TimedAction]
    associations: list[Association]
    sctp: dict[str, Any]  # the experiment's requested values (ms / counts / bools), None = kernel default
    sample_interval_ns: int
    end_ns: int  # when the last association stops generating, from t0
    drain_timeout_ns: int  # how long a client may wait for its last data to be acknowledged (the longest)
    clock: str = "real"  # virtual, paced or real: whose time the run's timestamps are in
    variation: dict[str, Any] = field(default_factory=dict)  # seeded draws: start offset, event phases
    # The timing self-check's tolerances (selfcheck.Tolerances as a dict); absent from
    # plans written before it existed, which then get the defaults.
    selfcheck: dict[str, Any] = field(default_factory=dict)
    # Files the run reads, relative to the run folder → content: the clients' schedules and signal traces.
    # The orchestrator writes them beside plan.json.
    files: dict[str, str] = field(default_factory=dict)
    traffic: list[Flow] = field(default_factory=list)  # competing flows; absent from plans without any
    models: list[str] = field(default_factory=list)  # papers' models asked for (measure.models); absent when none

    def to_json(self) -> str:
        d = asdict(self)
        for optional in ("traffic", "models"):  # plan.json of an experiment without them stays as it was
            if not d[optional]:
                del d[optional]
        return json.dumps(d, indent=2, sort_keys=True)

    def association(self, name: str) -> Association:
        return next(a for a in self.associations if a.name == name)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        """A plan.json's text as a Plan; PlanFormatError says in words why it is not one."""
        try:
            document = json.loads(text)
        except json.JSONDecodeError as e:
            raise PlanFormatError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        try:
            return cls._from_dict(document)
        except KeyError as e:  # a key every plan has
            raise PlanFormatError(f"it has no {str(e.args[0])[:40]!r}, which every plan has") from None
        except (TypeError, AttributeError, ValueError):  # a list, number or string where a plan has a mapping
            raise PlanFormatError("a key or value is not as sctpbench writes a plan") from None

    @classmethod
    def _from_dict(cls, document: Any) -> Plan:
        d = _upgrade(document)

        def iface(x: dict[str, Any]) -> Interface:
            return Interface(**x)

        def link(x: dict[str, Any]) -> Link:
            return Link(
                path=x["path"], a=iface(x["a"]), b=iface(x["b"]), shaping=x["shaping"],
                shaped_at={k: iface(v) for k, v in x["shaped_at"].items()}, emulator=[iface(e) for e in x["emulator"]],
                routes=[Command(**c) for c in x["routes"]], burst=x["burst"], drop_packets=x["drop_packets"],
                family=x.get("family", "ipv4"),
            )

        parts: dict[str, Any] = {
            "links": [link(x) for x in d["links"]],
            "setup": [Command(**c) for c in d["setup"]],
            "processes": [Process(**p) for p in d["processes"]],
            "timeline": [
                TimedAction(**t | {"commands": [Command(**c) for c in t["commands"]]}) for t in d["timeline"]
            ],
            "associations": [
                Association(**a | {"paths": [AssociationPath(**p) for p in a["paths"]]}) for a in d["associations"]
            ],
            "traffic": [Flow(**f) for f in d.get("traffic", [])],
        }
        return cls(**d | parts)


def _upgrade(d: dict[str, Any]) -> dict[str, Any]:
    """A format-1 plan (one `workload` and `association`, agents client and server) as one
    association, so results written before associations still report, verify and push."""
    if "associations" in d:
        return d
    w = d.pop("workload")
    assoc = {
        "name": LEGACY_ASSOCIATION, "client": w.get("client", ""), "server": w.get("server", ""),
        "paths": d.pop("association"), "workload": w, "sctp": d["sctp"],
        "client_agent": "client", "server_agent": "server",
        "client_records": "records/client.rec", "server_records": "records/server.rec",
        "drain_timeout_ns": d.get("drain_timeout_ns", 0),
    }
    timeline = [t | {"agents": ["client"]} if t.get("control") else t for t in d["timeline"]]
    return d | {"associations": [assoc], "timeline": timeline}


def describe_variation(variation: dict[str, Any]) -> str:
    parts = []
    if "start_offset_ns" in variation:
        parts.append(f"workload start +{variation['start_offset_ns'] / 1e6:.3f} ms")
    if "start_window_ns" in variation:
        parts.append("start windows " + ", ".join(f"{name} +{ns / 1e6:.3f} ms" for name, ns in variation["start_window_ns"].items()))
    if "first_path" in variation:
        parts.append("first paths " + ", ".join(f"{name} {path}" for name, path in variation["first_path"].items()))
    if "event_phase_ns" in variation:
        parts.append("event phases " + ", ".join(f"+{p / 1e6:.3f} ms" for p in variation["event_phase_ns"]))
    return "; ".join(parts)
