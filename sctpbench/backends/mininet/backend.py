"""The `mininet` backend: the plan's topology built with Mininet inside the guest.

The uml backend boots the same guest (the project's kernel, the same clocks) but runs
engine.py in it instead of the netns engine: each plan host becomes a Mininet
host, each wire a Linux bridge with two `TCLink`s (no controller, no Open vSwitch), and
the netns engine then runs the plan's setup, processes and timeline on those hosts
unchanged. The shaping stays the plan's own tc commands, not TCLink's parameters, for the
reasons in engine.py's docstring; the run folder holds what a uml run's does, plus
mininet.json (results/files.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from sctpbench.backends.mininet import topology as mininet_topology
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.protocol import Check, Report, installed_version
from sctpbench.backends.uml import backend as uml
from sctpbench.backends.uml import guests as uml_guests
from sctpbench.plan.data import Plan

# The module the guest runs (uml/init.sh: `python -m ENTRY RUN_DIR --modprobe-root DIR`).
GUEST_ENTRY = "sctpbench.backends.mininet.engine"
# mininet/engine.py's MININET_PATH, repeated so the host side does not import the guest's module.
MININET_PACKAGE = Path("/usr/lib/python3/dist-packages/mininet/net.py")
# The programs Mininet runs inside the guest (the guest's root is this machine's): its
# namespace launcher, the bridge tool of `LinuxBridge`, and ifconfig for every interface.
TOOLS = {"mnexec": "mininet", "brctl": "bridge-utils", "ifconfig": "net-tools"}


def render(plan: Plan, run_dir: str) -> str:
    """The Mininet topology, then the netns backend's commands as they run on it: the
    namespaces attached rather than added, Mininet's links instead of veth pairs."""
    topo = mininet_topology.topology(plan)
    head = [f"# mininet backend: inside a User-Mode Linux guest that sctpbench boots ({plan.clock} clock), "
            "Mininet 2.3 builds the hosts and links below; then the commands that follow run as root",
            "# Mininet(controller=None, switch=LinuxBridge, link=TCLink)",
            *(f"#   addHost({h!r}, ip=None)   # a bash shell in a network namespace of its own" for h in topo.hosts)]
    for bridge in topo.bridges:
        head.append(f"#   addSwitch({bridge.name!r})   # a Linux bridge, no STP")
        head += [f"#   addLink({link.host!r}, {bridge.name!r}, intfName1={link.intf!r}, addr1={link.mac!r}, "
                 f"intfName2={link.port!r}, addr2={link.port_mac!r})   # TCLink, no shaping parameters"
                 for link in bridge.links]
    head.append("#   start()")
    added = {netns_render.NsCommand("ip", ["netns", "add", ns]).render(): (host, ns)
             for host, ns in netns_render.namespaces(plan).items()}
    wired = {netns_render.concrete(plan, c).render() for c in mininet_topology.wires(plan)}
    body: list[str] = []
    for line in netns_render.render(plan, run_dir).splitlines():
        if line in added:
            host, ns = added[line]
            body.append(f"ip netns attach {ns} <pid of Mininet host {host}'s shell>")
        elif line in wired:
            if not any(b.startswith("# Mininet: ") for b in body):
                body.append("# Mininet: sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 (the guest's own namespace, "
                            "the bridges'), then the bridges and links above, and start()")
        else:
            body.append(line)
    return "\n".join(head + body) + "\n"


def _tool_check(tool: str, package: str) -> Check:
    path = shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin")
    return Check(f"{package} ({tool})", path is not None, path or f"not installed: apt-get install {package}")


class MininetBackend:
    """The mininet backend as the registry knows it (protocol.Backend)."""

    name = "mininet"
    clocks = uml.UmlBackend.clocks

    def checks(self) -> list[Check]:
        guest_ok, guest = uml.UmlBackend().available()
        found = MININET_PACKAGE.exists()
        return [Check("guest kernel for mininet", guest_ok, guest),
                Check("mininet (Python package)", found,
                      f"{MININET_PACKAGE.parent} ({installed_version('mininet')})" if found
                      else "not installed: apt-get install mininet"),
                *(_tool_check(tool, package) for tool, package in TOOLS.items())]

    def available(self, clock: str | None = None) -> tuple[bool, str]:
        ok, why = uml.UmlBackend().available(clock)
        if not ok:
            return False, why
        missing = "; ".join(f"{c.name}: {c.detail}" for c in self.checks()[1:] if not c.ok)
        return (False, f"needs Mininet, bridge-utils and net-tools: {missing}") if missing else (True, why)

    def run_plan(self, plan: Plan, run_dir: Path, report: Report) -> None:
        uml.run_plan(plan, run_dir, report, entry=GUEST_ENTRY)

    def missing_sysctls(self, names: Sequence[str], clock: str) -> tuple[list[str], str]:
        return uml.UmlBackend().missing_sysctls(names, clock)

    def render(self, plan: Plan, run_dir: str) -> str:
        return render(plan, run_dir)

    def host_facts(self) -> dict[str, str]:
        return {"user_mode_linux": installed_version("user-mode-linux"), "mininet": installed_version("mininet"),
                "bridge_utils": installed_version("bridge-utils")}

    def reap(self, run_id: str, owner_pid: int) -> None:
        uml_guests.kill(run_id, owner_pid)
