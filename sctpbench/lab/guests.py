"""A lab guest: one User-Mode Linux kernel per host, serving SSH.

Each guest boots the project's kernel (backends/uml_kernel.py) with the host's filesystem
as its read-only root and `guest_init.sh` as PID 1. NICs: eth0 for management (reached
from the host through its tap in the lab's namespace), then one NIC per wire end, with the
plan's MAC. Two clocks:

- virtual: every guest runs on the lab's calendar (`time-travel=ext:`) and every NIC is a
  virtio-net device of the lab's vswitch (`virtio_uml.device=`), the one NIC whose frames
  reach a guest through the calendar, so all guests share one virtual time (vswitch.py);
- real: no time-travel word, UML's own NICs (eth0 on the tap, `daemon` NICs on one
  `uml_switch` per wire), each guest on the host's clock as real machines run on theirs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sctpbench.backends.uml import kernel as uml_kernel
from sctpbench.lab import network
from sctpbench.lab.layout import MANAGEMENT_NIC, Layout, Machine

INIT = Path(__file__).resolve().parent / "guest_init.sh"
GUEST_MEMORY = "256M"
READY = "SB-LAB-READY"
ERROR = "SB-LAB-ERROR"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
# The guest mounts tmpfs on these (root's home too: a fresh, writable home as on a new
# machine, without the host's shell start-up files, which can take seconds in a guest).
GUEST_TMPFS = (Path("/tmp"), Path("/run"), Path("/var/tmp"))


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
    project and the interpreter, so a guest can run the host's sctpbench as the uml backend's does."""
    hiding = (*GUEST_TMPFS, home)
    wanted = {Path(sys.prefix).resolve(), PROJECT_ROOT}
    hidden = sorted(p for p in wanted if any(p.is_relative_to(t) for t in hiding))
    return [p for p in hidden if not any(p != q and p.is_relative_to(q) for q in hidden)]


def argv(kernel: uml_kernel.Kernel, lab_id: str, netns: str, machine: Machine, layout: Layout,
         directory: Path, home: Path, clock: str = "real") -> list[str]:
    assert kernel.modules is not None
    nic_args = virtual_words(machine, layout, directory) if clock == "virtual" else nic_words(machine, layout, directory)
    return network.in_netns(netns, [
        str(kernel.binary), f"mem={GUEST_MEMORY}", "root=/dev/root", "rootfstype=hostfs", "rootflags=/", "ro",
        f"init={INIT}", "con=null", "con0=fd:0,fd:1", f"umid={umid(lab_id, machine.host)}",
        f"uml_dir={directory / 'uml'}", "quiet", *nic_args,
        f"SB_LAB_HOST={machine.host}", f"SB_LAB_ADDRESS={machine.address_with_prefix}", f"SB_LAB_SSH={directory}",
        f"SB_LAB_HOME={home}", f"SB_EXPOSE={':'.join(map(str, exposed_paths(home)))}", f"SB_MODULES={kernel.modules}",
    ])


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
