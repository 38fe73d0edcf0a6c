"""One run made concrete: namespaces, links, addresses, qdiscs, sysctls, processes, timeline.

A plan is plain data (JSON round-trip) and renders as the exact commands a person could
type. It is built on the host from a validated experiment, and executed by the netns
backend, possibly inside the guest, which is why this module uses the standard library
only: the guest's Python should not have to import pydantic to start a run.
"""

from __future__ import annotations

import hashlib
import json
import random
import shlex
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast, get_args

from sctpbench.testbed import shaping, timeline
from sctpbench.testbed.errors import SpecError

PLAN_FORMAT = 1
MODULES = ["sctp", "sch_netem", "sch_tbf", "veth", "sch_ingress", "cls_matchall", "act_gact"]
EMULATOR = "emu"  # the emulator node's name, when paths run through one
# Whole packets: tshark does not dissect the chunks of a truncated SCTP packet.
CAPTURE_SNAPLEN = 65535
PF_EXPOSE_ENABLE = "2"  # include/net/sctp/constants.h: UNSET 0, DISABLE 1, ENABLE 2
# Linux 6.1 defaults, used only to order writes that the kernel cross-checks.
LINUX_RTO_MIN_MS = 1000

Tool = Literal["ip", "tc", "sysctl", "modprobe", "iptables"]
ActionKind = Literal["start", "fail", "restore", "primary", "degrade", "down", "up"]


def action_kind(kind: str) -> ActionKind:
    """A timeline step's kind as the plan's type; the timeline makes no other."""
    if kind not in get_args(ActionKind):
        raise ValueError(f"unknown timeline action {kind!r}")
    return cast(ActionKind, kind)


@dataclass
class Command:
    """One command of the plan; `ns` None means the (guest's) initial namespace."""

    tool: Tool
    args: list[str]
    ns: str | None = None

    def render(self) -> str:
        args = " ".join(shlex.quote(a) for a in self.args)
        if self.tool in ("ip", "tc") and self.ns:
            return f"{self.tool} -n {self.ns} {args}"
        if self.tool == "sysctl":
            return f"ip netns exec {self.ns} sysctl -q -w {args}" if self.ns else f"sysctl -q -w {args}"
        if self.tool == "iptables":
            # args are the lines of one iptables-restore ruleset, loaded at once
            body = "\n".join(self.args)
            return f"ip netns exec {self.ns} iptables-legacy-restore --noflush <<'EOF'\n{body}\nEOF"
        return f"{self.tool} {args}"


@dataclass
class Interface:
    host: str
    ns: str
    ifname: str
    address: str
    prefix: int


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

    @property
    def cut_points(self) -> list[Interface]:
        """Where a blackhole drops ingress traffic, one point per direction."""
        return self.emulator or [self.a, self.b]


@dataclass
class Process:
    name: str
    role: Literal["server", "client", "capture"]
    host: str
    ns: str
    argv: list[str]
    ready_line: str  # the process is ready once a line of its output starts with this

    def render(self, run_dir: str) -> str:
        # Double quotes keep a shell variable given as run_dir (the default `$RUN`) expandable.
        words = [f'"{a.replace("{run}", run_dir)}"' if "{run}" in a else shlex.quote(a) for a in self.argv]
        return f"ip netns exec {self.ns} {' '.join(words)}"


@dataclass
class TimedAction:
    """Something the timeline does at `at_ns` after t0 (t0: every process is ready)."""

    at_ns: int
    kind: ActionKind
    target: str
    commands: list[Command] = field(default_factory=list)  # all of one tool (ip or tc)
    control: str | None = None  # line written to the client agent's stdin
    confirm: list[list[str]] = field(default_factory=list)  # [ns, dev] shown afterwards to confirm
    detail: str = ""  # where it comes from (flap, trace, pingpong) and what it changes
    direction: str | None = None  # degrade: the direction it changes


@dataclass
class AssociationPath:
    path: str
    client_address: str
    server_address: str


@dataclass
class Plan:
    format: int
    experiment: str
    run_id: str
    repetition: int
    seed: int
    modules: list[str]
    namespaces: dict[str, str]  # host → namespace
    links: list[Link]
    setup: list[Command]
    processes: list[Process]
    timeline: list[TimedAction]
    association: list[AssociationPath]
    workload: dict[str, Any]
    sctp: dict[str, Any]  # requested values (ms / counts / bools), None = kernel default
    sample_interval_ns: int
    end_ns: int  # when the workload stops generating, from t0
    drain_timeout_ns: int  # how long the client may wait for its last data to be acknowledged
    clock: str = "real"  # virtual, paced or real: whose time the run's timestamps are in
    variation: dict[str, Any] = field(default_factory=dict)  # seeded draws: start offset, event phases
    # The timing self-check's tolerances (selfcheck.Tolerances as a dict); absent from
    # plans written before it existed, which then get the defaults.
    selfcheck: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        d = json.loads(text)
        iface = lambda x: Interface(**x)  # noqa: E731
        link = lambda x: Link(  # noqa: E731
            path=x["path"], a=iface(x["a"]), b=iface(x["b"]), shaping=x["shaping"],
            shaped_at={k: iface(v) for k, v in x["shaped_at"].items()}, emulator=[iface(e) for e in x["emulator"]],
            routes=[Command(**c) for c in x["routes"]], burst=x["burst"], drop_packets=x["drop_packets"],
        )
        return cls(
            **d
            | {
                "links": [link(x) for x in d["links"]],
                "setup": [Command(**c) for c in d["setup"]],
                "processes": [Process(**p) for p in d["processes"]],
                "timeline": [
                    TimedAction(**t | {"commands": [Command(**c) for c in t["commands"]]}) for t in d["timeline"]
                ],
                "association": [AssociationPath(**a) for a in d["association"]],
            }
        )

    def render(self, run_dir: str = "$RUN") -> str:
        """The plan as commands a person could type, in the order the backend runs them."""
        out = [
            f"# sctpbench plan: {self.experiment}, repetition {self.repetition}, seed {self.seed}, run id {self.run_id}",
            f"# clock: {self.clock}" + (f"; drawn for this repetition: {_render_variation(self.variation)}" if self.variation else ""),
            f"# RUN={run_dir} is the run's results folder",
            f"mkdir -p {run_dir}/records {run_dir}/captures",
        ]
        out += [c.render() for c in self.setup]
        out.append("# processes: each is started once the one before printed its ready line")
        for p in self.processes:
            out.append(f"{p.render(run_dir)} &   # ready: {p.ready_line}")
        out.append("# timeline: t0 is when every process is ready")
        for t in self.timeline:
            head = f"# t0+{t.at_ns / 1e9:.3f}s {t.kind} {t.target}" + (f" {t.detail}" if t.detail else "")
            control = (t.control or "").replace("{t}", "<t0+at in CLOCK_MONOTONIC ns>")
            out.append(head + (f": write '{control}' to the client's stdin" if control else ""))
            out += [c.render() for c in t.commands]
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------- building


def run_id(experiment_json: str, repetition: int) -> str:
    """Content-derived: the same resolved experiment and repetition give the same id."""
    return hashlib.sha256(f"{experiment_json}\n{repetition}".encode()).hexdigest()[:12]


def _sysctls(sctp: Any) -> list[str]:
    """`net.sctp.*` writes, ordered so the kernel's rto_min ≤ rto_max check never trips."""
    ms = lambda ns: str(ns // 1_000_000)  # noqa: E731
    writes: list[tuple[str, str]] = []
    rto_max = ("net.sctp.rto_max", ms(sctp.rto_max)) if sctp.rto_max is not None else None
    rto_min = ("net.sctp.rto_min", ms(sctp.rto_min)) if sctp.rto_min is not None else None
    if rto_max and sctp.rto_max // 1_000_000 >= LINUX_RTO_MIN_MS:
        writes += [rto_max] + ([rto_min] if rto_min else [])
    else:
        writes += ([rto_min] if rto_min else []) + ([rto_max] if rto_max else [])
    simple: dict[str, tuple[str, Callable[[Any], str]]] = {
        "rto_initial": ("net.sctp.rto_initial", ms),
        "path_max_retrans": ("net.sctp.path_max_retrans", str),
        "association_max_retrans": ("net.sctp.association_max_retrans", str),
        "pf_enable": ("net.sctp.pf_enable", lambda b: "1" if b else "0"),
        "pf_retrans": ("net.sctp.pf_retrans", str),
        "hb_interval": ("net.sctp.hb_interval", ms),
        "sack_delay": ("net.sctp.sack_timeout", ms),
    }
    for key, (name, conv) in simple.items():
        value = getattr(sctp, key)
        if value is not None:
            writes.append((name, conv(value)))
    if sctp.pf_enable is not False:
        # PF is on (Linux's default too): unless pf_expose is 2 (SCTP_PF_EXPOSE_ENABLE; 0 is
        # unset, 1 disable) the kernel never tells the application a path went potentially
        # failed, and PF detection would go unseen.
        writes.append(("net.sctp.pf_expose", PF_EXPOSE_ENABLE))

    return [f"{k}={v}" for k, v in writes]


DRAIN_TIMEOUT_NS = 10_000_000_000
LINUX_SNDBUF = 212_992


def _drain_timeout_ns(experiment: Any) -> int:
    """A saturating client leaves a full send buffer behind: give the slowest path time to carry it."""
    if experiment.workload.arrival != "saturate":
        return DRAIN_TIMEOUT_NS
    rates = [p.direction(d)["rate"] for p in experiment.topology.paths.values() for d in ("forward", "reverse")]
    slowest = min((r for r in rates if r), default=None)
    if slowest is None:
        return DRAIN_TIMEOUT_NS
    buffered = (experiment.sctp.sndbuf or LINUX_SNDBUF) * 8 / slowest
    return DRAIN_TIMEOUT_NS + int(2 * buffered * 1e9)


def _buffer_sysctls(sctp: Any) -> list[str]:
    """Socket buffer sizes. A new SCTP socket starts with net.core's default sizes, and SCTP
    accounts its memory against net.sctp.sctp_[rw]mem; both are kernel-wide, not per
    namespace. The backend puts the old values back when the run ends."""
    writes = []
    for key, core, sctp_name in (("rcvbuf", "rmem", "sctp_rmem"), ("sndbuf", "wmem", "sctp_wmem")):
        value = getattr(sctp, key)
        if value is not None:
            writes += [f"net.core.{core}_max={value}", f"net.core.{core}_default={value}",
                       f"net.sctp.{sctp_name}=4096 {value} {max(value, 4 * 1024 * 1024)}"]
    return writes


def requested_sctp(sctp: Any) -> dict[str, Any]:
    """Requested parameters in the units the kernel reports them (ms, counts, booleans)."""
    out: dict[str, Any] = {}
    for key, value in sctp.model_dump().items():
        if key in ("rto_initial", "rto_min", "rto_max", "hb_interval", "sack_delay"):
            out[f"{key}_ms"] = None if value is None else value // 1_000_000
        else:
            out[key] = value
    return out


def build(experiment: Any, repetition: int, agent: str) -> Plan:
    """Make repetition `repetition` (1-based) of a validated experiment concrete."""
    # Where telemetry goes and how strictly timing is judged are not part of what is
    # measured: they leave the identity alone.
    resolved = experiment.model_dump_json(exclude={"influx": True, "measure": {"selfcheck"}})
    rid = run_id(resolved, repetition)
    topo = experiment.topology
    hosts = list(topo.hosts) + ([EMULATOR] if topo.emulator else [])
    namespaces = {h: f"sb-{rid[:8]}-{h}" for h in hosts}
    setup: list[Command] = [Command("modprobe", ["-a", *MODULES])]
    setup += [Command("ip", ["netns", "add", ns]) for ns in namespaces.values()]
    # Only IPv4 is emulated: keep IPv6 router and neighbour chatter off the paths and captures.
    setup += [Command("sysctl", ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"], ns) for ns in namespaces.values()]
    w = experiment.workload
    seed = experiment.seed + repetition - 1
    variation = draw_variation(experiment.vary, len(experiment.events), seed)
    start_ns = w.start + variation.get("start_offset_ns", 0)
    phases = variation.get("event_phase_ns", [0] * len(experiment.events))
    events = [ev.model_copy(update={"at": ev.at + phase}) for ev, phase in zip(experiment.events, phases, strict=True)]
    configured = {name: {d: path.direction(d) for d in timeline.DIRECTIONS} for name, path in topo.paths.items()}
    steps = timeline.expand(events, configured, seed, start_ns + w.duration)
    fail_paths = {step.path for step in steps if step.kind in ("fail", "restore")}
    net = _Network(namespaces)
    drop_rules: list[Command] = []
    for index, (name, path) in enumerate(topo.paths.items()):
        link = (net.emulated if topo.emulator else net.direct)(index, name, path.between, configured[name])
        link.burst = {d: shaping.tbf_burst(v) if v["rate"] else None for d, v in configured[name].items()}
        if path.drop_packets is not None:
            link.drop_packets = path.drop_packets.model_dump()
            drop_rules.append(_drop_rules(link, path.drop_packets))
        if name in fail_paths:
            for point in link.cut_points:
                net.tc[point.ns].append(Command("tc", ["qdisc", "add", "dev", point.ifname, "ingress"], point.ns))
    setup += net.links_setup
    for ns in namespaces.values():
        setup += net.ip[ns] + net.tc[ns]
    sysctls = _sysctls(experiment.sctp)
    if sysctls:
        setup += [Command("sysctl", sysctls, namespaces[h]) for h in topo.hosts]
    buffers = _buffer_sysctls(experiment.sctp)
    if buffers:
        setup.append(Command("sysctl", buffers))
    if topo.emulator:
        setup.append(Command("sysctl", ["net.ipv4.ip_forward=1"], namespaces[EMULATOR]))
    setup += drop_rules
    links = net.links

    assoc = [
        AssociationPath(
            name,
            next(e.address for e in (link.a, link.b) if e.host == w.client),
            next(e.address for e in (link.a, link.b) if e.host == w.server),
        )
        for link in links
        if {link.a.host, link.b.host} == {w.client, w.server}
        for name in [link.path]
    ]
    sample_ms = experiment.measure.sample_interval // 1_000_000
    drain_ns = _drain_timeout_ns(experiment)
    common: list[str] = ["--sample-interval", str(sample_ms)]
    p = experiment.sctp
    if p.nodelay is not None:
        common += ["--nodelay", "1" if p.nodelay else "0"]
    if p.sack_freq is not None:
        common += ["--sack-freq", str(p.sack_freq)]
    if p.streams is not None:
        common += ["--streams", str(p.streams)]
    server_addrs = ",".join(a.server_address for a in assoc)
    client_addrs = ",".join(a.client_address for a in assoc)
    processes = [
        Process(
            f"capture-{link.path}-{end.host}", "capture", end.host, end.ns,
            # Immediate mode: without it the packets of the last, unfinished ring-buffer
            # block are lost when tcpdump is stopped.
            ["tcpdump", "-i", end.ifname, "-n", "--immediate-mode", "-U", "-s", str(CAPTURE_SNAPLEN),
             "-w", f"{{run}}/captures/{link.path}-{end.host}.pcap"],
            "tcpdump: listening on",
        )
        for link in (links if experiment.measure.capture else [])
        for end in (link.a, link.b)
    ] + [
        Process(
            "server", "server", w.server, namespaces[w.server],
            [agent, "server", "--local", server_addrs, "--port", str(w.port), "--records", "{run}/records/server.rec", *common],
            "listening",
        ),
        Process(
            "client", "client", w.client, namespaces[w.client],
            [
                agent, "client", "--local", client_addrs, "--peer", server_addrs, "--port", str(w.port),
                "--records", "{run}/records/client.rec", "--size", str(w.size), "--rate", f"{w.rate:g}",
                "--arrival", w.arrival, "--seed", str(seed), "--duration", str(w.duration // 1_000_000),
                "--send-streams", str(w.streams), "--drain-timeout", str(drain_ns // 1_000_000),
                *(["--unordered"] if not w.ordered else []), *common,
            ],
            "ready",
        ),
    ]

    actions = [TimedAction(start_ns, "start", "workload", control="start {t}")]
    by_path = {link.path: link for link in links}
    actions += [_action(step, by_path, assoc) for step in steps]
    actions.sort(key=lambda a: a.at_ns)

    return Plan(
        format=PLAN_FORMAT,
        experiment=experiment.name or "experiment",
        run_id=rid,
        repetition=repetition,
        seed=seed,
        modules=MODULES,
        namespaces=namespaces,
        links=links,
        setup=setup,
        processes=processes,
        timeline=actions,
        association=assoc,
        workload={
            "size": w.size, "rate": w.rate, "arrival": w.arrival, "ordered": w.ordered, "streams": w.streams,
            "start_ns": start_ns, "duration_ns": w.duration, "client": w.client, "server": w.server,
        },
        sctp=requested_sctp(experiment.sctp),
        sample_interval_ns=experiment.measure.sample_interval,
        end_ns=start_ns + w.duration,
        drain_timeout_ns=drain_ns,
        clock=experiment.clock,
        variation=variation,
        selfcheck=experiment.measure.selfcheck.tolerances().to_dict(),
    )


def draw_variation(vary: Any, n_events: int, seed: int) -> dict[str, Any]:
    """The repetition's seeded draws; empty when the experiment asks for none.

    A stream of its own (not the workload's or pingpong's) so that adding variation
    leaves every other random element of the run as it was.
    """
    rng = random.Random(f"sctpbench-vary-{seed}")
    out: dict[str, Any] = {}
    if vary.start:
        out["start_offset_ns"] = int(rng.random() * vary.start)
    if vary.event_phase and n_events:
        out["event_phase_ns"] = [int(rng.random() * vary.event_phase) for _ in range(n_events)]
    return out


def _render_variation(variation: dict[str, Any]) -> str:
    parts = []
    if "start_offset_ns" in variation:
        parts.append(f"workload start +{variation['start_offset_ns'] / 1e6:.3f} ms")
    if "event_phase_ns" in variation:
        parts.append("event phases " + ", ".join(f"+{p / 1e6:.3f} ms" for p in variation["event_phase_ns"]))
    return "; ".join(parts)


def _action(step: timeline.Step, by_path: dict[str, Link], assoc: list[AssociationPath]) -> TimedAction:
    """The commands that carry out one step, and the devices that confirm them."""
    if step.kind == "primary":
        return TimedAction(step.at_ns, "primary", step.path, control=f"primary {_primary_address(step.path, assoc)}")
    link = by_path[step.path]
    detail = step.origin if step.origin != step.kind else ""
    if step.kind in ("fail", "restore"):
        ends = link.cut_points
        verb = ["filter", "add" if step.kind == "fail" else "del", "dev"]
        tail = ["ingress", "pref", "1"] + (["matchall", "action", "drop"] if step.kind == "fail" else [])
        cmds = [Command("tc", [*verb, e.ifname, *tail], e.ns) for e in ends]
        return TimedAction(step.at_ns, action_kind(step.kind), step.path, cmds, confirm=[[e.ns, e.ifname] for e in ends], detail=detail)
    if step.kind == "degrade":
        assert step.direction is not None
        at = link.shaped_at[step.direction]
        cmds = [Command("tc", args, at.ns) for args in shaping.qdisc_commands(at.ifname, step.values, "change")]
        return TimedAction(step.at_ns, "degrade", step.path, cmds, confirm=[[at.ns, at.ifname]],
                           detail=f"{step.direction} {' '.join(cmds[0].args[7:])}" + (f" ({detail})" if detail else ""),
                           direction=step.direction)
    ends = [link.a, link.b]
    cmds = [Command("ip", ["link", "set", "dev", e.ifname, step.kind], e.ns) for e in ends]
    if step.kind == "up":
        cmds += link.routes
    return TimedAction(step.at_ns, action_kind(step.kind), step.path, cmds, confirm=[[e.ns, e.ifname] for e in ends], detail=detail)


# statistic's counter wraps at --every; a pattern without a period must never repeat.
ONCE = 2**31 - 1
DROP_MARK = "0x5b"


def _drop_rules(link: Link, pattern: Any) -> Command:
    """KauNet-style packet-driven loss on the emulator's FORWARD path.

    One statistic-nth rule per position marks the packet, a last rule drops marked ones.
    Marking instead of dropping keeps every rule's counter seeing every packet, so the
    counters stay in step; packets are counted per direction, by the emulator interface
    they came in on, before netem shapes them.
    """
    lines = ["*filter"]
    ingress = {"forward": link.emulator[0], "reverse": link.emulator[1]}
    directions = ["forward", "reverse"] if pattern.direction == "both" else [pattern.direction]
    match = ["-p", "sctp", "-m", "sctp", "--chunk-types", "any", "DATA"] if pattern.data_only else []
    every = pattern.every or ONCE
    for direction in directions:
        chain = f"sb-{link.path}-{direction[:3]}"
        lines += [f":{chain} - [0:0]", f"-A FORWARD -i {ingress[direction].ifname} -j {chain}"]
        lines += [
            " ".join(["-A", chain, *match, "-m", "statistic", "--mode", "nth", "--every", str(every),
                      "--packet", str(p - 1), "-j", "MARK", "--set-mark", DROP_MARK])
            for p in pattern.positions
        ]
        lines.append(f"-A {chain} -m mark --mark {DROP_MARK} -j DROP")
    lines.append("COMMIT")
    return Command("iptables", lines, link.emulator[0].ns)


def subnet_address(n: int, host: int) -> str:
    """Address `host` of the n-th /24 of 198.18.0.0/15 (n < 512)."""
    return f"198.{18 + n // 256}.{n % 256}.{host}"


class _Network:
    """Accumulates links and the per-namespace ip and tc commands that make them."""

    def __init__(self, namespaces: dict[str, str]) -> None:
        self.namespaces = namespaces
        self.links: list[Link] = []
        self.links_setup: list[Command] = []
        self.ip: dict[str, list[Command]] = {ns: [Command("ip", ["link", "set", "lo", "up"], ns)] for ns in namespaces.values()}
        self.tc: dict[str, list[Command]] = {ns: [] for ns in namespaces.values()}

    def _iface(self, host: str, ifname: str, address: str) -> Interface:
        iface = Interface(host, self.namespaces[host], ifname, address, 24)
        self.ip[iface.ns] += [
            Command("ip", ["addr", "add", f"{address}/24", "dev", ifname], iface.ns),
            # One packet per segment on the wire: SCTP would otherwise hand the device GSO
            # super-packets that a capture shows as one packet but the path carries as several.
            Command("ip", ["link", "set", ifname, "gso_max_segs", "1", "up"], iface.ns),
        ]
        return iface

    def _veth(self, x: Interface, y: Interface) -> list[Command]:
        """A veth pair with fixed MACs and permanent neighbour entries, returned for `up`.

        Without them the first packet each way waits for ARP, whose request or reply
        crosses the shaped egress: a path's first message would pay an extra delay that
        no experiment asked for, at a moment set by which end happened to speak first.
        """
        self.links_setup.append(
            Command("ip", ["link", "add", x.ifname, "netns", x.ns, "address", mac_address(x.address), "type", "veth",
                           "peer", "name", y.ifname, "netns", y.ns, "address", mac_address(y.address)])
        )
        neighbours = [
            Command("ip", ["neigh", "replace", far.address, "lladdr", mac_address(far.address), "dev", near.ifname,
                           "nud", "permanent"], near.ns)
            for near, far in ((x, y), (y, x))
        ]
        for command, near in zip(neighbours, (x, y), strict=True):
            self.ip[near.ns].append(command)
        return neighbours

    def _shape(self, at: Interface, values: dict[str, Any]) -> None:
        self.tc[at.ns] += [Command("tc", args, at.ns) for args in shaping.qdisc_commands(at.ifname, values)]

    def direct(self, index: int, name: str, between: tuple[str, str], values: dict[str, dict[str, Any]]) -> Link:
        a = self._iface(between[0], name, subnet_address(index, 1))
        b = self._iface(between[1], name, subnet_address(index, 2))
        neighbours = self._veth(a, b)
        self._shape(a, values["forward"])
        self._shape(b, values["reverse"])
        self.links.append(Link(name, a, b, values, {"forward": a, "reverse": b}, routes=neighbours))
        return self.links[-1]

    def emulated(self, index: int, name: str, between: tuple[str, str], values: dict[str, dict[str, Any]]) -> Link:
        """Each host on a /24 of its own with the emulator; routes and rules keep each
        local address on its own path."""
        na, nb = 2 * index, 2 * index + 1
        a = self._iface(between[0], name, subnet_address(na, 1))
        b = self._iface(between[1], name, subnet_address(nb, 2))
        ea = self._iface(EMULATOR, f"{name}-a", subnet_address(na, 254))
        eb = self._iface(EMULATOR, f"{name}-b", subnet_address(nb, 254))
        # `down` takes the hosts' ends down, which drops their neighbour entries: `up` puts them back.
        hosts_neighbours = [c for c in self._veth(a, ea) + self._veth(b, eb) if c.ns in (a.ns, b.ns)]
        table = str(100 + index)
        routes: list[Command] = []
        for host, gw, far in ((a, ea, nb), (b, eb, na)):
            self.ip[host.ns].append(Command("ip", ["rule", "add", "from", host.address, "table", table], host.ns))
            routes += [
                Command("ip", ["route", "replace", f"{subnet_address(far, 0)}/24", "via", gw.address, "dev", name], host.ns),
                Command("ip", ["route", "replace", "default", "via", gw.address, "dev", name, "table", table], host.ns),
            ]
            self.ip[host.ns] += routes[-2:]
        self._shape(eb, values["forward"])
        self._shape(ea, values["reverse"])
        self.links.append(Link(name, a, b, values, {"forward": eb, "reverse": ea}, [ea, eb], hosts_neighbours + routes))
        return self.links[-1]


def mac_address(ipv4: str) -> str:
    """A locally administered MAC derived from the interface's address: fixed, so that
    neighbour entries can be written in advance."""
    return "02:5b:" + ":".join(f"{int(octet):02x}" for octet in ipv4.split("."))


def _primary_address(target: str, assoc: list[AssociationPath]) -> str:
    for a in assoc:
        if target in (a.path, a.server_address):
            return a.server_address
    allowed = ", ".join(f"{a.path} ({a.server_address})" for a in assoc)
    raise SpecError(f"events: primary: {target!r} is not a peer address of the association; allowed: {allowed}")
