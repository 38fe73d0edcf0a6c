"""The plan's links: interfaces and addresses on each host, veth pairs, shaping, routes,
and the emulator's packet-drop rules."""

from __future__ import annotations

from typing import Any

from sctpbench.model import shaping
from sctpbench.model.addressing import endpoint_address, mac_address, subnet_address
from sctpbench.plan.data import EMULATOR, AssociationPath, Command, Interface, Link


class Network:
    """Accumulates links and the per-namespace ip and tc commands that make them."""

    def __init__(self, hosts: list[str]) -> None:
        self.links: list[Link] = []
        self.links_setup: list[Command] = []
        self.ip: dict[str, list[Command]] = {h: [Command("ip", ["link", "set", "lo", "up"], h)] for h in hosts}
        self.tc: dict[str, list[Command]] = {h: [] for h in hosts}

    def _iface(self, host: str, ifname: str, address: str) -> Interface:
        iface = Interface(host, ifname, address, 24)
        self.ip[iface.host] += [
            Command("ip", ["addr", "add", f"{address}/24", "dev", ifname], iface.host),
            # One packet per segment on the wire: SCTP would otherwise hand the device GSO
            # super-packets that a capture shows as one packet but the path carries as several.
            Command("ip", ["link", "set", ifname, "gso_max_segs", "1", "up"], iface.host),
        ]
        return iface

    def _veth(self, x: Interface, y: Interface) -> list[Command]:
        """A wire (a veth pair in the netns backend) with fixed MACs and permanent neighbour entries, returned for `up`.

        Without them the first packet each way waits for ARP, whose request or reply
        crosses the shaped egress: a path's first message would pay an extra delay that
        no experiment asked for, at a moment set by which end happened to speak first.
        """
        self.links_setup.append(
            Command("wire", [x.host, x.ifname, mac_address(x.address), y.host, y.ifname, mac_address(y.address)])
        )
        neighbours = [
            Command("ip", ["neigh", "replace", far.address, "lladdr", mac_address(far.address), "dev", near.ifname,
                           "nud", "permanent"], near.host)
            for near, far in ((x, y), (y, x))
        ]
        for command, near in zip(neighbours, (x, y), strict=True):
            self.ip[near.host].append(command)
        return neighbours

    def _shape(self, at: Interface, values: dict[str, Any]) -> None:
        self.tc[at.host] += [Command("tc", args, at.host) for args in shaping.qdisc_commands(at.ifname, values)]

    def direct(self, index: int, name: str, between: tuple[str, str], values: dict[str, dict[str, Any]]) -> Link:
        a = self._iface(between[0], name, endpoint_address(index, 0, emulated=False))
        b = self._iface(between[1], name, endpoint_address(index, 1, emulated=False))
        neighbours = self._veth(a, b)
        self._shape(a, values["forward"])
        self._shape(b, values["reverse"])
        self.links.append(Link(name, a, b, values, {"forward": a, "reverse": b}, routes=neighbours))
        return self.links[-1]

    def emulated(self, index: int, name: str, between: tuple[str, str], values: dict[str, dict[str, Any]]) -> Link:
        """Each host on a /24 of its own with the emulator; routes and rules keep each
        local address on its own path."""
        na, nb = 2 * index, 2 * index + 1
        a = self._iface(between[0], name, endpoint_address(index, 0, emulated=True))
        b = self._iface(between[1], name, endpoint_address(index, 1, emulated=True))
        ea = self._iface(EMULATOR, f"{name}-a", subnet_address(na, 254))
        eb = self._iface(EMULATOR, f"{name}-b", subnet_address(nb, 254))
        # `down` takes the hosts' ends down, which drops their neighbour entries: `up` puts them back.
        hosts_neighbours = [c for c in self._veth(a, ea) + self._veth(b, eb) if c.host in (a.host, b.host)]
        table = str(100 + index)
        routes: list[Command] = []
        for host, gw, far in ((a, ea, nb), (b, eb, na)):
            self.ip[host.host].append(Command("ip", ["rule", "add", "from", host.address, "table", table], host.host))
            routes += [
                Command("ip", ["route", "replace", f"{subnet_address(far, 0)}/24", "via", gw.address, "dev", name], host.host),
                Command("ip", ["route", "replace", "default", "via", gw.address, "dev", name, "table", table], host.host),
            ]
            self.ip[host.host] += routes[-2:]
        self._shape(eb, values["forward"])
        self._shape(ea, values["reverse"])
        self.links.append(Link(name, a, b, values, {"forward": eb, "reverse": ea}, [ea, eb], hosts_neighbours + routes))
        return self.links[-1]


# statistic's counter wraps at --every; a pattern without a period must never repeat.
ONCE = 2**31 - 1
DROP_MARK = "0x5b"


def drop_rules(link: Link, pattern: Any) -> Command:
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
    return Command("iptables", lines, link.emulator[0].host)


def association_paths(links: list[Link], client: str, server: str) -> list[AssociationPath]:
    """The paths joining two hosts, with each end's address, in the topology's order."""
    return [
        AssociationPath(
            link.path,
            next(e.address for e in (link.a, link.b) if e.host == client),
            next(e.address for e in (link.a, link.b) if e.host == server),
        )
        for link in links
        if {link.a.host, link.b.host} == {client, server}
    ]
