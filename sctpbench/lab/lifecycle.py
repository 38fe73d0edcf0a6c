"""`lab up`, `lab down`, `lab status`: a lab's life, from an experiment file to guests that
answer SSH, and back to nothing.

`up` records each piece in lab.json before it starts it and tears down what it started
when it fails (saying which guest and showing the end of its console log), so neither a
failed `up` nor a killed one leaves anything that `down` cannot find. The guests and
switches outlive `up` (sessions of their own); `down` ends them, deletes the namespace and
removes the sockets, and is safe to run twice.
"""

from __future__ import annotations

import datetime
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sctpbench.backends.ansible import clocksync
from sctpbench.backends.ansible import inventory as backend_inventory
from sctpbench.backends.uml import kernel as uml_kernel
from sctpbench.lab import guests, inventory, keys, network, processes, state
from sctpbench.lab.layout import Layout, LayoutError, from_plan
from sctpbench.lab.state import GuestState, LabError, LabRunning, LabState, SwitchState
from sctpbench.model import spec
from sctpbench.plan import build as planning
from sctpbench.plan.data import Plan

# Three guests boot to SSH in a few seconds on an idle 2-CPU machine; a loaded one is slower.
BOOT_TIMEOUT_S = 120.0
SSH_PROBE_TIMEOUT_S = 30.0
SWITCH_TIMEOUT_S = 5.0
POLL_S = 0.05
VSWITCH_CONFIG = "vswitch.json"
# What the inventory says of the guests' clocks on virtual time (backends/ansible/inventory.py: clock.shared).
SHARED_CLOCK = "paced"
Report = Callable[[str], None]


@dataclass
class Lab:
    """A running lab: its folder, its state, and the inventory written for it."""

    directory: Path
    state: LabState
    inventory: inventory.Inventory

    @property
    def inventory_path(self) -> Path:
        return self.directory / state.INVENTORY_FILE


@dataclass
class GuestStatus:
    host: str
    running: bool
    address: str
    pid: int | None


@dataclass
class LabStatus:
    directory: Path
    state: LabState | None
    guests: list[GuestStatus]
    switches_running: int
    netns_exists: bool

    @property
    def running(self) -> bool:
        return any(g.running for g in self.guests)

    def render(self) -> str:
        if self.state is None:
            return f"no lab in {self.directory}\n"
        s = self.state
        lines = [f"lab {s.id} in {s.directory} ({s.status}, started {s.started_at}, {s.clock} clock) from {s.experiment}",
                 f"  namespace {s.netns}: {'present' if self.netns_exists else 'gone'}; "
                 f"switches {self.switches_running} of {len(s.switches)} running"]
        for g in self.guests:
            lines.append(f"  {g.host:<10} {'running' if g.running else 'not running':<12} ssh {g.address}"
                         + (f"  pid {g.pid}" if g.pid else ""))
        lines.append(f"  inventory {Path(s.directory) / state.INVENTORY_FILE}")
        return "\n".join(lines) + "\n"


def plan_of(experiment: Path, overrides: Sequence[str] = ()) -> Plan:
    """The plan of repetition 1, as `sctpbench plan` builds it (hosts and wires do not vary)."""
    return planning.build(spec.load(experiment, list(overrides)), 1, "agent")


def up(experiment: Path | str, directory: Path | str = "lab", overrides: Sequence[str] = (),
       report: Report | None = None, timeout_s: float = BOOT_TIMEOUT_S, clock: str | None = None) -> Lab:
    """Boot one guest per host of the experiment's plan; return once every guest answers SSH.

    `clock`: "virtual" (one virtual time for all guests, the default where the kernel has
    time travel) or "real".

    Raises SpecError for a bad experiment file, BadLabFolder for a folder the guests cannot
    use, LabRunning when the folder's lab runs, LabError when the lab cannot start (after
    tearing down what it started).
    """
    say = report or (lambda _: None)
    folder = Path(directory).resolve()
    experiment_path = Path(experiment).resolve()
    plan = plan_of(experiment_path, overrides)
    state.check_directory(folder)
    try:
        layout = from_plan(plan)
    except LayoutError as e:
        raise LabError(f"{experiment}: {e}") from None
    folder.mkdir(parents=True, exist_ok=True)
    _refuse_running(folder)
    kernel = _kernel()
    clock = _clock(clock, kernel)
    if clock == "real" and layout.switches and shutil.which(network.UML_SWITCH) is None:
        raise LabError(f"lab needs {network.UML_SWITCH} on the real clock (package uml-utilities)")
    (folder / state.LOGS).mkdir(exist_ok=True)
    lab = _new_state(folder, experiment_path, layout, kernel, clock)
    state.write(folder, lab)
    carried = (f"{len(layout.switches)} switch(es), real clock" if clock == "real" else
               "one vswitch, one virtual time (the vswitch's calendar, paced by the wall clock)")
    say(f"{lab.id}: {len(layout.machines)} guest(s) ({', '.join(m.host for m in layout.machines)}), "
        f"{carried}, {kernel.origin} kernel {kernel.release}")
    try:
        identity = keys.ensure(folder)
        network.create(lab.netns, layout)
        if clock == "virtual":
            _start_vswitch(lab, layout, folder)
        else:
            _start_switches(lab, folder)
        _start_guests(lab, layout, kernel, folder)
        _wait_ready(lab, timeout_s, say)
        machines = inventory.from_layout(layout, lab.netns, identity, shared=SHARED_CLOCK if clock == "virtual" else None)
        (folder / state.INVENTORY_FILE).write_text(inventory.render(machines, folder, str(experiment)))
        _probe_ssh(lab, machines)
        if clock == "real":
            _set_clocks(folder, say)
        else:  # every guest's time of day is the calendar's: what the clock preflight checks against
            machines.clock_epochs = _epochs(folder)
            (folder / state.INVENTORY_FILE).write_text(inventory.render(machines, folder, str(experiment)))
    except BaseException:
        _teardown_after_failure(lab, say)
        raise
    lab.status = "up"
    state.write(folder, lab)
    return Lab(directory=folder, state=lab, inventory=machines)


def _clock(asked: str | None, kernel: uml_kernel.Kernel) -> str:
    if asked not in (None, "virtual", "real"):
        raise LabError(f"--clock {asked}: allowed: virtual, real")
    if asked == "virtual" and not kernel.time_travel:
        raise LabError(f"--clock virtual: the {kernel.origin} kernel has no time travel; "
                       "build the project's (scripts/build-kernel) or use --clock real")
    return asked or ("virtual" if kernel.time_travel else "real")


def _epochs(folder: Path) -> dict[str, int]:
    """Each guest's time of day less its boot-time clock, as it started (clocksync.py)."""
    machines = backend_inventory.load(folder / state.INVENTORY_FILE).machines
    return {host: clocksync.epoch(machine) for host, machine in machines.items()}


def _set_clocks(folder: Path, say: Callable[[str], None]) -> None:
    """Each guest's time of day set to the host's: a booted UML kernel's can be tens of ms off
    (it reads the host's once, at boot), and a run's MTT spans two guests' clocks."""
    machines = backend_inventory.load(folder / state.INVENTORY_FILE).machines
    for host, machine in machines.items():
        left = clocksync.step(machine)
        say(f"lab {host} clock set: {left.offset_ns / 1e6:+.3f} ± {left.uncertainty_ns / 1e6:.3f} ms from the host's")


def down(directory: Path | str = "lab") -> bool:
    """End the folder's lab (also one whose `up` failed half way); False when there was none."""
    folder = Path(directory).resolve()
    lab = state.read(folder)
    if lab is None:
        return False
    teardown(lab)
    return True


def status(directory: Path | str = "lab") -> LabStatus:
    folder = Path(directory).resolve()
    lab = state.read(folder)
    if lab is None:
        return LabStatus(directory=folder, state=None, guests=[], switches_running=0, netns_exists=False)
    return LabStatus(
        directory=folder, state=lab,
        guests=[GuestStatus(g.host, processes.is_ours(g.pid, _mark(g)), g.address, g.pid) for g in lab.guests],
        switches_running=sum(processes.is_ours(s.pid, _mark(s)) for s in lab.switches),
        netns_exists=network.exists(lab.netns),
    )


def teardown(lab: LabState) -> None:
    """End the guests (all at once), then the switches, the namespace, the sockets; forget the lab."""
    folder = Path(lab.directory)
    _end_shared_connections(lab, folder)
    processes.end_groups([(g.pid, _mark(g)) for g in lab.guests])
    processes.end_groups([(s.pid, _mark(s)) for s in lab.switches])
    pieces: list[GuestState | SwitchState] = [*lab.guests, *lab.switches]
    for piece in pieces:
        processes.kill_marked(_mark(piece))
    for s in lab.switches:
        Path(s.ctl).unlink(missing_ok=True)
    for sock in [*folder.glob("vu*-*.sock"), network.calendar_socket(folder)]:
        sock.unlink(missing_ok=True)
    shutil.rmtree(folder / state.UML_DIR, ignore_errors=True)
    network.delete(lab.netns)  # raises when it cannot: lab.json then stays, for another `down`
    state.forget(folder)


def _end_shared_connections(lab: LabState, folder: Path) -> None:
    """Tell the SSH masters Ansible left (ControlPersist) to exit: they would otherwise hold
    a socat in the lab's namespace for up to a minute after their machine is gone."""
    for g in lab.guests:
        socket = folder / inventory.CONTROL_PATH.replace("%h", g.address)
        if socket.exists():
            subprocess.run(["ssh", "-o", f"ControlPath={socket}", "-O", "exit", g.address],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=SSH_PROBE_TIMEOUT_S)
            socket.unlink(missing_ok=True)


def _teardown_after_failure(lab: LabState, say: Report) -> None:
    """Tear down after a failed `up` without hiding why it failed."""
    try:
        teardown(lab)
    except LabError as e:
        say(f"teardown incomplete ({e}): run `sctpbench lab down --dir {lab.directory}` again")


def _kernel() -> uml_kernel.Kernel:
    kernel, why = uml_kernel.find(need_time_travel=False)
    if kernel is None:
        raise LabError(f"no guest kernel: {why}")
    needed = ["ssh", "ssh-keygen", "socat", "/usr/sbin/sshd"]
    missing = [name for name in needed if shutil.which(name) is None]
    if missing:
        raise LabError(f"lab needs {', '.join(missing)} (packages openssh-client, openssh-server, socat, uml-utilities)")
    return kernel


def _refuse_running(folder: Path) -> None:
    """A folder whose lab runs is refused; what a dead lab left (after a crash) is cleaned."""
    current = status(folder)
    if current.state is None:
        return
    if current.running:
        raise LabRunning(f"a lab runs in {folder} (lab {current.state.id}, guests "
                         f"{', '.join(g.host for g in current.guests if g.running)}): "
                         f"`sctpbench lab down --dir {folder}` first, or give another --dir")
    teardown(current.state)


def _new_state(folder: Path, experiment: Path, layout: Layout, kernel: uml_kernel.Kernel, clock: str) -> LabState:
    lab_id = secrets.token_hex(4)
    logs = folder / state.LOGS
    return LabState(
        id=lab_id, directory=str(folder), experiment=str(experiment), netns=network.netns_name(lab_id),
        kernel=str(kernel.binary), started_at=datetime.datetime.now().astimezone().isoformat(timespec="seconds"), clock=clock,
        guests=[GuestState(host=m.host, umid=guests.umid(lab_id, m.host), tap=m.tap, address=m.address,
                           gateway=m.gateway, console=str(logs / f"{m.host}.console"), nics=dict(m.nics))
                for m in layout.machines],
        switches=[SwitchState(name=s.name, ctl=str(guests.switch_socket(folder, s.index)), log=str(logs / f"{s.name}.log"),
                              ports=[[p.host, p.plan_ifname, p.nic] for p in s.ports])
                  for s in layout.switches] if clock == "real" else
                 [SwitchState(name="vswitch", ctl=str(folder / VSWITCH_CONFIG), log=str(logs / "vswitch.log"),
                              ports=[[p.host, p.plan_ifname, p.nic] for s in layout.switches for p in s.ports])],
    )


def _start_vswitch(lab: LabState, layout: Layout, folder: Path) -> None:
    """The vswitch, then wait for its calendar socket: it appears once every port listens."""
    s = lab.switches[0]
    s.pid = network.start_vswitch(lab.netns, network.vswitch_config(layout, folder), Path(s.ctl), Path(s.log))
    state.write(folder, lab)
    deadline = time.monotonic() + SWITCH_TIMEOUT_S
    while not network.calendar_socket(folder).exists():
        if not processes.is_ours(s.pid, _mark(s)) or time.monotonic() > deadline:
            raise LabError(f"the vswitch did not start: {guests.console_tail(Path(s.log), 5)}")
        time.sleep(POLL_S)


def _start_switches(lab: LabState, folder: Path) -> None:
    for s in lab.switches:
        s.pid = network.start_switch(lab.netns, Path(s.ctl), Path(s.log))
        state.write(folder, lab)
    deadline = time.monotonic() + SWITCH_TIMEOUT_S
    for s in lab.switches:
        while not Path(s.ctl).exists():
            if not processes.is_ours(s.pid, _mark(s)) or time.monotonic() > deadline:
                raise LabError(f"switch {s.name} ({' — '.join('/'.join(p[:2]) for p in s.ports)}) did not start: "
                               f"{guests.console_tail(Path(s.log), 5)}")
            time.sleep(POLL_S)


def _start_guests(lab: LabState, layout: Layout, kernel: uml_kernel.Kernel, folder: Path) -> None:
    home = Path.home()
    for g in lab.guests:
        Path(g.console).write_bytes(b"")  # this boot's console only
        argv = guests.argv(kernel, lab.id, lab.netns, layout.machine(g.host), layout, folder, home, lab.clock)
        g.pid = processes.start_detached(argv, Path(g.console))
        state.write(folder, lab)


def _wait_ready(lab: LabState, timeout_s: float, say: Report) -> None:
    """Until every guest's sshd listens: the first that fails, dies or is late fails the lab."""
    started = time.monotonic()
    waiting = {g.host: g for g in lab.guests}
    while waiting:
        for host, g in list(waiting.items()):
            text = Path(g.console).read_text(errors="replace") if Path(g.console).exists() else ""
            ready, error = guests.console_outcome(text)
            if error:
                raise _guest_failed(g, error)
            if ready:
                say(f"{host} up ({time.monotonic() - started:.1f} s), ssh {g.address}")
                del waiting[host]
            elif not processes.is_ours(g.pid, _mark(g)):
                raise _guest_failed(g, "the guest ended while booting")
        if waiting and time.monotonic() - started > timeout_s:
            g = next(iter(waiting.values()))
            raise _guest_failed(g, f"sshd not listening after {timeout_s:.0f} s")
        if waiting:
            time.sleep(POLL_S)


def _probe_ssh(lab: LabState, machines: inventory.Inventory) -> None:
    """Every guest answers `hostname` with its host's name through the inventory's settings."""
    probes = {m.host: subprocess.Popen(m.ssh_argv("hostname"), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
              for m in machines.machines}
    for host, probe in probes.items():
        try:
            out, err = probe.communicate(timeout=SSH_PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            probe.kill()
            probe.communicate()
            raise _guest_failed(lab.guest(host), f"ssh hostname took more than {SSH_PROBE_TIMEOUT_S:.0f} s") from None
        if probe.returncode != 0 or out.strip() != host:
            raise _guest_failed(lab.guest(host), f"ssh hostname answered {out.strip()!r} "
                                                 f"(exit {probe.returncode}): {err.strip()}")


def _mark(piece: GuestState | SwitchState) -> str:
    """What makes a process this piece of the lab: a guest's umid, a switch's socket."""
    return processes.word(f"umid={piece.umid}" if isinstance(piece, GuestState) else piece.ctl)


def _guest_failed(g: GuestState, reason: str) -> LabError:
    return LabError(f"lab guest {g.host} failed: {reason}\nthe end of its console log ({g.console}):\n"
                    f"{guests.console_tail(Path(g.console))}")
