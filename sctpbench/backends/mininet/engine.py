"""The mininet engine, inside the guest: the plan's hosts as Mininet hosts joined by Linux
bridges, then the netns engine's setup, processes and timeline on them, unchanged.

`python -m sctpbench.backends.mininet.engine RUN_DIR --modprobe-root DIR` is what the uml
backend runs in the guest for `--backend mininet` (backend.py). The build order:

1. one Mininet `Host` per plan host (a bash shell in a network namespace of its own),
   each namespace given the name the netns backend uses (`ip netns attach sb-<run>-<host>
   <pid of the shell>`), so every later command finds it as on the netns backend;
2. the plan's setup before its wires (modules; the host settings new interfaces inherit);
3. per wire, a `LinuxBridge` (no STP, no controller) with two `TCLink`s whose host ends
   carry the plan's interface names and MACs (topology.py); `net.start()`;
4. the rest of the plan's setup (`MininetShare`), the processes and the timeline: the
   netns engine's (backends/netns/engine.py), of which this engine is a subclass.

Why the shaping is the plan's rather than TCLink's: the timeline changes a path's netem
and tbf qdiscs in place by their handles (`tc qdisc change … handle 10:`), blackholes a
path with an ingress filter, and reads the qdiscs back into kernel.json; TCLink's own
tree (htb or tbf with netem under handles it picks) would sit where the plan's qdiscs go
and have other handles, and TCLink cannot change a delay at a planned instant. So the
TCLinks get no shaping parameters (TCLink then adds no qdisc) and the plan's tc commands
shape the hosts' interfaces exactly as on the netns backend: the two backends' results
can be compared number for number. (TCLink still runs `ethtool -K <intf> gro off tx on rx
on` on each interface; ethtool is not installed on this project's machines, so that does
nothing here.)

Mininet is Debian's package, installed for /usr/bin/python3 under
/usr/lib/python3/dist-packages, which the project's virtual environment does not see:
`load_mininet` appends that folder to sys.path before importing it (the same Python 3.11).

Teardown is the netns engine's (agents, batch sessions, kernel-wide sysctls), then
`net.stop()` (links, bridges, host shells), then the attached names; whatever is still
there after that (a failed stop) is removed by hand, and mininet.json's `teardown` says
what was left, which is nothing when all went well.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sctpbench.backends.mininet import topology as mininet_topology
from sctpbench.backends.netns import entry
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.netns.engine import NetnsEngine, Report, Share, WholePlan, run_engine
from sctpbench.backends.netns.render import NsCommand
from sctpbench.model.errors import BackendError
from sctpbench.plan.data import Plan
from sctpbench.results import mininet as results_mininet

MININET_PATH = "/usr/lib/python3/dist-packages"
# New devices of the guest's own namespace (the bridges and their ports) get IPv6 off:
# left on, each would send duplicate-address, router-solicitation and MLD packets that
# the bridge floods onto the paths, into the hosts' captures, seconds into a run.
ROOT_SYSCTLS = ["net.ipv6.conf.default.disable_ipv6=1"]
PTS = Path("/dev/pts")


def load_mininet() -> SimpleNamespace:
    """Mininet's classes, imported from Debian's package."""
    if MININET_PATH not in sys.path:
        sys.path.append(MININET_PATH)
    try:
        from mininet.link import TCLink
        from mininet.net import VERSION, Mininet
        from mininet.node import Host
        from mininet.nodelib import LinuxBridge
    except ImportError as e:
        raise BackendError(f"mininet backend: cannot import Mininet from {MININET_PATH} ({e}); "
                           "install Debian's `mininet` package") from e
    # Mininet.init raises kernel-wide limits (net.core.netdev_max_backlog, rmem_max,
    # tcp_rmem, …) that the netns backend leaves at the kernel's defaults: a saturating flow
    # would then see other queues. Marked done, it leaves them alone.
    Mininet.inited = True
    return SimpleNamespace(Mininet=Mininet, Host=Host, LinuxBridge=LinuxBridge, TCLink=TCLink, version=VERSION)


@dataclass(frozen=True)
class MininetShare(WholePlan):
    """The whole plan, its wires Mininet's links: the setup after them, without them."""

    def setup_commands(self, plan: Plan) -> list[NsCommand]:
        return mininet_topology.after_links(plan)


@dataclass
class MininetEngine(NetnsEngine):
    """The netns engine on Mininet's hosts: it builds them and their links first and removes them last."""

    share: Share = field(default_factory=MininetShare)
    net: Any = None
    attached: list[str] = field(default_factory=list)
    restore_root: list[str] = field(default_factory=list)
    mounted_pts: bool = False
    record: dict[str, Any] = field(default_factory=dict)

    def build(self) -> None:
        api = load_mininet()
        topo = mininet_topology.topology(self.plan)
        self.record = {"mininet_version": api.version, "mininet_module": MININET_PATH,
                       "switch": "LinuxBridge (no STP), no controller", "link": "TCLink without shaping parameters",
                       **topo.as_dict(), "root_sysctls": ROOT_SYSCTLS}
        self.report(f"building the Mininet network ({len(topo.hosts)} hosts, {len(topo.bridges)} bridges)")
        started = time.monotonic()
        try:
            self._build_network(api, topo)
        except (BackendError, OSError):
            raise
        except Exception as e:  # Mininet raises plain exceptions (a failed `ip link add`, a dead shell)
            raise BackendError(f"mininet: {type(e).__name__}: {e}") from e
        self.record["build_s"] = round(time.monotonic() - started, 3)
        # The same survey as after teardown, while everything is there: it sees what it looks for.
        self.record["present_after_build"] = self._survey()
        results_mininet.write(self.run_dir, self.record)
        super().build()

    def _build_network(self, api: SimpleNamespace, topo: mininet_topology.Topology) -> None:
        self._mount_pts()
        self.net = api.Mininet(topo=None, switch=api.LinuxBridge, host=api.Host, link=api.TCLink, controller=None,
                               build=False)
        early = mininet_topology.before_links(self.plan)
        for command in (c for c in early if c.tool == "modprobe"):
            self.execute([command])
        self._add_hosts(topo)
        for command in (c for c in early if c.tool != "modprobe"):
            self.execute([command])
        self._set_root_sysctls()
        for bridge in topo.bridges:
            self.net.addSwitch(bridge.name)
            for link in bridge.links:
                self.net.addLink(link.host, bridge.name, intfName1=link.intf, addr1=link.mac,
                                 intfName2=link.port, addr2=link.port_mac)
        self.net.start()

    def _add_hosts(self, topo: mininet_topology.Topology) -> None:
        """Each plan host a Mininet host (ip None: Mininet's own 10.0.0.x addresses stay
        away; the plan gives every address), its namespace named as the netns backend names it."""
        self.record["shells"] = {}
        for host in topo.hosts:
            node = self.net.addHost(host, ip=None)
            self.record["shells"][host] = node.pid
            ns = netns_render.namespace(self.plan, host)
            _run(["ip", "netns", "attach", ns, str(node.pid)])
            self.attached.append(ns)

    def _mount_pts(self) -> None:
        """Mininet talks to each host's shell over a pseudo-terminal; the guest has no devpts of its own
        (and the project's kernel mounts a devtmpfs of its own on /dev, without a pts folder)."""
        if any(line.split()[1:3] == [str(PTS), "devpts"] for line in Path("/proc/mounts").read_text().splitlines()):
            return
        PTS.mkdir(exist_ok=True)
        _run(["mount", "-t", "devpts", "-o", "newinstance,ptmxmode=0666,mode=0620", "devpts", str(PTS)])
        self.mounted_pts = True

    def _set_root_sysctls(self) -> None:
        keys = [s.partition("=")[0] for s in ROOT_SYSCTLS]
        self.restore_root = [f"{k}={_run(['sysctl', '-n', k]).strip()}" for k in keys]
        _run(["sysctl", "-q", "-w", *ROOT_SYSCTLS])

    # ------------------------------------------------------------------ teardown

    def teardown(self) -> None:
        super().teardown()
        errors: list[str] = []
        _step(errors, "net.stop()", self._stop_net)
        _step(errors, "leftovers", self._remove_leftovers)
        for ns in self.attached:
            r = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True)
            if r.returncode != 0:
                errors.append(f"ip netns del {ns}: {r.stderr.strip()}")
        if self.restore_root:
            subprocess.run(["sysctl", "-q", "-w", *self.restore_root], capture_output=True)
        if self.mounted_pts:
            subprocess.run(["umount", str(PTS)], capture_output=True)
        left = {f"{kind}_left": found for kind, found in self._survey().items()}
        self.record["teardown"] = {"errors": errors, **left, "clean": not errors and not any(left.values())}
        try:
            results_mininet.write(self.run_dir, self.record)
        except OSError:
            pass  # a full disk: the run's error says so

    def _stop_net(self) -> None:
        if self.net is not None:
            self.net.stop()

    def _remove_leftovers(self) -> None:
        """What a failed or interrupted net.stop() left: shells ended, bridges and ports deleted."""
        for pid in self._shells_alive():
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for name in self._links_present():
            subprocess.run(["ip", "link", "del", "dev", name], capture_output=True)

    def _survey(self) -> dict[str, list[str]]:
        """This run's attached namespace names, bridges and ports, and host shells that exist now."""
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        present = {line.split()[0] for line in listed.splitlines() if line.strip()}
        return {"namespaces": sorted(present & set(self.attached)), "links": self._links_present(),
                "shells": [str(pid) for pid in self._shells_alive()]}

    def _links_present(self) -> list[str]:
        """The bridges and bridge ports (the guest's own namespace) that still exist."""
        ours = {b["name"] for b in self.record.get("bridges", [])} | {p for b in self.record.get("bridges", []) for p in b["ports"]}
        out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
        names = {line.split(":")[1].strip().partition("@")[0] for line in out.splitlines() if line.count(":") >= 2}
        return sorted(names & ours)

    def _shells_alive(self) -> list[int]:
        """Host shells of this run still running (a zombie counts as gone: it holds no namespace)."""
        alive = []
        for pid in self.record.get("shells", {}).values():
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
        return alive


def _step(errors: list[str], what: str, action: Any) -> None:
    """One teardown step; a failure is written down and the next step still runs."""
    try:
        action()
    except Exception as e:  # noqa: BLE001 - Mininet raises anything; teardown must go on
        errors.append(f"{what}: {type(e).__name__}: {e}")


def _run(argv: list[str]) -> str:
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise BackendError(f"command failed (status {r.returncode}): {' '.join(argv)}\n{r.stderr.strip()}")
    return r.stdout


def run_plan(plan: Plan, run_dir: Path, report: Report, modprobe_root: str | None = None) -> None:
    run_engine(MininetEngine(plan, run_dir, report, modprobe_root))


def main(argv: list[str] | None = None) -> int:
    return entry.main(argv, "sctpbench-mininet-guest", run_plan)


if __name__ == "__main__":
    sys.exit(main())
