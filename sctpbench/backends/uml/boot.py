"""How sctpbench boots a User-Mode Linux guest: its kernel command line, written once.

Two kinds of guest boot the same way: the uml backend's (one run's plan, backend.py) and
a lab's machines (one plan host each, serving SSH, lab/guests.py). Each is the kernel
binary with the host's filesystem as its read-only root, GUEST_MEMORY of memory, its
init script as PID 1 and that script's environment as KEY=VALUE words. The init scripts
put a filesystem in memory on GUEST_TMPFS (the places a guest writes); the host folders a
guest still needs under them (the interpreter, the project, the agent) are `exposed_paths`,
mounted back read-only. What the two init scripts do alike is boot.sh, which both source.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

GUEST_MEMORY = "256M"
# The guest mounts a filesystem in memory on these host folders (init.sh, lab/guest_init.sh).
GUEST_TMPFS = (Path("/tmp"), Path("/run"), Path("/var/tmp"))
# Which one, in the uml backend's guest (fstab). Every tmpfs inode draws a random number
# (its i_generation) from the stream SCTP's heartbeat jitter draws from, and a mount point
# for an exposed folder is one per folder level made under the tmpfs: a checkout at
# /tmp/a/b drew two more than one at /work/x, and every heartbeat, path switch and message
# of a run after them moved (issue 32; docs/clocks.md, "What moves a run's figures").
# ramfs inodes draw none. /run stays tmpfs: every run makes the same files there (its
# namespaces, the run folder's mount point), and a checkout outside these folders keeps its
# figures; one under /run (the host's runtime state) still draws per level.
GUEST_FILESYSTEM = {Path("/tmp"): "ramfs", Path("/run"): "tmpfs", Path("/var/tmp"): "ramfs"}
# The checkout the host runs: the guest runs the same tree's sctpbench (init.sh) and the
# kernel's build inputs are found in it (kernel.py).
PROJECT_ROOT = Path(__file__).resolve().parents[3]
# The uml backend's PID 1, and the steps every guest's PID 1 shares (sourced).
INIT = Path(__file__).resolve().parent / "init.sh"
BOOT_SH = Path(__file__).resolve().parent / "boot.sh"


def exposed_paths(needed: Iterable[Path] = (), hidden_also: Iterable[Path] = ()) -> list[Path]:
    """The host folders a guest needs (the interpreter, the project, and `needed`) that a
    filesystem in memory would hide (GUEST_TMPFS and `hidden_also`), outermost only."""
    hiding = (*GUEST_TMPFS, *hidden_also)
    wanted = {Path(sys.prefix).resolve(), PROJECT_ROOT, *needed}
    hidden = sorted(p for p in wanted if any(p.is_relative_to(t) for t in hiding))
    return [p for p in hidden if not any(p != q and p.is_relative_to(q) for q in hidden)]


def mounts(modules: Path, expose: Sequence[Path], modroot: Path | None = None) -> dict[str, str]:
    """The environment boot.sh reads: SB_EXPOSE (the folders to mount back) and SB_MODULES
    (the kernel's modules folder, or a folder with only its modules.builtin); SB_MODROOT,
    when given, a modprobe root the host made (kernel.modprobe_root), used as it is."""
    return {"SB_EXPOSE": ":".join(map(str, expose)), "SB_MODULES": str(modules),
            **({"SB_MODROOT": str(modroot)} if modroot else {})}


def fstab(expose: Sequence[Path], run_host: Path, run_guest: Path) -> str:
    """The uml backend's guest mounts as one fstab, for one `mount -a` (init.sh): a program
    start is the dearest thing a guest does, and it took one per mount. The kernel's own
    filesystems, GUEST_FILESYSTEM on GUEST_TMPFS, the exposed folders back (read-only), then
    the run folder (read-write); X-mount.mkdir makes a mount point the folder in memory lacks.
    hostfs takes the host's path as its options (no commas: backend._check_paths)."""
    lines = ["proc /proc proc defaults 0 0", "sys /sys sysfs defaults 0 0",
             *(f"{GUEST_FILESYSTEM[d]} {d} {GUEST_FILESYSTEM[d]} {'mode=1777' if d != Path('/run') else 'defaults'} 0 0"
               for d in GUEST_TMPFS),
             *(f"none {d} hostfs X-mount.mkdir,ro,{d} 0 0" for d in expose),
             f"none {run_guest} hostfs X-mount.mkdir,{run_host} 0 0"]
    return "\n".join(lines) + "\n"


def command_line(binary: Path, init: Path, umid: str, uml_dir: Path, words: Sequence[str],
                 environment: Mapping[str, str]) -> list[str]:
    """The guest's argv: the kernel, its root, memory and console, its id (umid, which
    guests.py finds it by), `words` for the kernel (clock, NICs), then init's environment."""
    return [
        str(binary), f"mem={GUEST_MEMORY}", "root=/dev/root", "rootfstype=hostfs", "rootflags=/", "ro",
        f"init={init}", "con=null", "con0=fd:0,fd:1", f"umid={umid}", f"uml_dir={uml_dir}", "quiet", *words,
        *(f"{key}={value}" for key, value in environment.items()),
    ]
