"""The experiment's cross-checks: rules that join several parts of a validated file, run by
the loader after the models (experiment.py) accepted every value on its own.

Names that refer to each other (hosts, paths, servers' ports), what `count` makes of an
entry, shaping keys that exclude each other per direction, sysctls that associations
sharing a host (or the kernel) must agree on, values the kernel rounds or cross-checks,
and each event against the associations. Every failure is one line naming the key's place
(wording.Source).
"""

from __future__ import annotations

from typing import Any, NoReturn

from sctpbench.model import sctp_params, shaping, stacks, units
from sctpbench.model import traffic as flows
from sctpbench.model.addressing import endpoint_addresses
from sctpbench.model.errors import SpecError
from sctpbench.model.events.base import Context
from sctpbench.model.experiment import MAX_NAME_LENGTH, Experiment, PathSpec, Workload
from sctpbench.model.fields import NAME_HELP, U32_MAX
from sctpbench.model.scheduler import SCHEDULER_DEFAULT
from sctpbench.model.sctp import SctpParams
from sctpbench.model.wording import Source

# SCTP parameters the plan writes as net.sctp.* sysctls: per network namespace, so per
# host; two associations sharing a host must agree on them. The others are socket options.
SYSCTL_PARAMS = tuple(p.key for p in sctp_params.PARAMS if p.where == "sysctl")
# Socket buffer defaults: kernel-wide sysctls (net.core, net.sctp.sctp_[rw]mem), so every association must agree.
KERNEL_WIDE_PARAMS = tuple(p.key for p in sctp_params.PARAMS if p.where == "buffer")
LINUX_STREAMS = sctp_params.BY_KEY["streams"].linux_default  # outbound streams when sctp.streams is unset


def check(exp: Experiment, source: Source) -> None:
    """Every cross-check of a validated experiment; SpecError on the first that fails."""
    _check_references(exp, source)
    _check_events(exp, source)


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
        # Every path an association may start on: a drawn one is known only per repetition.
        first_paths=[p for a in exp.associations for p in exp.first_path_choices(a)],
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
        named = a.first_path if isinstance(a.first_path, list) else [a.first_path] if a.first_path is not None else []
        for first in named:
            if first not in joining:
                fail(loc + ("first_path",), f"{first!r} does not join {a.client} and {a.server}; "
                                            f"allowed: {', '.join(joining)}")
        if a.random_first_path and len(exp.first_path_choices(a)) < 2:
            fail(loc + ("random_first_path",), f"{a.name} can start only on {joining[0] if not named else named[0]!r}, "
                 "nothing to draw; allowed: a first_path list of two or more paths joining its hosts, or first_path unset "
                 "where several paths join them")
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
    _check_excluding_params(exp, fail)
    return placed


def _check_excluding_params(exp: Experiment, fail: Any) -> None:
    """Two keys that decide the same thing two ways (sctp_params: excludes) are not both set (the
    excluding one true or non-zero), in the experiment's `sctp:` or an association's merged one."""
    scopes: list[tuple[SctpParams, tuple[str, ...]]] = [(exp.sctp, ("sctp",))]
    scopes += [(exp.association_sctp(a), loc + ("sctp",)) for a, loc in _association_locs(exp) if a.sctp is not None]
    for values, loc in scopes:
        for param in sctp_params.PARAMS:
            other = param.excludes
            if other is not None and getattr(values, param.key) and getattr(values, other) is not None:
                fail(loc + (param.key,), f"{other} is set too, and decides the same thing (the kernel would take it "
                                         f"and ignore {param.key}); allowed: one of them")


def _check_shared_sysctls(exp: Experiment, fail: Any) -> None:
    """Sysctls are per namespace (kernel-wide for buffers): associations sharing one must agree."""
    asked: dict[tuple[str | None, str], tuple[Any, str]] = {}  # (host or None, key) → (value, association)
    for a, loc in _association_locs(exp):
        if a.stack == "usrsctp":
            continue  # its values are socket options of its own stack, not the kernel's
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
    for association, where in _association_locs(exp):
        _check_stack(exp, association, where, fail)


def _check_stack(exp: Experiment, a: Workload, where: tuple[str, ...], fail: Any) -> None:
    """What an association on usrsctp can have: its sctp: keys that usrsctp has, a signaling
    or mix workload (no lifetimes) without path policies; `usrsctp:` only on that stack."""
    if a.stack != "usrsctp":
        if a.usrsctp is not None:
            fail(where + ("usrsctp",), "goes with stack: usrsctp only")
        return
    values = exp.association_sctp(a)
    for key in stacks.usrsctp_refused([k for k in SctpParams.model_fields if getattr(values, k) is not None]):
        own = a.sctp is not None and getattr(a.sctp, key) is not None
        fail((where if own else ()) + ("sctp", key), f"has no meaning on stack usrsctp; allowed: "
                                                     f"{', '.join(stacks.USRSCTP_OPTIONS)}")
    if a.type == "video":
        fail(where + ("type",), "stack: usrsctp runs signaling messages without path policies; allowed: "
                                "signaling, mix")
    for i, stream in enumerate(a.mix or []):
        if stream.lifetime is not None:
            fail(where + ("mix", str(i), "lifetime"), "has no meaning on stack usrsctp (PR-SCTP is not set up there)")
    for key, value, default in (("policy", a.policy, "static"), ("signal", a.signal, None)):
        if value != default:
            fail(where + (key,), f"stack: usrsctp runs signaling messages without path policies; allowed: "
                                 f"{default if default is not None else 'none'}")
    _check_usrsctp_scheduler(a, where, fail)


def _check_usrsctp_scheduler(a: Workload, where: tuple[str, ...], fail: Any) -> None:
    """A per-message scheduler on usrsctp: not with its CMT on (which chooses each chunk's
    path itself), without hz (usrsctp gives SRTT in ms), and with the first-come stream
    scheduler only (the agent's default then; the others spin, workloads/agent/usrsctp/sched.h)."""
    if a.scheduler == SCHEDULER_DEFAULT:
        return
    cmt = a.usrsctp.cmt if a.usrsctp is not None else None
    if cmt:
        fail(where + ("scheduler",), f"has no meaning with usrsctp cmt: {cmt} (CMT chooses each chunk's path "
                                     "itself); set cmt: 0 or scheduler: primary")
    if "hz=" in a.scheduler.partition(":")[2]:
        fail(where + ("scheduler",), "hz has no meaning on stack usrsctp (it reports SRTT in ms)")
    ss = a.usrsctp.stream_scheduler if a.usrsctp is not None else None
    if ss not in (None, "first-come"):
        fail(where + ("usrsctp", "stream_scheduler"), f"{ss} with a per-message scheduler: usrsctp 0.9.5.0 spins "
                                                      "(docs/stacks.md); allowed: first-come (the default then)")


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
