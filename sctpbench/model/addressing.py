"""Where the emulated network's addresses come from: benchmarking ranges only, so no
experiment can reach a real network.

- IPv4 from 198.18.0.0/15 (RFC 2544): one /24 per path, two with the emulator.
- IPv6 from 2001:2::/48 (RFC 5180): one /64 per path, two with the emulator.

Both families number their subnets alike: subnet n is 198.18.0.0/15's n-th /24 and
2001:2:0:n::/64, and host h of it is 198.18.n.h and 2001:2:0:n::h (h in hex), so a
dual-stack interface's two addresses read as one (198.18.1.2 and 2001:2:0:1::2). A
path's family (`ipv4`, `ipv6` or `dual`) says which of them its interfaces get.
"""

from __future__ import annotations

import ipaddress
from typing import Literal

Family = Literal["ipv4", "ipv6", "dual"]
FAMILIES: tuple[Family, ...] = ("ipv4", "ipv6", "dual")
IPV6_PREFIX = ipaddress.IPv6Network("2001:2::/48")
PREFIX_LENGTH = {"ipv4": 24, "ipv6": 64}
# The IP header each packet carries (no options or extension headers on the paths).
IP_HEADER_BYTES = {"ipv4": 20, "ipv6": 40}


def subnet_address(n: int, host: int) -> str:
    """Address `host` of the n-th /24 of 198.18.0.0/15 (n < 512)."""
    return f"198.{18 + n // 256}.{n % 256}.{host}"


def subnet6_address(n: int, host: int) -> str:
    """Address `host` of the n-th /64 of 2001:2::/48 (n < 65536), in the canonical
    (RFC 5952) form the agent and tshark print, so addresses compare as strings."""
    return str(IPV6_PREFIX.network_address + (n << 64) + host)


def subnet6(n: int) -> str:
    """The n-th /64 of 2001:2::/48, as a route's destination."""
    return f"{subnet6_address(n, 0)}/64"


def mac_address(ipv4: str) -> str:
    """A locally administered MAC derived from an IPv4 address: fixed, so that neighbour
    entries can be written in advance."""
    return "02:5b:" + ":".join(f"{int(octet):02x}" for octet in ipv4.split("."))


def slot_mac(n: int, host: int) -> str:
    """The MAC of host `host` of subnet n, whatever the path's family: the one an IPv4
    path always had (from its IPv4 address), so IPv4 plans stay as they were."""
    return mac_address(subnet_address(n, host))


def endpoint_slot(path_index: int, end: int, emulated: bool) -> tuple[int, int]:
    """(subnet, host) of end 0 or 1 (the path's `between` order) of the path at
    path_index: both ends on one subnet, or each on its own with the emulator."""
    return (2 * path_index + end if emulated else path_index), end + 1


def slot_addresses(n: int, host: int, family: str) -> list[str]:
    """The addresses of a slot for a path of `family`: IPv4 first on a dual-stack path."""
    return ([subnet_address(n, host)] if family in ("ipv4", "dual") else []) + (
        [subnet6_address(n, host)] if family in ("ipv6", "dual") else [])


def endpoint_addresses(path_index: int, end: int, emulated: bool, family: str) -> list[str]:
    """Every address of an end of a path of `family`, IPv4 first."""
    return slot_addresses(*endpoint_slot(path_index, end, emulated), family)


def address_family(address: str) -> Family:
    """`ipv4` or `ipv6`, from the address's form."""
    return "ipv6" if ipaddress.ip_address(address).version == 6 else "ipv4"


def same_address(a: str, b: str) -> bool:
    """Whether two written addresses are one (2001:2:0:0::2 is 2001:2::2)."""
    try:
        return ipaddress.ip_address(a) == ipaddress.ip_address(b)
    except ValueError:
        return False


def first_family(family: str) -> str:
    """The family a path's first SCTP path uses: IPv4 on a dual-stack path (its address
    comes first in the agent's lists, so the association starts on it)."""
    return "ipv6" if family == "ipv6" else "ipv4"


def ip_header_bytes(family: str) -> int:
    """The IP header of a path's packets, for rates and sizes computed from headers."""
    return IP_HEADER_BYTES[first_family(family)]
