"""A lab's shape from a plan: one machine per host, one switch per wire, the addresses.

Pure data, no processes: which guest gets which NIC on which switch, and where SSH
reaches it. Each `wire` command of the plan (plan/data.py: [host_x, if_x, mac_x, host_y,
if_y, mac_y]) becomes one switch with one port for each of its two ends; a machine's
NICs are numbered eth1, eth2, … in the order its ends appear in the plan (eth0 is its
management NIC). The plan's interface names stay the plan's: the inventory maps them to
the machine's ethN, as it would on real machines whose NICs are named by their driver.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from sctpbench.plan.data import Plan

# The management network: a /30 per guest, host end .4i+1, guest .4i+2 (from the
# benchmarking range, never routed anywhere: the guests have no default route).
MANAGEMENT = ipaddress.IPv4Network("198.19.255.0/24")
MANAGEMENT_PREFIX = 30
MAX_MACHINES = MANAGEMENT.num_addresses // 4
MANAGEMENT_NIC = "eth0"


@dataclass(frozen=True)
class Port:
    """One end of a wire: a machine's NIC on a switch."""

    host: str
    plan_ifname: str  # the plan's name for the interface (primary, primary-a, …)
    nic: str  # the machine's name for it (eth1, …)
    mac: str  # the plan's fixed MAC, given to the NIC at boot


@dataclass(frozen=True)
class Switch:
    index: int
    ports: tuple[Port, Port]

    @property
    def name(self) -> str:
        return f"sw-{self.index}"


@dataclass
class Machine:
    """One guest: the plan's host, its management addresses, its NICs on the wires."""

    host: str
    index: int
    address: str  # the guest's end of its /30: where SSH reaches it
    gateway: str  # the host's end, on the tap in the lab's namespace
    tap: str
    nics: dict[str, str] = field(default_factory=dict)  # plan interface name → ethN

    @property
    def address_with_prefix(self) -> str:
        return f"{self.address}/{MANAGEMENT_PREFIX}"


@dataclass
class Layout:
    machines: list[Machine]
    switches: list[Switch]

    def machine(self, host: str) -> Machine:
        return next(m for m in self.machines if m.host == host)

    def ports_of(self, host: str) -> list[tuple[Port, Switch]]:
        """The host's wire ends in NIC order (eth1 first), each with its switch."""
        ends = [(p, s) for s in self.switches for p in s.ports if p.host == host]
        return sorted(ends, key=lambda e: int(e[0].nic.removeprefix("eth")))


class LayoutError(ValueError):
    """A plan the lab cannot host."""


def management_addresses(index: int) -> tuple[str, str]:
    """(host end, guest end) of the index-th machine's /30."""
    base = int(MANAGEMENT.network_address) + 4 * index
    return str(ipaddress.IPv4Address(base + 1)), str(ipaddress.IPv4Address(base + 2))


def from_plan(plan: Plan) -> Layout:
    if len(plan.hosts) > MAX_MACHINES:
        raise LayoutError(f"{len(plan.hosts)} hosts: a lab holds at most {MAX_MACHINES} machines "
                          f"(one /30 each in {MANAGEMENT})")
    machines = []
    for index, host in enumerate(plan.hosts):
        gateway, address = management_addresses(index)
        machines.append(Machine(host=host, index=index, address=address, gateway=gateway, tap=f"tap{index}"))
    by_host = {m.host: m for m in machines}
    switches = []
    wires = [c for c in plan.setup if c.tool == "wire"]
    for index, wire in enumerate(wires):
        ends = (wire.args[0:3], wire.args[3:6])
        ports = tuple(_port(by_host, host, ifname, mac) for host, ifname, mac in ends)
        switches.append(Switch(index=index, ports=(ports[0], ports[1])))
    return Layout(machines=machines, switches=switches)


def _port(by_host: dict[str, Machine], host: str, ifname: str, mac: str) -> Port:
    machine = by_host.get(host)
    if machine is None:
        raise LayoutError(f"a wire names host {host!r}, which is not among the plan's hosts")
    nic = f"eth{len(machine.nics) + 1}"
    machine.nics[ifname] = nic
    return Port(host=host, plan_ifname=ifname, nic=nic, mac=mac)
