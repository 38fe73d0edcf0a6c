"""Where the emulated network's addresses come from: 198.18.0.0/15 only (RFC 2544's
benchmarking range), so no experiment can reach a real network."""

from __future__ import annotations


def subnet_address(n: int, host: int) -> str:
    """Address `host` of the n-th /24 of 198.18.0.0/15 (n < 512)."""
    return f"198.{18 + n // 256}.{n % 256}.{host}"


def mac_address(ipv4: str) -> str:
    """A locally administered MAC derived from the interface's address: fixed, so that
    neighbour entries can be written in advance."""
    return "02:5b:" + ":".join(f"{int(octet):02x}" for octet in ipv4.split("."))


def endpoint_address(path_index: int, end: int, emulated: bool) -> str:
    """The address of end 0 or 1 (the path's `between` order) of the path at path_index:
    both ends on one /24, or each on its own /24 with the emulator."""
    return subnet_address(2 * path_index + end if emulated else path_index, end + 1)
