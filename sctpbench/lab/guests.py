"""A lab guest: one User-Mode Linux kernel per host, serving SSH.

Each guest boots the project's kernel (backends/uml/kernel.py) as the uml backend's guest
boots (backends/uml/boot.py: the host's filesystem as its read-only root, memory, tmpfs,
the folders mounted back), with `guest_init.sh` as PID 1. NICs: eth0 for management (reached
from the host through its tap in the lab's namespace), then one NIC per wire end, with the
plan's MAC. Two clocks:

- virtual: every guest runs on the lab's calendar (`time-travel=ext:`) and every NIC is a
  virtio-net device of the lab's vswitch (`virtio_uml.device=`), the one NIC whose frames
  reach a guest through the calendar, so all guests share one virtual time (vswitch.py);
- real: no time-travel word, UML's own NICs (eth0 on the tap, `daemon` NICs on one
  `uml_switch` per wire), each guest on the host's clock as real machines run on theirs.
"""

from __future__ import annotations

from pathlib import Path

from sctpbench.backends.uml import boot
from sctpbench.backends.uml import kernel as uml_kernel
from sctpbench.lab import network
from sctpbench.lab.layout import MANAGEMENT_NIC, Layout, Machine

INIT = Path(__file__).resolve().parent / "guest_init.sh"
READY = "SB-LAB-READY"
ERROR = "SB-LAB-ERROR"


def umid(lab_id: str, host: str) -> str:
    return f"sblab-{lab_id}-{host}"


def switch_socket(directory: Path, index: int) -> Path:
    return directory / f"sw-{index}.ctl"


def nic_words(machine: Machine, layout: Layout, directory: Path) -> list[str]:
    """The kernel's NIC arguments on the real clock: eth0 on the tap, ethN=daemon,MAC,unix,SOCKET per wire end."""
    words = [f"{MANAGEMENT_NIC}=tuntap,{machine.tap}"]
    for port, switch in layout.ports_of(machine.host):
        words.append(f"{port.nic}=daemon,{port.mac},unix,{switch_socket(directory, switch.index)}")
    return words


def nics(machine: Machine, layout: Layout) -> list[tuple[str, str]]:
    """(ethN, MAC) of every NIC of the guest, management first."""
    return [(MANAGEMENT_NIC, network.management_mac(machine)), *((p.nic, p.mac) for p, _ in layout.ports_of(machine.host))]


def virtual_words(machine: Machine, layout: Layout, directory: Path) -> list[str]:
    """The kernel's arguments on shared virtual time: the calendar, one virtio-net device per
    NIC, and the names the init script gives them by MAC (virtio NICs are named in probe order)."""
    named = nics(machine, layout)
    words = [f"time-travel=ext:{machine.index}:{network.calendar_socket(directory)}"]
    words += [f"virtio_uml.device={network.vhost_socket(directory, machine, nic)}:1" for nic, _ in named]
    words.append("SB_LAB_NICS=" + ",".join(f"{nic}={mac}" for nic, mac in named))
    return words


def exposed_paths(home: Path) -> list[Path]:
    """Host folders the guest's tmpfs would hide that it should still see (read-only): the
    project and the interpreter, so a guest can run the host's sctpbench as the uml backend's
    does. Root's home is a tmpfs too: a fresh, writable home as on a new machine, without
    the host's shell start-up files, which can take seconds in a guest."""
    return boot.exposed_paths(hidden_also=[home])


def argv(kernel: uml_kernel.Kernel, lab_id: str, netns: str, machine: Machine, layout: Layout,
         directory: Path, home: Path, clock: str = "real") -> list[str]:
    """The guest's argv (backends/uml/boot.py), in the lab's namespace; guest_init.sh's own environment."""
    assert kernel.modules is not None
    nic_args = virtual_words(machine, layout, directory) if clock == "virtual" else nic_words(machine, layout, directory)
    environment = {"SB_LAB_HOST": machine.host, "SB_LAB_ADDRESS": machine.address_with_prefix, "SB_LAB_SSH": str(directory),
                   "SB_LAB_HOME": str(home), **boot.mounts(kernel.modules, exposed_paths(home))}
    return network.in_netns(netns, boot.command_line(kernel.binary, INIT, umid(lab_id, machine.host), directory / "uml",
                                                     nic_args, environment))


def console_outcome(text: str) -> tuple[bool, str | None]:
    """(ready, error) from a console log so far: READY once sshd listens, the last ERROR line."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    errors = [line.removeprefix(ERROR).strip() for line in lines if line.startswith(ERROR)]
    ready = any(line.startswith(READY) for line in lines)
    return ready, (errors[-1] if errors else None)


def console_tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no console log)"
    return "\n".join(line.rstrip("\r") for line in text.splitlines()[-lines:]) or "(empty console log)"
