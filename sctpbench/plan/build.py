"""A validated experiment made into one run's plan (plan/data.py): hosts, links,
addresses, shaping, sysctls, processes and the timeline, with its seeded draws."""

from __future__ import annotations

import hashlib
import random
from pathlib import PurePosixPath
from typing import Any

from sctpbench.model import sctp_params, shaping, stacks, timeline
from sctpbench.model.experiment import Experiment, SignalTrace, Vary, Workload
from sctpbench.model.messages import MixStream, Video
from sctpbench.model.scheduler import SCHEDULER_DEFAULT
from sctpbench.model.sctp import SctpParams
from sctpbench.model.stacks import UsrsctpParams
from sctpbench.plan import dar, schedule, signal
from sctpbench.plan import traffic as flows
from sctpbench.plan.actions import path_setup, timed_actions
from sctpbench.plan.data import EMULATOR, PLAN_FORMAT, Association, Command, Link, Plan, Process, TimedAction, agent_name, records_file
from sctpbench.plan.network import IPV6_FORWARDING, Network, association_paths, drop_rules, ipv6_hosts, ipv6_setup

MODULES = ["sctp", "sch_netem", "sch_tbf", "veth", "sch_ingress", "cls_matchall", "act_gact"]
# Whole packets: tshark does not dissect the chunks of a truncated SCTP packet.
CAPTURE_SNAPLEN = 65535


def run_id(experiment_json: str, repetition: int) -> str:
    """Content-derived: the same resolved experiment and repetition give the same id."""
    return hashlib.sha256(f"{experiment_json}\n{repetition}".encode()).hexdigest()[:12]


def _sysctls(sctp: SctpParams) -> list[str]:
    """`net.sctp.*` writes, ordered so the kernel's rto_min ≤ rto_max check never trips."""
    writes = [(f"net.sctp.{p.name}", sctp_params.sysctl_value(p, getattr(sctp, p.key)))
              for p in sctp_params.PARAMS if p.where == "sysctl" and getattr(sctp, p.key) is not None]
    # The kernel refuses rto_min > rto_max at every write: the pair goes first, rto_max
    # first unless it is below the rto_min in force (Linux's default).
    pair = ["net.sctp.rto_max", "net.sctp.rto_min"]
    if sctp.rto_max is not None and sctp.rto_max // 1_000_000 < sctp_params.BY_KEY["rto_min"].linux_default:
        pair.reverse()
    writes.sort(key=lambda w: pair.index(w[0]) if w[0] in pair else len(pair))
    if sctp.pf_enable is not False:
        # PF is on (Linux's default too): unless pf_expose is 2 (SCTP_PF_EXPOSE_ENABLE; 0 is
        # unset, 1 disable) the kernel never tells the application a path went potentially
        # failed, and PF detection would go unseen.
        writes.append(("net.sctp.pf_expose", str(sctp_params.PF_EXPOSE_ENABLE)))
    return [f"{k}={v}" for k, v in writes]


DRAIN_TIMEOUT_NS = 10_000_000_000
LINUX_SNDBUF = sctp_params.BY_KEY["sndbuf"].linux_default


def _drain_timeout_ns(experiment: Experiment, association: Workload) -> int:
    """A saturating client leaves a full send buffer behind: give the slowest path time to carry it."""
    if association.arrival != "saturate":
        return DRAIN_TIMEOUT_NS
    rates = [p.direction(d)["rate"] for p in experiment.topology.paths.values() for d in timeline.DIRECTIONS]
    slowest = min((r for r in rates if r), default=None)
    if slowest is None:
        return DRAIN_TIMEOUT_NS
    buffered = (experiment.association_sctp(association).sndbuf or LINUX_SNDBUF) * 8 / slowest
    return DRAIN_TIMEOUT_NS + int(2 * buffered * 1e9)


def _buffer_sysctls(sctp: SctpParams) -> list[str]:
    """Socket buffer sizes. A new SCTP socket starts with net.core's default sizes, and SCTP
    accounts its memory against net.sctp.sctp_[rw]mem; both are kernel-wide, not per
    namespace. The backend puts the old values back when the run ends."""
    writes = []
    for param in (p for p in sctp_params.PARAMS if p.where == "buffer"):  # name: rmem or wmem
        value = getattr(sctp, param.key)
        if value is not None:
            writes += [f"net.core.{param.name}_max={value}", f"net.core.{param.name}_default={value}",
                       f"net.sctp.sctp_{param.name}=4096 {value} {max(value, 4 * 1024 * 1024)}"]
    return writes


def requested_sctp(sctp: SctpParams) -> dict[str, Any]:
    """Requested parameters in the units the kernel reports them (ms, counts, booleans)."""
    out: dict[str, Any] = {}
    for key, value in sctp.model_dump().items():
        param = sctp_params.BY_KEY[key]
        if value is None and not param.listed_unset:
            continue
        out[param.reported_as] = value // 1_000_000 if param.unit == "ms" and value is not None else value
    return out


# Where plans built only for their id (campaign expansion, checks) say udpgen is.
UDPGEN = "sctpbench-udpgen"


def identity(experiment: Experiment) -> str:
    """What a run id is a hash of, besides the repetition (run_id): the same for every
    repetition of an experiment, so a campaign makes it once per configuration."""
    return str(experiment.model_dump_json(exclude=_identity_exclude(experiment)))


def seed_of(experiment: Experiment, repetition: int) -> int:
    return int(experiment.seed) + repetition - 1


def build(experiment: Experiment, repetition: int, agent: str, udpgen: str = UDPGEN) -> Plan:
    """Make repetition `repetition` (1-based) of a validated experiment concrete."""
    rid = run_id(identity(experiment), repetition)
    topo = experiment.topology
    hosts = list(topo.hosts) + ([EMULATOR] if topo.emulator else [])
    setup: list[Command] = [Command("modprobe", ["-a", *MODULES])]
    # IPv6 is off unless a path uses it (network.py turns it on per interface), which keeps
    # router and neighbour chatter off the paths and captures.
    setup += [c for h in hosts for c in ipv6_setup(h, h in ipv6_hosts(topo))]
    seed = seed_of(experiment, repetition)
    variation = draw_variation(experiment.vary, len(experiment.events), seed)
    start_offset = variation.get("start_offset_ns", 0)
    phases = variation.get("event_phase_ns", [0] * len(experiment.events))
    events = [ev.model_copy(update={"at": ev.at + phase}) for ev, phase in zip(experiment.events, phases, strict=True)]
    configured: dict[str, dict[str, dict[str, Any]]] = {name: {d: path.direction(d) for d in timeline.DIRECTIONS}
                                                       for name, path in topo.paths.items()}
    steps = timeline.expand(events, configured, seed, start_offset + experiment.end_ns)
    net = Network(hosts)
    drops: list[Command] = []
    for index, (name, path) in enumerate(topo.paths.items()):
        link = (net.emulated if topo.emulator else net.direct)(index, name, path.between, configured[name], path.family)
        link.burst = {d: shaping.tbf_burst(v) if v["rate"] and not shaping.is_link(v) else None for d, v in configured[name].items()}
        if path.drop_packets is not None:
            link.drop_packets = path.drop_packets.model_dump()
            drops += drop_rules(link, path.drop_packets)
        for c in path_setup(steps, link):
            assert c.host is not None, c  # a path's setup is on its hosts
            (net.tc if c.tool == "tc" else net.ip)[c.host].append(c)
    if topo.source_routing:
        net.source_routes()
    setup += net.links_setup
    for h in hosts:
        setup += net.ip[h] + net.tc[h]
    asconf_hosts = {h for a in experiment.associations if dar.uses_asconf(steps, association_paths(net.links, a.client, a.server))
                    for h in (a.client, a.server)}
    setup += _host_sysctls(experiment, asconf_hosts)
    buffers = _buffer_sysctls(_kernel_wide_sctp(experiment))
    if buffers:
        setup.append(Command("sysctl", buffers))
    if topo.emulator:
        setup.append(Command("sysctl", ["net.ipv4.ip_forward=1"] + (IPV6_FORWARDING if EMULATOR in ipv6_hosts(topo) else []),
                             EMULATOR))
    setup += drops
    links = net.links

    captures = [
        Process(
            f"capture-{link.path}-{end.host}", "capture", end.host,
            # Immediate mode: without it the packets of the last, unfinished ring-buffer
            # block are lost when tcpdump is stopped.
            ["tcpdump", "-i", end.ifname, "-n", "--immediate-mode", "-U", "-s", str(CAPTURE_SNAPLEN),
             "-w", f"{{run}}/captures/{link.path}-{end.host}.pcap"],
            "tcpdump: listening on",
        )
        for link in (links if experiment.measure.capture else [])
        for end in (link.a, link.b)
    ]
    windows = _start_window_draws(experiment.associations, seed)
    if windows:
        variation["start_window_ns"] = windows
    drawn = _first_path_draws(experiment, seed)
    if drawn:
        variation["first_path"] = drawn
    seeds = [_association_seed(seed, i, str(a.name)) for i, a in enumerate(experiment.associations)]
    schedules = [_schedule(a, s) for a, s in zip(experiment.associations, seeds, strict=True)]
    associations = [
        _association(experiment, _starting_on(a, drawn), links, start_offset + windows.get(str(a.name), 0), messages)
        for a, messages in zip(experiment.associations, schedules, strict=True)
    ]
    files = {x.schedule: schedule.render(m) for x, m in zip(associations, schedules, strict=True)
             if x.schedule is not None and m is not None}
    files |= {signal.file_name(x.name): signal.render(_signal_points(a), x)
              for a, x in zip(experiment.associations, associations, strict=True) if a.signal is not None}
    processes = captures + [
        p for i, a in enumerate(experiment.associations)
        for p in _agents(experiment, a, associations[i], agent, seeds[i], steps)
    ]

    traffic = flows.flows(experiment, links, start_offset)
    # Receivers before senders, both after the agents: every one is ready before t0.
    processes += flows.receivers(traffic, udpgen) + flows.senders(traffic, udpgen, seed)
    actions = [
        TimedAction(a.workload["start_ns"], "start", a.name, control="start {t}", agents=[a.client_agent]) for a in associations
    ]
    actions += flows.actions(traffic)
    by_path = {link.path: link for link in links}
    actions += [action for step in steps for action in timed_actions(step, by_path, associations)]
    actions.sort(key=lambda a: a.at_ns)

    return Plan(
        format=PLAN_FORMAT,
        experiment=experiment.name or "experiment",
        run_id=rid,
        repetition=repetition,
        seed=seed,
        modules=MODULES,
        hosts=hosts,
        links=links,
        setup=setup,
        processes=processes,
        timeline=actions,
        associations=associations,
        sctp=requested_sctp(experiment.sctp),
        sample_interval_ns=experiment.measure.sample_interval,
        end_ns=max(a.end_ns for a in associations),
        drain_timeout_ns=max(a.drain_timeout_ns for a in associations),
        clock=experiment.clock,
        variation=variation,
        selfcheck=experiment.measure.selfcheck.tolerances().to_dict(),
        files=files,
        traffic=traffic,
        models=list(experiment.measure.models),
    )


def _host_sysctls(experiment: Experiment, asconf_hosts: set[str]) -> list[Command]:
    """Each host's net.sctp.* sysctls (per namespace): those of the associations it is an
    end of (the spec made them agree; usrsctp ones do not count, and a host only they use gets
    none), the experiment's on a host no association uses; and
    ASCONF's on the hosts of an association whose addresses change (plan/dar.py)."""
    commands = []
    for host in experiment.topology.hosts:
        users = [a for a in experiment.associations if host in (a.client, a.server)]
        # usrsctp associations' values are their agents' options, not the kernel's.
        mine = [a for a in users if a.stack == "linux"]
        if mine or not users:
            sysctls = _sysctls(experiment.association_sctp(mine[0]) if mine else experiment.sctp)
        else:
            sysctls = []
        if host in asconf_hosts:
            sysctls += dar.ASCONF_SYSCTLS
        if sysctls:
            commands.append(Command("sysctl", sysctls, host))
    return commands


def _kernel_wide_sctp(experiment: Experiment) -> SctpParams:
    """The socket buffer sizes are kernel-wide; the spec made every association agree on them."""
    return experiment.association_sctp(experiment.associations[0])


def _association_seed(seed: int, index: int, name: str) -> int:
    """The run's seed for the first association (so one association draws as before), a
    seed of its own, derived from the name, for each other one: Poisson arrivals differ."""
    if index == 0:
        return seed
    return int.from_bytes(hashlib.sha256(f"{seed}/{name}".encode()).digest()[:8], "big")


def _start_window_draws(associations: list[Workload], seed: int) -> dict[str, int]:
    """Each association's draw in its start window: a stream of its own per association, so
    adding one leaves the others' starts as they were."""
    return {str(a.name): int(random.Random(f"sctpbench-start-window:{seed}:{a.name}").random() * a.start_window)
            for a in associations if a.start_window}


def _first_path_draws(experiment: Experiment, seed: int) -> dict[str, str]:
    """Each random_first_path association's first path for this repetition: a stream of its
    own per association (as the start windows'), so the others' draws stay as they were."""
    return {str(a.name): random.Random(f"sctpbench-first-path:{seed}:{a.name}").choice(experiment.first_path_choices(a))
            for a in experiment.associations if a.random_first_path}


def _starting_on(a: Workload, drawn: dict[str, str]) -> Workload:
    """The association with its drawn first path in place of the list it was drawn from."""
    first = drawn.get(str(a.name))
    return a if first is None else a.model_copy(update={"first_path": first, "random_first_path": False})


def _schedule(a: Workload, seed: int) -> list[schedule.Message] | None:
    """The messages of a video or mix workload, compiled and seeded; None for signaling,
    whose arrivals the agent draws itself."""
    if a.type == "video":
        v = _video(a)
        frames = schedule.looped(v.frame_list(), a.duration, v.loop)
        return schedule.video(frames, v.fragment or schedule.MAX_SIZE, v.stream, _ms(v.lifetime))
    if a.type == "mix":
        assert a.mix is not None, a.name  # the spec's rule for type mix
        return schedule.merge(*(schedule.mix(_mix(m), a.duration, seed, i) for i, m in enumerate(a.mix)))
    return None


def _video(a: Workload) -> Video:
    assert a.video is not None, a.name  # the spec's rule for type video
    return a.video


def _signal_points(a: Workload) -> list[tuple[int, str, float]]:
    """The signal trace's points: loading reads a trace's file into them (model/loading.py)."""
    assert isinstance(a.signal, SignalTrace) and a.signal.points is not None, a.name
    return a.signal.points


def _mix(m: MixStream) -> schedule.Mix:
    return schedule.Mix(
        size=m.size.distribution(), gap=m.gap.distribution(), stream=m.stream, unordered=not m.ordered,
        lifetime_ms=_ms(m.lifetime), on=m.burst.distribution() if m.burst else None, off=m.pause.distribution() if m.pause else None,
    )


def _ms(lifetime: int | None) -> int:
    return 0 if lifetime is None else lifetime // 1_000_000


def _streams(messages: list[schedule.Message]) -> int:
    return max((m.stream for m in messages), default=0) + 1


def _offered(a: Workload, messages: list[schedule.Message] | None) -> dict[str, Any]:
    """What the association offers, as planned: payload and wire bit/s over its duration
    (the wire counting Ethernet, IPv4 and SCTP headers, schedule.wire_bytes). None when saturating."""
    seconds = a.duration / 1e9
    if messages is not None:
        sizes = [m.size for m in messages]
    elif a.arrival == "saturate":
        return {"offered_bps": None, "offered_wire_bps": None}
    else:
        sizes = [a.size] * round(a.rate * seconds)
    return {"offered_bps": sum(sizes) * 8 / seconds, "offered_wire_bps": sum(map(schedule.wire_bytes, sizes)) * 8 / seconds}


def _association(experiment: Experiment, a: Workload, links: list[Link], start_offset: int,
                 messages: list[schedule.Message] | None) -> Association:
    name = str(a.name)
    workload: dict[str, Any] = {
        "size": a.size, "rate": a.rate, "arrival": a.arrival, "ordered": a.ordered, "streams": a.streams,
        "start_ns": a.start + start_offset, "duration_ns": a.duration, "port": a.port,
    }
    if a.type != "signaling":
        # arrival, rate and size as a signaling workload's, averaged, for what reads those
        # (the self-check's serialisation and share of the path, the detection model).
        sizes = [m.size for m in messages or []]
        workload = {"type": a.type, "arrival": "schedule", "rate": len(sizes) / (a.duration / 1e9),
                    "size": round(sum(sizes) / len(sizes)) if sizes else 0, "ordered": True,
                    "streams": _streams(messages or []), "start_ns": workload["start_ns"], "duration_ns": a.duration,
                    "port": a.port, "messages": len(sizes)}
        if a.type == "video":
            workload |= {"trace": _video(a).trace, "deadline_ns": _video(a).deadline,
                         "frames": len({m.frame for m in messages or []})}
    workload |= _offered(a, messages)
    order = experiment.paths_of(a)  # its first_path first: the spec's one rule
    return Association(
        name=name, client=a.client, server=a.server,
        paths=sorted(association_paths(links, a.client, a.server), key=lambda p: order.index(p.path)),
        workload=workload,
        schedule=f"schedules/{name}.sched" if messages is not None else None,
        sctp=requested_sctp(experiment.association_sctp(a)),
        client_agent=agent_name(name, "client"), server_agent=agent_name(name, "server"),
        client_records=records_file(name, "client"), server_records=records_file(name, "server"),
        drain_timeout_ns=_drain_timeout_ns(experiment, a),
    )


USRSCTP_AGENT = "sctpbench-agent-usrsctp"  # built beside the agent (make usrsctp)


def _usrsctp_options(p: SctpParams, own: UsrsctpParams | None) -> list[str]:
    """The usrsctp agent's options: each sctp: key usrsctp has (the spec refused the others),
    then its own cmt and stream scheduler."""
    options: list[str] = []
    for key, flag in stacks.USRSCTP_OPTIONS.items():
        value = getattr(p, key)
        if value is None:
            continue
        param = sctp_params.BY_KEY[key]
        options += [flag, sctp_params.sysctl_value(param, value)]
    if own is not None and own.cmt is not None:
        options += ["--cmt", str(own.cmt)]
    if own is not None and own.stream_scheduler is not None:
        options += ["--stream-scheduler", own.stream_scheduler]
    return options


def _agents(experiment: Experiment, a: Workload, assoc: Association, agent: str, seed: int, steps: list[timeline.Step]) -> list[Process]:
    """The association's server and client agents, with its socket-level SCTP options; the
    client without the addresses the timeline adds later (plan/dar.py)."""
    sample_ms = experiment.measure.sample_interval // 1_000_000
    common: list[str] = ["--sample-interval", str(sample_ms)]
    p = experiment.association_sctp(a)
    if a.stack == "usrsctp":
        agent = str(PurePosixPath(agent).with_name(USRSCTP_AGENT))
        common += _usrsctp_options(p, a.usrsctp)
    else:
        if p.nodelay is not None:
            common += ["--nodelay", "1" if p.nodelay else "0"]
        if p.sack_freq is not None:
            common += ["--sack-freq", str(p.sack_freq)]
        if p.streams is not None:
            common += ["--streams", str(p.streams)]
    server_addrs = ",".join(x.server_address for x in assoc.paths)
    client_addrs = ",".join(x.client_address for x in dar.bound_at_start(steps, assoc))
    if assoc.schedule is not None:
        messages = ["--arrival", "schedule", "--schedule", f"{{run}}/{assoc.schedule}"]
    else:
        messages = ["--size", str(a.size), "--rate", f"{a.rate:g}", "--arrival", a.arrival, "--seed", str(seed)]
    return [
        Process(
            assoc.server_agent, "server", a.server,
            [agent, "server", "--local", server_addrs, "--port", str(a.port), "--records", f"{{run}}/{assoc.server_records}", *common],
            "listening", assoc.name,
        ),
        Process(
            assoc.client_agent, "client", a.client,
            [
                agent, "client", "--local", client_addrs, "--peer", server_addrs, "--port", str(a.port),
                "--records", f"{{run}}/{assoc.client_records}", *messages, "--duration", str(a.duration // 1_000_000),
                *(["--send-streams", str(a.streams)] if assoc.schedule is None else []),
                "--drain-timeout", str(assoc.drain_timeout_ns // 1_000_000),
                *(["--unordered"] if not a.ordered and assoc.schedule is None else []),
                *(["--policy", a.policy] if a.policy != "static" else []),
                *(["--scheduler", a.scheduler] if a.scheduler != SCHEDULER_DEFAULT else []),
                *(["--signal", f"{{run}}/{signal.file_name(assoc.name)}"] if a.signal is not None else []), *common,
            ],
            "ready", assoc.name,
        ),
    ]


def _identity_exclude(experiment: Experiment) -> dict[str, Any]:
    """What the run id leaves out: where telemetry goes, how strictly timing is judged and
    which papers' models are computed from the records (not part of what is measured), and
    association keys left unset, so that a single `workload:` keeps the id it had before
    associations existed."""
    exclude: dict[str, Any] = {"influx": True, "measure": {"selfcheck", "models"}}
    # A path's family left at ipv4 and its rate model at token-bucket too, so plans of before
    # they existed keep their id.
    defaults = {name: {k for k, default in (("family", "ipv4"), ("rate_model", "token-bucket")) if getattr(path, k) == default}
                for name, path in experiment.topology.paths.items()}
    if any(defaults.values()):
        exclude["topology"] = {"paths": {name: keys for name, keys in defaults.items() if keys}}
    if not experiment.topology.source_routing:  # newer than run ids: left out where unset
        exclude.setdefault("topology", {})["source_routing"] = True
    exclude["sctp"] = _unset_sctp_keys(experiment.sctp)
    if experiment.workloads is None:
        exclude["workloads"] = True
    else:
        unset = {i: _workload_exclude(w, _unset_keys(w) - {"name", "sctp"}) for i, w in enumerate(experiment.workloads)}
        exclude["workloads"] = {i: keys for i, keys in unset.items() if keys}
    if experiment.workload is not None:
        unset_one = _workload_exclude(experiment.workload, _unset_keys(experiment.workload))
        if unset_one:
            exclude["workload"] = unset_one
    if experiment.workload is None:
        exclude["workload"] = True
    if not experiment.traffic:  # experiments without competing traffic keep the ids they had
        exclude["traffic"] = True
    return exclude


# A workload's keys newer than run ids (name and sctp older than workloads:), with the value
# that leaves them out of the id.
NEWER_WORKLOAD_KEYS: dict[str, Any] = {"name": None, "sctp": None, "video": None, "mix": None, "count": 1, "start_window": 0,
                                       "policy": "static", "signal": None, "first_path": None,
                                       "random_first_path": False,
                                       "scheduler": SCHEDULER_DEFAULT, "stack": stacks.STACK_DEFAULT, "usrsctp": None}


def _unset_keys(workload: Workload) -> set[str]:
    return {k for k, default in NEWER_WORKLOAD_KEYS.items() if getattr(workload, k) == default}


# SCTP parameters newer than run ids: left out of the id while unset.
NEWER_SCTP_KEYS = ("max_burst", "initial_cwnd", "primary_cwnd_carry", "primary_cwnd_alpha_permille", "buffer_retransmit",
                   "rto_backoff_percent", "primary_cwnd_alpha_estimate")


def _unset_sctp_keys(sctp: SctpParams) -> set[str]:
    return {k for k in NEWER_SCTP_KEYS if getattr(sctp, k) is None}


def _workload_exclude(workload: Workload, unset: set[str]) -> dict[str, Any]:
    """The workload's unset newer keys, and its own sctp:'s unset newer parameters."""
    exclude: dict[str, Any] = {k: True for k in unset}
    if workload.sctp is not None:
        exclude["sctp"] = _unset_sctp_keys(workload.sctp)
    return exclude


def draw_variation(vary: Vary, n_events: int, seed: int) -> dict[str, Any]:
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
