"""The lab's network on the host: a network namespace of its own, one tap per guest for
management, and either one `uml_switch` per wire (real clock) or the lab's vswitch, which
carries every NIC and keeps the guests' shared virtual time (vswitch.py).

Everything lives in the namespace `sblab-<id>`: the taps (so a guest's management address
is reachable from the host only through `ip netns exec`, and the host's own network sees
nothing of the lab), the guests (UML opens its tap in the namespace it runs in) and the
switches (a guest's `daemon` transport reaches its switch through an abstract unix socket,
and those are per network namespace). Deleting the namespace removes the taps.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sctpbench.lab import processes
from sctpbench.lab.layout import MANAGEMENT_NIC, MANAGEMENT_PREFIX, Layout, Machine
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


def calendar_socket(directory: Path) -> Path:
    return directory / "calendar.sock"


def vhost_socket(directory: Path, machine: Machine, nic: str) -> Path:
    """Where the vswitch serves one NIC of one guest (short: a unix socket's path is)."""
    return directory / f"vu{machine.index}-{nic.removeprefix('eth')}.sock"


def management_mac(machine: Machine) -> str:
    """eth0's MAC (locally administered; the plan's NICs have their own)."""
    return f"02:5b:ff:00:{machine.index // 256:02x}:{machine.index % 256:02x}"


def vswitch_config(layout: Layout, directory: Path) -> dict[str, object]:
    """What the vswitch serves: a port per guest NIC; a wire's two ends share a segment, a
    guest's eth0 has one of its own with the guest's tap."""
    ports: list[dict[str, object]] = []
    for m in layout.machines:
        ports.append({"name": f"{m.host}/{MANAGEMENT_NIC}", "socket": str(vhost_socket(directory, m, MANAGEMENT_NIC)),
                      "mac": management_mac(m), "segment": f"management-{m.index}", "tap": m.tap, "guest": m.index})
    for s in layout.switches:
        for p in s.ports:
            m = layout.machine(p.host)
            ports.append({"name": f"{p.host}/{p.nic}", "socket": str(vhost_socket(directory, m, p.nic)),
                          "mac": p.mac, "segment": s.name, "tap": None, "guest": m.index})
    return {"calendar": str(calendar_socket(directory)), "stats": str(directory / "logs" / "vswitch.json"),
            "ports": ports}


def start_vswitch(netns: str, config: dict[str, object], path: Path, log: Path) -> int:
    """The vswitch in the lab's namespace (it opens the taps there); its calendar socket appears once it serves."""
    Path(str(config["calendar"])).unlink(missing_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return processes.start_detached(in_netns(netns, [sys.executable, "-m", "sctpbench.lab.vswitch", str(path)]), log)
