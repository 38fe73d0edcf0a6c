"""One machine's share of a run whose hosts are separate machines (the ansible backend).

The playbooks copy the plan and this package to every machine and start this module on
each, with `part.json` saying which of the plan's hosts the machine plays, which of its
interfaces carries each of the plan's, and when the run starts. The machine then does
what the netns engine does in one kernel, restricted to its own hosts:

- each of its hosts is a namespace on the machine, as on the netns backend; a `wire`
  becomes the machine's own interface (the cable to the other machine or the emulator)
  moved into that namespace and given the plan's name and MAC. The interface keeps its
  old name in its alias (`sctpbench:eth1`), so teardown, or clean.py after a run
  that was killed, gives it back under that name;
- only its own processes, and only the timeline actions that touch its hosts;
- every machine keeps to one schedule on the time of day, which the orchestrator
  checked agrees between the machines (clocksync.py): servers start at `start_ns`,
  clients `CLIENT_DELAY_NS` later, and t0 is `T0_DELAY_NS` after the start. Agents
  stamp CLOCK_REALTIME (`--clock realtime`), so a message's generation on one machine
  and its delivery on another can be subtracted; so do events.jsonl and backend.json.

It is the netns engine (backends/netns/engine.py) given a `MachineShare`: the engine's
extension point says which hosts, commands, actions and processes are this machine's, on
whose clock, when the processes start, what else to wait for and what to give back.

Standard library only: it runs with the machine's own python3.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from sctpbench.backends.netns import entry
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.netns.engine import NetnsEngine, run_engine, sleep_until
from sctpbench.backends.netns.render import NsCommand
from sctpbench.model.errors import BackendError
from sctpbench.plan.data import Plan, Process, TimedAction
from sctpbench.results import plan as results_plan

# After the servers start, the clients: a server listens within milliseconds on a real
# machine and within a second in a UML guest on a loaded host.
CLIENT_DELAY_NS = 3_000_000_000
# t0 after the start: every client has brought its association up.
T0_DELAY_NS = 6_000_000_000
# How long a server may take to see its association end after its client is done (netns/engine.py: 10 s).
SERVER_GRACE_NS = 10_000_000_000
ALIAS_PREFIX = "sctpbench:"  # an adopted interface's alias: its name on the machine
DONE = "done"  # the file run.yml puts in a machine's run folder once every endpoint machine is done
AGENT_ROLES = ("server", "client")
SERVER_ROLES = ("server", "capture", "traffic-server")


@dataclass(frozen=True)
class Part:
    """What the orchestrator tells one machine (part.json)."""

    machine: str  # as the inventory names it, for messages
    hosts: list[str]  # the plan's hosts this machine plays
    interfaces: dict[str, str]  # the plan's interface name → this machine's
    agent: str  # the agent binary on this machine
    modprobe_root: str | None = None  # modprobe's root where the kernel's modules are not under /lib/modules
    start_ns: int = 0  # time of day (CLOCK_REALTIME ns) the servers start at: given when the run is launched

    @classmethod
    def read(cls, path: Path) -> Part:
        return cls(**json.loads(path.read_text()))


def adopt(plan: Plan, host: str, plan_if: str, mac: str, machine_if: str) -> list[NsCommand]:
    """The machine's interface into the host's namespace, under the plan's name and MAC."""
    ns = netns_render.namespace(plan, host)
    return [
        NsCommand("ip", ["link", "set", "dev", machine_if, "down"]),
        NsCommand("ip", ["link", "set", "dev", machine_if, "alias", f"{ALIAS_PREFIX}{machine_if}"]),
        NsCommand("ip", ["link", "set", "dev", machine_if, "netns", ns]),
        NsCommand("ip", ["link", "set", "dev", machine_if, "name", plan_if, "address", mac], ns),
    ]


def give_back(ns: str, plan_if: str, machine_if: str) -> list[list[str]]:
    """The commands that return an adopted interface to the machine under its own name."""
    return [["tc", "-n", ns, "qdisc", "del", "dev", plan_if, "root"], ["tc", "-n", ns, "qdisc", "del", "dev", plan_if, "ingress"],
            ["ip", "-n", ns, "link", "set", "dev", plan_if, "down"],
            ["ip", "-n", ns, "link", "set", "dev", plan_if, "name", machine_if, "netns", "1"],
            ["ip", "link", "set", "dev", machine_if, "alias", ""]]


def wire_ends(plan: Plan, part: Part) -> list[tuple[str, str, str, str]]:
    """This machine's ends of the plan's wires: host, the plan's interface, its MAC, the machine's interface."""
    ends = []
    for c in plan.setup:
        if c.tool == "wire":
            x_host, x_if, x_mac, y_host, y_if, y_mac = c.args
            ends += [(h, i, m, machine_interface(part, h, i)) for h, i, m in ((x_host, x_if, x_mac), (y_host, y_if, y_mac))
                     if h in part.hosts]
    return ends


def local_setup(plan: Plan, part: Part) -> list[NsCommand]:
    """The plan's setup as this machine runs it: kernel-wide commands, its hosts' namespaces
    and commands, and its ends of every wire adopted instead of a veth pair."""
    commands = [netns_render.concrete(plan, c) for c in plan.setup if c.tool != "wire" and c.host in (None, *part.hosts)]
    loaded = next((i for i, c in enumerate(commands) if c.tool != "modprobe"), len(commands))
    created = [NsCommand("ip", ["netns", "add", netns_render.namespace(plan, h)]) for h in plan.hosts if h in part.hosts]
    adopted = [c for host, plan_if, mac, machine_if in wire_ends(plan, part) for c in adopt(plan, host, plan_if, mac, machine_if)]
    return commands[:loaded] + created + adopted + commands[loaded:]


def machine_interface(part: Part, host: str, plan_if: str) -> str:
    try:
        return part.interfaces[plan_if]
    except KeyError:
        raise BackendError(f"{part.machine}: the inventory gives no interface for {host}'s {plan_if!r} "
                           f"(machines.{host}.interfaces)") from None


def local_timeline(plan: Plan, hosts: list[str], agents: set[str]) -> list[TimedAction]:
    """The actions this machine applies: commands on its hosts, control lines to its agents."""
    out = []
    for action in plan.timeline:
        commands = [c for c in action.commands if c.host in hosts]
        told = [a for a in action.agents if a in agents]
        if commands or told:
            out.append(replace(action, commands=commands, agents=told, confirm=[[h, d] for h, d in action.confirm if h in hosts]))
    return out


@dataclass(frozen=True)
class MachineShare:
    """The netns engine's share on one machine: its hosts, on the time of day (engine.Share)."""

    part: Part

    def now(self) -> int:
        return time.time_ns()

    def realtime_of(self, t: int) -> int:
        return t

    def namespaces(self, plan: Plan) -> dict[str, str]:
        return {h: ns for h, ns in netns_render.namespaces(plan).items() if h in self.part.hosts}

    def setup_commands(self, plan: Plan) -> list[NsCommand]:
        return local_setup(plan, self.part)

    def timeline(self, plan: Plan) -> list[TimedAction]:
        mine = {p.name for p in plan.processes if p.host in self.part.hosts}
        return local_timeline(plan, self.part.hosts, mine)

    def agent_binary(self, plan: Plan) -> str:
        return self.part.agent

    def process_argv(self, plan: Plan, p: Process, run_dir: Path) -> list[str]:
        argv = netns_render.process_argv(plan, p, str(run_dir))
        if p.role in AGENT_ROLES:
            at = argv.index(p.argv[0])
            argv = argv[:at] + [self.part.agent, p.argv[1], "--clock", "realtime"] + argv[at + 2:]
        return argv

    def start_processes(self, engine: NetnsEngine) -> int:
        start = self.part.start_ns
        if (late := self.now() - start) > 0:
            raise BackendError(f"{self.part.machine} was ready {late / 1e9:.1f} s after the planned start: "
                               f"raise start_margin in the inventory")
        local = [p for p in engine.plan.processes if p.host in self.part.hosts]
        for first, at in ((True, start), (False, start + CLIENT_DELAY_NS)):
            sleep_until(at, self.now)
            for p in local:
                if (p.role in SERVER_ROLES) == first:
                    engine.start_process(p)
        engine.report(f"{self.part.machine}: processes up")
        return start + T0_DELAY_NS

    def wait_for_peers(self, engine: NetnsEngine, t0: int) -> None:
        """A server whose client is on another machine ends when that client is done: wait as
        long as the client may take, then as long as a server may after its client. A machine
        without agents (the emulator) carries the others' traffic until they are all done."""
        plan = engine.plan
        deadline_ns = t0 + plan.end_ns + plan.drain_timeout_ns + 10_000_000_000 + SERVER_GRACE_NS
        if not any(p.host in self.part.hosts and p.role in AGENT_ROLES for p in plan.processes):
            self._hold(engine.run_dir, deadline_ns)
        for assoc in plan.associations:
            server = engine.agents.get(assoc.server_agent)
            if server is not None and assoc.client_agent not in engine.agents:
                engine.wait_exit(server, max((deadline_ns - self.now()) / 1e9, 1.0), f"the server agent {server.name}",
                                 "did not see the association end")

    def _hold(self, run_dir: Path, deadline_ns: int) -> None:
        """Until run.yml says every endpoint is done (the file `done` in the run folder), or the
        latest they could be: an emulator torn down early would cut the paths under them."""
        while self.now() < deadline_ns and not (run_dir / DONE).exists():
            time.sleep(0.2)

    def release(self, engine: NetnsEngine) -> None:
        """The machine's interfaces back under their own names (the engine then deletes the namespaces)."""
        for host, plan_if, _, machine_if in wire_ends(engine.plan, self.part):
            for argv in give_back(netns_render.namespace(engine.plan, host), plan_if, machine_if):
                subprocess.run(argv, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sctpbench-machine-share", description="run one machine's share of a plan")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--start-ns", type=int, required=True, help="time of day (ns) the servers start at")
    args = parser.parse_args(argv)
    plan = results_plan.read(args.run_dir)
    part = replace(Part.read(args.run_dir / "part.json"), start_ns=args.start_ns)
    engine = NetnsEngine(plan, args.run_dir, entry.report, part.modprobe_root, share=MachineShare(part))
    return entry.entry(lambda: run_engine(engine), part.machine)


if __name__ == "__main__":
    sys.exit(main())
