"""The lab's network on the host: a network namespace of its own, one tap per guest for
management, one `uml_switch` per wire.

Everything lives in the namespace `sblab-<id>`: the taps (so a guest's management address
is reachable from the host only through `ip netns exec`, and the host's own network sees
nothing of the lab), the guests (UML opens its tap in the namespace it runs in) and the
switches (a guest's `daemon` transport reaches its switch through an abstract unix socket,
and those are per network namespace). Deleting the namespace removes the taps.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from sctpbench.lab import processes
from sctpbench.lab.layout import MANAGEMENT_PREFIX, Layout
from sctpbench.lab.state import LabError

UML_SWITCH = "uml_switch"


def netns_name(lab_id: str) -> str:
    return f"sblab-{lab_id}"


def in_netns(netns: str, argv: list[str]) -> list[str]:
    return ["ip", "netns", "exec", netns, *argv]


def management_batch(layout: Layout) -> str:
    """`ip -batch` lines that give each guest its tap and the host end of its /30."""
    lines = ["link set lo up"]
    for m in layout.machines:
        lines += [f"tuntap add dev {m.tap} mode tap", f"addr add {m.gateway}/{MANAGEMENT_PREFIX} dev {m.tap}",
                  f"link set {m.tap} up"]
    return "\n".join(lines) + "\n"


def create(netns: str, layout: Layout) -> None:
    _ip(["netns", "add", netns])
    _ip(["-n", netns, "-batch", "-"], management_batch(layout))


def exists(netns: str) -> bool:
    return Path("/run/netns", netns).exists()


def delete(netns: str) -> None:
    if exists(netns):
        _ip(["netns", "delete", netns])


def switch_argv(netns: str, ctl: Path) -> list[str]:
    return in_netns(netns, [UML_SWITCH, "-unix", str(ctl)])


def start_switch(netns: str, ctl: Path, log: Path) -> int:
    ctl.unlink(missing_ok=True)  # a socket left by a killed lab: uml_switch would refuse to bind
    return processes.start_detached(switch_argv(netns, ctl), log)


def _ip(args: list[str], stdin: str | None = None) -> None:
    done = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise LabError(f"ip {' '.join(args)}: {done.stderr.strip() or f'exit status {done.returncode}'}")
