"""The plan's links: interfaces and addresses on each host, veth pairs, shaping, routes,
and the emulator's packet-drop rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sctpbench.model import shaping
from sctpbench.model.addressing import (
    PREFIX_LENGTH,
    address_family,
    endpoint_slot,
    slot_addresses,
    slot_mac,
    subnet6,
    subnet_address,
)
from sctpbench.plan.data import EMULATOR, AssociationPath, Command, Interface, Link, Tool

if TYPE_CHECKING:  # the experiment's model (pydantic) stays out of what the guest and the machines import
    from sctpbench.model.experiment import DropPattern, Topology

IPV6_OFF = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
# What a host that uses IPv6 gives each new interface: no router advertisements or
# autoconfiguration, no router solicitations, no duplicate address detection, no
# link-local address (addr_gen_mode 1, none) and so none of the ND and MLD traffic that
# comes with one; addresses kept when a `down` event takes the link down; unsolicited
# MLD reports (for the solicited-node groups every address joins) repeated 1 ms apart
# instead of 1 s, so they are over before captures start. Without these, a run's captures
# on an IPv6 path showed a DAD Neighbour Solicitation for each end's link-local address
# and Router Solicitations 1.3 s and 5.8 s into the run, the second during the failover.
IPV6_QUIET = [f"net.ipv6.conf.default.{key}" for key in (
    "accept_ra=0", "autoconf=0", "router_solicitations=0", "accept_dad=0", "dad_transmits=0", "addr_gen_mode=1",
    "keep_addr_on_down=1", "mldv1_unsolicited_report_interval=1", "mldv2_unsolicited_report_interval=1")]
IPV6_FORWARDING = ["net.ipv6.conf.all.forwarding=1"]
# MLD reports (v1 131 and 132, v2 143). No sysctl stops them: every address joins its
# solicited-node group, and a link coming up (an `up` event, or the carrier coming back
# on the emulator's end) reports each group twice, the emulator's router groups too (seen
# in captures: 90–150 B to ff02::16 on the path during the run). Nothing on a wire of the
# testbed needs them (no snooping switch), so each IPv6 host drops its own.
MLD_TYPES = ("131", "132", "143")
NO_MLD = ["*filter", *(f"-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type {t} -j DROP" for t in MLD_TYPES), "COMMIT"]


def ipv6_hosts(topology: Topology) -> set[str]:
    """The hosts with an interface on an IPv6 or dual-stack path (the emulator among them)."""
    used = {h for path in topology.paths.values() if path.family != "ipv4" for h in path.between}
    return used | ({EMULATOR} if used and topology.emulator else set())


def ipv6_setup(host: str, uses_ipv6: bool) -> list[Command]:
    """A host's IPv6 settings, written before its interfaces exist so they inherit
    `default`, and for a host that uses IPv6 the rules that keep its MLD reports home."""
    return [Command("sysctl", ipv6_sysctls(uses_ipv6), host)] + ([Command("ip6tables", NO_MLD, host)] if uses_ipv6 else [])


def ipv6_sysctls(uses_ipv6: bool) -> list[str]:
    """A host's IPv6 settings, written before its interfaces exist so they inherit `default`."""
    return IPV6_OFF + (IPV6_QUIET if uses_ipv6 else [])


class Network:
    """Accumulates links and the per-namespace ip and tc commands that make them."""

    def __init__(self, hosts: list[str]) -> None:
        self.links: list[Link] = []
        self.links_setup: list[Command] = []
        self.ip: dict[str, list[Command]] = {h: [Command("ip", ["link", "set", "lo", "up"], h)] for h in hosts}
        self.tc: dict[str, list[Command]] = {h: [] for h in hosts}
        self._macs: dict[tuple[str, str], str] = {}  # (host, ifname) → its fixed MAC

    def _iface(self, host: str, ifname: str, slot: tuple[int, int], family: str) -> Interface:
        addresses = slot_addresses(*slot, family)
        first = addresses[0]
        iface = Interface(host, ifname, first, PREFIX_LENGTH[address_family(first)], addresses[1] if len(addresses) > 1 else None)
        self._macs[(host, ifname)] = slot_mac(*slot)
        if family != "ipv4":
            # IPv6 is off in every namespace (build.py) and on only where a path uses it.
            self.ip[host].append(Command("sysctl", [f"net.ipv6.conf.{ifname}.disable_ipv6=0"], host))
        self.ip[host] += [
            # nodad: the address is usable at once, without a Neighbour Solicitation on the path.
            Command("ip", ["addr", "add", f"{a}/{PREFIX_LENGTH[address_family(a)]}", "dev", ifname]
                    + (["nodad"] if address_family(a) == "ipv6" else []), host)
            for a in addresses
        ] + [
            # One packet per segment on the wire: SCTP would otherwise hand the device GSO
            # super-packets that a capture shows as one packet but the path carries as several.
            # `dev`, since ip reads a bare name that abbreviates a keyword (a path `a`) as it.
            Command("ip", ["link", "set", "dev", ifname, "gso_max_segs", "1", "up"], host),
        ]
        return iface

    def _veth(self, x: Interface, y: Interface) -> list[Command]:
        """A wire (a veth pair in the netns backend) with fixed MACs and permanent neighbour entries, returned for `up`.

        Without them the first packet each way waits for ARP (IPv4) or a Neighbour
        Solicitation (IPv6), whose request or reply crosses the shaped egress: a path's
        first message would pay an extra delay that no experiment asked for, at a moment
        set by which end happened to speak first.
        """
        def mac(i: Interface) -> str:
            return self._macs[(i.host, i.ifname)]

        self.links_setup.append(Command("wire", [x.host, x.ifname, mac(x), y.host, y.ifname, mac(y)]))
        neighbours = [
            Command("ip", ["neigh", "replace", address, "lladdr", mac(far), "dev", near.ifname, "nud", "permanent"], near.host)
            for near, far in ((x, y), (y, x))
            for address in far.addresses
        ]
        for command in neighbours:
            self.ip[str(command.host)].append(command)
        return neighbours

    def _shape(self, at: Interface, values: dict[str, Any]) -> None:
        self.tc[at.host] += [Command("tc", args, at.host) for args in shaping.qdisc_commands(at.ifname, values)]

    def direct(self, index: int, name: str, between: tuple[str, str], values: dict[str, dict[str, Any]],
               family: str = "ipv4") -> Link:
        a = self._iface(between[0], name, endpoint_slot(index, 0, emulated=False), family)
        b = self._iface(between[1], name, endpoint_slot(index, 1, emulated=False), family)
        neighbours = self._veth(a, b)
        self._shape(a, values["forward"])
        self._shape(b, values["reverse"])
        self.links.append(Link(name, a, b, values, {"forward": a, "reverse": b}, routes=neighbours, family=family))
        return self.links[-1]

    def source_routes(self) -> None:
        """Per-source policy routing on direct paths, as a well-configured multihomed host has
        it: each local address has a table of its own (`ip rule from ADDR`) that sends whatever
        it sources out of its own path's interface, to every address of the host at the other
        end, not only the one on its subnet. Without it the main table picks the interface by
        destination alone, so a packet whose source is another path's address (SCTP's
        retransmissions to an alternate peer address, or DATA on a new primary before the
        ADD-IP that makes its address usable is acknowledged, RFC 5061 5.3 F1) leaves on the
        destination's path: docs/experiments.md, "Source addresses"."""
        for index, link in enumerate(self.links):
            table = str(200 + index)
            for near, far in ((link.a, link.b), (link.b, link.a)):
                far_addresses = [a for other in self.links for end in (other.a, other.b)
                                 if end.host == far.host and {other.a.host, other.b.host} == {near.host, far.host}
                                 for a in end.addresses]
                added: list[Command] = []
                for local in near.addresses:
                    v6 = address_family(local) == "ipv6"
                    rule = ["rule", "add", "from", local, "table", table]
                    self.ip[near.host].append(Command("ip", ["-6", *rule] if v6 else rule, near.host))
                    for address in far_addresses:
                        if address_family(address) != address_family(local):
                            continue
                        added.append(Command("ip", ["route", "replace", f"{address}/{128 if v6 else 32}", "dev", near.ifname,
                                                    "table", table], near.host))
                        if address not in far.addresses:  # this link's own far addresses have theirs already
                            added.append(Command("ip", ["neigh", "replace", address, "lladdr", self._macs[(far.host, far.ifname)],
                                                        "dev", near.ifname, "nud", "permanent"], near.host))
                self.ip[near.host] += added
                link.routes += added

    def emulated(self, index: int, name: str, between: tuple[str, str], values: dict[str, dict[str, Any]],
                 family: str = "ipv4") -> Link:
        """Each host on a subnet of its own with the emulator; routes and rules keep each
        local address on its own path."""
        na, nb = 2 * index, 2 * index + 1
        a = self._iface(between[0], name, endpoint_slot(index, 0, emulated=True), family)
        b = self._iface(between[1], name, endpoint_slot(index, 1, emulated=True), family)
        ea = self._iface(EMULATOR, f"{name}-a", (na, 254), family)
        eb = self._iface(EMULATOR, f"{name}-b", (nb, 254), family)
        # `down` takes the hosts' ends down, which drops their neighbour entries: `up` puts them back.
        hosts_neighbours = [c for c in self._veth(a, ea) + self._veth(b, eb) if c.host in (a.host, b.host)]
        table = str(100 + index)
        routes: list[Command] = []
        for host, gw, far in ((a, ea, nb), (b, eb, na)):
            for local, via in zip(host.addresses, gw.addresses, strict=True):
                # Routes and neighbours take their family from the addresses, so that `up`
                # can replay them in one `ip -batch` (whose lines take no -6); ::/0 rather
                # than `default`, which would be IPv4's. Only `ip rule` needs -6.
                v6 = address_family(local) == "ipv6"
                rule = ["rule", "add", "from", local, "table", table]
                self.ip[host.host].append(Command("ip", ["-6", *rule] if v6 else rule, host.host))
                routes += [
                    Command("ip", ["route", "replace", subnet6(far) if v6 else f"{subnet_address(far, 0)}/24", "via", via,
                                   "dev", name], host.host),
                    Command("ip", ["route", "replace", "::/0" if v6 else "default", "via", via, "dev", name, "table", table],
                            host.host),
                ]
                self.ip[host.host] += routes[-2:]
        self._shape(eb, values["forward"])
        self._shape(ea, values["reverse"])
        self.links.append(Link(name, a, b, values, {"forward": eb, "reverse": ea}, [ea, eb], hosts_neighbours + routes,
                               family=family))
        return self.links[-1]


# statistic's counter wraps at --every; a pattern without a period must never repeat.
ONCE = 2**31 - 1
DROP_MARK = "0x5b"


def drop_rules(link: Link, pattern: DropPattern) -> list[Command]:
    """KauNet-style packet-driven loss on the emulator's FORWARD path.

    One statistic-nth rule per position marks the packet, a last rule drops marked ones.
    Marking instead of dropping keeps every rule's counter seeing every packet, so the
    counters stay in step; packets are counted per direction, by the emulator interface
    they came in on, before netem shapes them. IPv4 and IPv6 have a table each
    (iptables, ip6tables), so on a dual-stack path each family counts its own packets.
    """
    tools: list[Tool] = []
    if link.family != "ipv6":
        tools.append("iptables")
    if link.family != "ipv4":
        tools.append("ip6tables")
    return [Command(tool, _drop_lines(link, pattern), link.emulator[0].host) for tool in tools]


def _drop_lines(link: Link, pattern: DropPattern) -> list[str]:
    """One iptables-restore ruleset; ip6tables-restore reads the same lines."""
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
    return lines


def association_paths(links: list[Link], client: str, server: str) -> list[AssociationPath]:
    """The SCTP paths joining two hosts, with each end's address, in the topology's order:
    one per path, two (IPv4 first) for a dual-stack path."""
    out: list[AssociationPath] = []
    for link in links:
        if {link.a.host, link.b.host} != {client, server}:
            continue
        c, s = (link.a, link.b) if link.a.host == client else (link.b, link.a)
        out += [AssociationPath(link.path, ca, sa, address_family(sa))
                for ca, sa in zip(c.addresses, s.addresses, strict=True)]
    return out
