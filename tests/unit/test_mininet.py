"""The mininet backend without a kernel: the topology it derives from a plan, the setup it
leaves to the netns backend, what `sctpbench plan --backend mininet` prints, its registry entry."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from sctpbench.backends import registry
from sctpbench.backends.mininet import backend as mininet
from sctpbench.backends.mininet import topology as mininet_topology
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.uml import backend as uml
from sctpbench.model import spec
from sctpbench.orchestration import capabilities
from sctpbench.plan import build as planning
from sctpbench.plan.data import Plan
from sctpbench.results import files

ROOT = Path(__file__).resolve().parents[2]
AGENT = "/opt/sctpbench-agent"
IFNAMSIZ = 15  # the longest interface name Linux takes


def _plan(example: str) -> Plan:
    return planning.build(spec.load(ROOT / "examples" / example), 1, AGENT)


def _wires(plan: Plan) -> list[list[str]]:
    return [c.args for c in plan.setup if c.tool == "wire"]


def test_failover_gives_two_hosts_and_one_bridge_per_path_with_the_plans_names_and_macs() -> None:
    plan = _plan("failover.yaml")
    topo = mininet_topology.topology(plan)
    assert topo.hosts == ("client", "server")
    assert len(topo.bridges) == 2
    ends = [[(link.host, link.intf, link.mac) for link in b.links] for b in topo.bridges]
    assert ends == [[("client", "primary", w[2]), ("server", "primary", w[5])] if w[1] == "primary" else
                    [("client", "secondary", w[2]), ("server", "secondary", w[5])] for w in _wires(plan)]


def test_link_faults_puts_the_emulator_between_the_hosts_on_every_path() -> None:
    plan = _plan("link-faults.yaml")
    topo = mininet_topology.topology(plan)
    assert topo.hosts == ("client", "server", "emu")
    assert len(topo.bridges) == 4  # two paths, each end host to the emulator
    assert [[link.host for link in b.links] for b in topo.bridges] == [["client", "emu"], ["server", "emu"]] * 2
    assert {(link.host, link.intf) for link in topo.links} == {
        ("client", "primary"), ("server", "primary"), ("client", "secondary"), ("server", "secondary"),
        ("emu", "primary-a"), ("emu", "primary-b"), ("emu", "secondary-a"), ("emu", "secondary-b")}
    assert [(w[0], w[1], w[2], w[3], w[4], w[5]) for w in _wires(plan)] == [
        (x.host, x.intf, x.mac, y.host, y.intf, y.mac) for x, y in (b.links for b in topo.bridges)]


@pytest.mark.parametrize("example", ["failover.yaml", "link-faults.yaml", "failover-cross-family.yaml"])
def test_bridge_ports_have_names_and_macs_of_their_own(example: str) -> None:
    topo = mininet_topology.topology(_plan(example))
    ports = [link.port for link in topo.links]
    macs = [link.port_mac for link in topo.links]
    names = set(topo.hosts) | {b.name for b in topo.bridges}
    assert len(set(ports)) == len(ports) and not set(ports) & names
    assert len(names) == len(topo.hosts) + len(topo.bridges)  # no bridge named like a host
    # Mininet's LinuxBridge enslaves only the ports whose names contain the bridge's.
    assert all(link.bridge in link.port for link in topo.links)
    assert all(len(n) <= IFNAMSIZ for n in ports + [b.name for b in topo.bridges])
    assert len(set(macs)) == len(macs) and not set(macs) & {link.mac for link in topo.links}
    # Locally administered unicast: bit 1 of the first byte set, bit 0 clear.
    assert all(int(m.split(":")[0], 16) & 0b11 == 0b10 for m in macs)
    # Mininet derives a switch's datapath id from the digits in its name.
    assert all(re.search(r"\d", b.name) for b in topo.bridges)


@pytest.mark.parametrize("example", ["failover.yaml", "link-faults.yaml", "failover-cross-family.yaml"])
def test_the_setup_left_to_the_netns_backend_has_no_namespace_or_veth_made(example: str) -> None:
    plan = _plan(example)
    before, after = mininet_topology.before_links(plan), mininet_topology.after_links(plan)
    rendered = [c.render() for c in before + after]
    assert not [line for line in rendered if "netns add" in line or "type veth" in line]
    # Everything else of the netns backend's setup, in its order.
    netns = [c.render() for c in netns_render.setup(plan)
             if c.args[:2] != ["netns", "add"] and not (c.tool == "ip" and "veth" in c.args)]
    assert rendered == netns


def test_host_settings_that_interfaces_inherit_come_before_the_links() -> None:
    plan = _plan("failover.yaml")
    before = [c.render() for c in mininet_topology.before_links(plan)]
    assert before[0].startswith("modprobe")
    assert sum("net.ipv6.conf.default.disable_ipv6=1" in line for line in before) == 2  # client, server
    assert not any("addr add" in c.render() for c in mininet_topology.before_links(plan))


def test_plan_prints_the_mininet_topology_then_the_netns_commands_on_it() -> None:
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "plan", "examples/link-faults.yaml", "--backend", "mininet"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    first_command = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    topology = lines[:first_command]
    assert sum("addHost(" in line for line in topology) == 3
    assert sum("addSwitch(" in line for line in topology) == 4
    assert sum("addLink(" in line and "no shaping parameters" in line for line in topology) == 8
    assert "addLink('client', 'sb-br1', intfName1='primary', addr1='02:5b:c6:12:00:01'" in r.stdout
    assert "netns add" not in r.stdout and "type veth" not in r.stdout
    assert sum(line.startswith("ip netns attach sb-") for line in lines) == 3
    # The plan's own shaping and timeline, as on the netns backend.
    assert "qdisc add dev primary-b root handle 1: netem delay" in r.stdout
    assert "qdisc change dev primary-b root handle 1: netem delay 30ms" in r.stdout


def test_render_keeps_every_other_netns_line_in_order() -> None:
    plan = _plan("failover.yaml")
    ours = mininet.render(plan, "$RUN").splitlines()
    theirs = netns_render.render(plan, "$RUN").splitlines()
    kept = [line for line in theirs if "netns add" not in line and "type veth" not in line]
    assert [line for line in ours if line in set(kept)] == kept


def test_registry_has_mininet_on_the_guests_clocks_and_auto_never_takes_it() -> None:
    assert "mininet" in registry.names()
    # Where mininet could run, so could uml, which auto prefers.
    assert capabilities.choose_backend("auto")[0] != "mininet"
    backend = registry.get("mininet")
    assert backend.clocks == uml.UmlBackend.clocks
    checks = {c.name for c in backend.checks()}
    assert {"guest kernel for mininet", "mininet (Python package)", "bridge-utils (brctl)"} <= checks
    assert backend.render(_plan("failover.yaml"), "$RUN").startswith("# mininet backend")


def test_the_run_folder_contract_names_mininet_json() -> None:
    entry = next(f for f in files.FILES if f.name == "mininet.json")
    assert not entry.required and "teardown" in entry.content
