"""The lab's inventory.yaml: the machines of a lab as the ansible backend reads them.

One entry per host of the experiment (the emulator node `emu` among them): where SSH
reaches it, with what key and options, its Python, and which of its NICs carries each of
the plan's interfaces. The ssh options take SSH into the lab's own network namespace
through socat, so nothing of the lab listens on the host's network.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sctpbench.lab.layout import Layout

SSH_PORT = 22
USER = "root"
PYTHON = "/usr/bin/python3"
# On the real clock every guest reads the host's (UML asks the host's gettimeofday), and
# `lab up` sets each to it; on virtual time they share the calendar's: far inside this bound.
CLOCK_BOUND = "5ms"
# Where guest_init.sh gives modprobe the project kernel's built-in modules.
MODPROBE_ROOT = "/run/modroot"
WORKDIR = "/var/tmp/sctpbench"  # a tmpfs in each guest, writable
HEADER = "# written by `sctpbench lab up`: the machines of lab {directory}, one per host of {experiment}\n"


@dataclass
class MachineEntry:
    """One machine of the inventory."""

    host: str
    address: str
    identity: str
    ssh_args: str
    interfaces: dict[str, str] = field(default_factory=dict)
    port: int = SSH_PORT
    user: str = USER
    python: str = PYTHON

    def ssh_argv(self, *command: str) -> list[str]:
        """`ssh` with the inventory's settings, running `command` on the machine."""
        return ["ssh", "-i", self.identity, "-p", str(self.port), *shlex.split(self.ssh_args),
                "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", f"{self.user}@{self.address}", *command]


@dataclass
class Inventory:
    machines: list[MachineEntry]
    clock_bound: str = CLOCK_BOUND
    workdir: str = WORKDIR
    clock_shared: str | None = None  # "paced": the machines share one virtual time (backends/ansible/inventory.py)
    clock_epochs: dict[str, int] = field(default_factory=dict)  # with shared: host → time of day less boot time

    def machine(self, host: str) -> MachineEntry:
        return next(m for m in self.machines if m.host == host)


# Every lab's guests have the same addresses, so SSH's default connection-sharing socket
# (Ansible's ~/.ansible/cp/%C, a hash of host, port and user) would be the same for the
# machines of two labs, and one lab's commands could go over the other's connection: each
# lab keeps its sockets in its own folder, one per machine (its address; a short name, as
# a unix socket's path is short).
CONTROL_PATH = "cm-%h"


def ssh_args(netns: str, directory: Path) -> str:
    proxy = f"ip netns exec {netns} socat STDIO TCP:%h:%p"
    return (f'-o ProxyCommand="{proxy}" -o ControlPath={directory / CONTROL_PATH} '
            f"-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null")


def from_layout(layout: Layout, netns: str, identity: Path, shared: str | None = None) -> Inventory:
    return Inventory(clock_shared=shared, machines=[
        MachineEntry(host=m.host, address=m.address, identity=str(identity), ssh_args=ssh_args(netns, identity.parent),
                     interfaces=dict(m.nics))
        for m in layout.machines
    ])


def render(inventory: Inventory, directory: Path, experiment: str) -> str:
    lines = [HEADER.format(directory=directory, experiment=experiment), "machines:\n"]
    for m in inventory.machines:
        lines += [
            f"  {_scalar(m.host)}:\n",
            f"    address: {_scalar(m.address)}\n",
            f"    port: {m.port}\n",
            f"    user: {_scalar(m.user)}\n",
            f"    identity: {_scalar(m.identity)}\n",
            f"    ssh_args: {_scalar(m.ssh_args)}\n",
            f"    python: {_scalar(m.python)}\n",
            f"    modprobe_root: {MODPROBE_ROOT}\n",
            f"    interfaces: {_flow(m.interfaces)}\n",
        ]
    shared = f", shared: {inventory.clock_shared}" if inventory.clock_shared else ""
    if inventory.clock_epochs:
        shared += f", epochs: {_flow(inventory.clock_epochs)}"
    lines += [f"clock: {{bound: {_scalar(inventory.clock_bound)}{shared}}}\n", f"workdir: {_scalar(inventory.workdir)}\n"]
    return "".join(lines)


def parse(text: str) -> Inventory:
    d: dict[str, Any] = yaml.safe_load(text)
    machines = [MachineEntry(host=str(host), address=m["address"], identity=m["identity"], ssh_args=m["ssh_args"],
                             interfaces={str(k): str(v) for k, v in (m.get("interfaces") or {}).items()},
                             port=int(m["port"]), user=m["user"], python=m["python"])
                for host, m in d["machines"].items()]
    return Inventory(machines=machines, clock_bound=str(d["clock"]["bound"]), workdir=d["workdir"],
                     clock_shared=d["clock"].get("shared"), clock_epochs=dict(d["clock"].get("epochs") or {}))


def read(path: Path) -> Inventory:
    return parse(path.read_text())


def _scalar(value: str) -> str:
    """The value as YAML writes it: plain where it can be, quoted where it must (a quote, a colon)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 16)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def _flow(mapping: dict[str, str] | dict[str, int]) -> str:
    """A mapping on one line, `{primary: eth1, secondary: eth2}`."""
    return yaml.safe_dump(mapping, default_flow_style=True, sort_keys=False, width=1 << 16).strip()
