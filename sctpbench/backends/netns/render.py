"""The netns backend's reading of a plan: every host a network namespace of one kernel.

A plan says what each host is given (plan/data.py); here each host becomes the namespace
`sb-<run id>-<host>`, a wire becomes a veth pair between two namespaces, and a command
becomes the exact command line the backend runs in that namespace. `render` prints them
in the order the backend runs them (`sctpbench plan`, plan.sh).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from sctpbench.plan.data import Command, Plan, Process, describe_variation

# The legacy backend, as the guest kernel has x_tables but the nft backend's tables differ.
RESTORE = {"iptables": "iptables-legacy-restore", "ip6tables": "ip6tables-legacy-restore"}


def namespace(plan: Plan, host: str) -> str:
    return f"sb-{plan.run_id[:8]}-{host}"


def namespaces(plan: Plan) -> dict[str, str]:
    """host → namespace, the emulator node included."""
    return {h: namespace(plan, h) for h in plan.hosts}


@dataclass(frozen=True)
class NsCommand:
    """A command as the netns backend runs it; `ns` None is the initial namespace."""

    tool: str
    args: list[str]
    ns: str | None = None

    def render(self) -> str:
        args = " ".join(shlex.quote(a) for a in self.args)
        if self.tool in ("ip", "tc") and self.ns:
            return f"{self.tool} -n {self.ns} {args}"
        if self.tool == "sysctl":
            return f"ip netns exec {self.ns} sysctl -q -w {args}" if self.ns else f"sysctl -q -w {args}"
        if self.tool in RESTORE:
            # args are the lines of one iptables-restore ruleset, loaded at once
            body = "\n".join(self.args)
            return f"ip netns exec {self.ns} {RESTORE[self.tool]} --noflush <<'EOF'\n{body}\nEOF"
        return f"{self.tool} {args}"


def concrete(plan: Plan, c: Command) -> NsCommand:
    if c.tool == "wire":
        x_host, x_if, x_mac, y_host, y_if, y_mac = c.args
        # `name`: ip reads a bare name that abbreviates a keyword (a path `a`: `address`) as that keyword.
        return NsCommand("ip", ["link", "add", "name", x_if, "netns", namespace(plan, x_host), "address", x_mac, "type", "veth",
                                "peer", "name", y_if, "netns", namespace(plan, y_host), "address", y_mac])
    return NsCommand(c.tool, c.args, namespace(plan, c.host) if c.host else None)


def setup(plan: Plan) -> list[NsCommand]:
    """The plan's setup, with the namespaces created once the kernel modules are loaded."""
    loaded = next((i for i, c in enumerate(plan.setup) if c.tool != "modprobe"), len(plan.setup))
    created = [NsCommand("ip", ["netns", "add", ns]) for ns in namespaces(plan).values()]
    return [concrete(plan, c) for c in plan.setup[:loaded]] + created + [concrete(plan, c) for c in plan.setup[loaded:]]


def process_argv(plan: Plan, p: Process, run_dir: str) -> list[str]:
    return ["ip", "netns", "exec", namespace(plan, p.host), *(a.replace("{run}", run_dir) for a in p.argv)]


def render_process(plan: Plan, p: Process, run_dir: str) -> str:
    # Double quotes keep a shell variable given as run_dir (the default `$RUN`) expandable.
    words = [f'"{a.replace("{run}", run_dir)}"' if "{run}" in a else shlex.quote(a) for a in p.argv]
    return f"ip netns exec {namespace(plan, p.host)} {' '.join(words)}"


def render(plan: Plan, run_dir: str = "$RUN") -> str:
    """The plan as commands a person could type, in the order the backend runs them."""
    out = [
        f"# sctpbench plan: {plan.experiment}, repetition {plan.repetition}, seed {plan.seed}, run id {plan.run_id}",
        f"# clock: {plan.clock}" + (f"; drawn for this repetition: {describe_variation(plan.variation)}" if plan.variation else ""),
        f"# RUN={run_dir} is the run's results folder",
        f"mkdir -p {run_dir}/records {run_dir}/captures" + (f" {run_dir}/traffic" if plan.traffic else ""),
    ]
    out += [c.render() for c in setup(plan)]
    out.append("# processes: each is started once the one before printed its ready line")
    for p in plan.processes:
        out.append(f"{render_process(plan, p, run_dir)} &   # ready: {p.ready_line}")
    out.append("# timeline: t0 is when every process is ready")
    for t in plan.timeline:
        head = f"# t0+{t.at_ns / 1e9:.3f}s {t.kind} {t.target}" + (f" {t.detail}" if t.detail else "")
        control = (t.control or "").replace("{t}", "<t0+at in CLOCK_MONOTONIC ns>")
        out.append(head + (f": write '{control}' to the stdin of {', '.join(t.agents)}" if control else ""))
        out += [concrete(plan, c).render() for c in t.commands]
    if plan.traffic:
        out.append("# traffic: wait for every sender; iperf3's server ends with its test, a udp sink when a line reaches its stdin")
        out += [f"#   {f.name}: {f.kind} {f.client} → {f.server} over {f.path}, t0+{f.start_ns / 1e9:.3f}s to "
                f"t0+{f.end_ns / 1e9:.3f}s, output {', '.join(f.outputs.values())}" for f in plan.traffic]
    return "\n".join(out) + "\n"
