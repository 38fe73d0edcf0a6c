"""The mininet backend's reading of a plan: which Mininet nodes and links it makes, and
which of the plan's setup commands then remain for the netns backend to run.

Every plan host (the emulator node included) becomes a Mininet host; every `wire`
[host_x, if_x, mac_x, host_y, if_y, mac_y] becomes a Linux bridge of its own with two
links, host_x's interface to the bridge's first port and host_y's to its second. The
hosts' interfaces keep the plan's names and MACs; the bridge's ports get names of their
own and fixed MACs, so two runs of one plan build the same network. Pure data, no Mininet:
the host renders it (`sctpbench plan --backend mininet`) and the guest builds it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.netns.render import NsCommand
from sctpbench.plan.data import Command, Plan

# Host names are lower-case letters and digits (model/fields.py: NAME_PATTERN): a dash
# keeps a bridge's name from ever being a host's. Mininet derives a switch's datapath id
# from the digits in its name and adds to a LinuxBridge only the ports whose names
# contain the bridge's: `sb-br3` has the ports `sb-br3-1` and `sb-br3-2`.
BRIDGE_PREFIX = "sb-br"


@dataclass(frozen=True)
class TopoLink:
    """One Mininet link: a host's interface (the plan's name and MAC) to a bridge's port."""

    host: str
    intf: str
    mac: str
    bridge: str
    port: str
    port_mac: str


@dataclass(frozen=True)
class Bridge:
    """A Linux bridge standing for one wire of the plan: host_x's link, then host_y's."""

    name: str
    links: tuple[TopoLink, TopoLink]


@dataclass(frozen=True)
class Topology:
    hosts: tuple[str, ...]
    bridges: tuple[Bridge, ...]

    @property
    def links(self) -> tuple[TopoLink, ...]:
        return tuple(link for bridge in self.bridges for link in bridge.links)

    def as_dict(self) -> dict[str, object]:
        return {"hosts": list(self.hosts),
                "bridges": [{"name": b.name, "ports": [link.port for link in b.links]} for b in self.bridges],
                "links": [asdict(link) for link in self.links]}


def port_mac(index: int, side: int) -> str:
    """A bridge port's MAC: locally administered unicast (0a:…), apart from the plan's (02:…)."""
    return f"0a:5b:{index >> 8 & 0xff:02x}:{index & 0xff:02x}:00:{side:02x}"


def topology(plan: Plan) -> Topology:
    bridges = []
    for index, wire in enumerate((c for c in plan.setup if c.tool == "wire"), start=1):
        x_host, x_if, x_mac, y_host, y_if, y_mac = wire.args
        name = f"{BRIDGE_PREFIX}{index}"
        x = TopoLink(x_host, x_if, x_mac, name, f"{name}-1", port_mac(index, 1))
        y = TopoLink(y_host, y_if, y_mac, name, f"{name}-2", port_mac(index, 2))
        bridges.append(Bridge(name, (x, y)))
    return Topology(tuple(plan.hosts), tuple(bridges))


def _first_wire(plan: Plan) -> int:
    return next((i for i, c in enumerate(plan.setup) if c.tool == "wire"), len(plan.setup))


def before_links(plan: Plan) -> list[NsCommand]:
    """The setup that precedes the plan's wires: modules, and each host's settings that
    its interfaces inherit when they are made (IPv6 off, or kept quiet: plan/network.py).
    These run once the hosts exist and before Mininet makes their links."""
    return [netns_render.concrete(plan, c) for c in plan.setup[:_first_wire(plan)]]


def after_links(plan: Plan) -> list[NsCommand]:
    """The rest of the setup, without the wires (Mininet's links are them): addresses,
    neighbours, routes, qdiscs, sysctls, firewall rules, as the netns backend runs them."""
    return [netns_render.concrete(plan, c) for c in plan.setup[_first_wire(plan):] if c.tool != "wire"]


def wires(plan: Plan) -> list[Command]:
    return [c for c in plan.setup if c.tool == "wire"]
