"""The inventory: which machine plays each host of an experiment (the ansible backend).

A YAML file a person writes for their lab, or `sctpbench lab up` writes for a lab of
guests. Its shape (README, "Real machines"):

    machines:
      client:                        # an experiment's host name; `emu` is the emulator
        address: 192.0.2.10          # where SSH reaches the machine
        port: 22                     # optional (22)
        user: root                   # optional (root): the playbooks need root
        identity: ~/.ssh/lab         # optional: SSH key
        ssh_args: -o ...             # optional: more ssh options (a ProxyCommand, ...)
        python: /usr/bin/python3     # optional: the machine's interpreter (3.9 or later)
        modprobe_root: /run/modroot  # optional: modprobe -d ROOT where /lib/modules lacks the kernel's
        system: linux                # optional: linux, or freebsd for an emulator (ipfw/Dummynet: printed, not run)
        interfaces:                  # the plan's interface name → the machine's
          primary: eth1
          secondary: eth2
    clock: {bound: 5ms}              # optional: refuse a run when two clocks differ by more
                                     # (shared: paced and epochs, written by `lab up` on virtual
                                     # time: the machines share one virtual time, paced by the
                                     # wall clock; clocksync.py)
    start_margin: 20s                # optional: from launching the run to its start on every machine
    workdir: /var/tmp/sctpbench      # optional: where runs keep their files on each machine

One machine per host: the experiment's hosts are separate machines here, as in the
seeds' testbeds. A bad file gets one message naming the file, line and key.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.model import inputfile, units
from sctpbench.model.errors import SpecError

DEFAULT_BOUND_NS = 5_000_000
DEFAULT_START_MARGIN_NS = 20_000_000_000
DEFAULT_WORKDIR = "/var/tmp/sctpbench"
ENV = "SCTPBENCH_INVENTORY"  # where `--inventory` leaves the path for the backend (and campaign workers)
DEFAULT_FILE = "inventory.yaml"
MACHINE_KEYS = {"address", "port", "user", "identity", "ssh_args", "python", "modprobe_root", "interfaces", "system"}
SYSTEMS = ("linux", "freebsd")
TOP_KEYS = {"machines", "clock", "start_margin", "workdir"}
SHARED_CLOCKS = ("paced",)


@dataclass(frozen=True)
class Machine:
    host: str  # the experiment's host it plays
    address: str
    interfaces: dict[str, str]
    port: int = 22
    user: str = "root"
    identity: str | None = None
    ssh_args: str = ""
    python: str = "/usr/bin/python3"
    modprobe_root: str | None = None
    system: str = "linux"

    def ssh_command(self) -> list[str]:
        """ssh with everything Ansible is also given, up to the remote command. A connection of
        its own (no ControlPath): a multiplexing master Ansible left behind may have gone stale."""
        argv = ["ssh", "-p", str(self.port), "-o", "BatchMode=yes", "-o", "ControlPath=none"]
        if self.identity:
            argv += ["-i", self.identity]
        return argv + _split(self.ssh_args) + [f"{self.user}@{self.address}"]


@dataclass(frozen=True)
class Inventory:
    path: Path
    machines: dict[str, Machine]
    clock_bound_ns: int = DEFAULT_BOUND_NS
    start_margin_ns: int = DEFAULT_START_MARGIN_NS
    workdir: str = DEFAULT_WORKDIR
    clock_shared: str | None = None  # "paced": the machines are guests on one calendar (lab/vswitch.py)
    clock_epochs: dict[str, int] = field(default_factory=dict)  # with shared: host → time of day less boot time at start

    def machine(self, host: str) -> Machine:
        try:
            return self.machines[host]
        except KeyError:
            raise SpecError(f"{self.path}: machines: no machine for the experiment's host {host!r}; "
                            f"the inventory has {', '.join(sorted(self.machines)) or 'none'}") from None


def path_from_environment() -> Path:
    return Path(os.environ.get(ENV, DEFAULT_FILE))


def load(path: Path) -> Inventory:
    data, lines = inputfile.load(path)
    where = _Where(path, lines)
    if not isinstance(data, dict) or not isinstance(data.get("machines"), dict) or not data["machines"]:
        raise SpecError(where(("machines",), "a mapping of the experiment's host names to machines is required"))
    where.unknown((), data, TOP_KEYS)
    machines = {str(host): _machine(where, str(host), spec) for host, spec in data["machines"].items()}
    clock = data.get("clock", {})
    if not isinstance(clock, dict) or set(clock) - {"bound", "shared", "epochs"}:
        raise SpecError(where(("clock",), "allowed: {bound: DURATION, shared: paced, epochs: {HOST: NS}}"))
    if clock.get("shared") not in (None, *SHARED_CLOCKS):
        raise SpecError(where(("clock", "shared"), f"allowed: {', '.join(SHARED_CLOCKS)} (machines on one virtual time)"))
    epochs = clock.get("epochs") or {}
    if not isinstance(epochs, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in epochs.values()):
        raise SpecError(where(("clock", "epochs"), "a mapping of host names to integers (ns), as `lab up` writes it"))
    return Inventory(
        path=path, machines=machines,
        clock_bound_ns=_duration(where, ("clock", "bound"), clock.get("bound"), DEFAULT_BOUND_NS),
        start_margin_ns=_duration(where, ("start_margin",), data.get("start_margin"), DEFAULT_START_MARGIN_NS),
        workdir=_string(where, ("workdir",), data.get("workdir", DEFAULT_WORKDIR)),
        clock_shared=clock.get("shared"), clock_epochs={str(k): v for k, v in epochs.items()},
    )


@dataclass(frozen=True)
class _Where:
    path: Path
    lines: dict[tuple[str, ...], int]

    def __call__(self, key: tuple[str, ...], allowed: str) -> str:
        line = next((self.lines[key[:n]] for n in range(len(key), 0, -1) if key[:n] in self.lines), None)
        return f"{self.path}{f':{line}' if line else ''}: {'.'.join(key)}: {allowed}"

    def unknown(self, key: tuple[str, ...], spec: dict[str, Any], allowed: set[str]) -> None:
        for name in spec:
            if name not in allowed:
                raise SpecError(self((*key, str(name)), f"unknown key; allowed: {', '.join(sorted(allowed))}"))


def _machine(where: _Where, host: str, spec: object) -> Machine:
    key = ("machines", host)
    if not isinstance(spec, dict):
        raise SpecError(where(key, "a mapping with address and interfaces is required"))
    where.unknown(key, spec, MACHINE_KEYS)
    interfaces = spec.get("interfaces", {})
    if not isinstance(interfaces, dict) or not all(isinstance(v, str) and v for v in interfaces.values()):
        raise SpecError(where((*key, "interfaces"), "a mapping of the plan's interface names to this machine's"))
    port = spec.get("port", 22)
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise SpecError(where((*key, "port"), "a port number 1-65535"))
    optional = {k: _string(where, (*key, k), spec[k]) for k in ("identity", "modprobe_root", "system") if k in spec}
    if optional.get("system", "linux") not in SYSTEMS or (optional.get("system") == "freebsd" and host != "emu"):
        raise SpecError(where((*key, "system"), "linux, or freebsd for the emulator (emu) only"))
    return Machine(
        host=host, address=_string(where, (*key, "address"), spec.get("address")),
        interfaces={str(k): str(v) for k, v in interfaces.items()}, port=port,
        user=_string(where, (*key, "user"), spec.get("user", "root")),
        ssh_args=_string(where, (*key, "ssh_args"), spec.get("ssh_args", " ")).strip(),
        python=_string(where, (*key, "python"), spec.get("python", "/usr/bin/python3")), **optional,
    )


def _string(where: _Where, key: tuple[str, ...], value: object) -> str:
    if not isinstance(value, str) or not value:
        raise SpecError(where(key, "a non-empty string is required"))
    return value


def _duration(where: _Where, key: tuple[str, ...], value: object, default: int) -> int:
    if value is None:
        return default
    try:
        return units.parse_duration(value)
    except (SpecError, ValueError) as e:
        raise SpecError(where(key, f"a duration like 5ms ({e})")) from None


def _split(text: str) -> list[str]:
    return shlex.split(text)
