"""Which User-Mode Linux kernel the `uml` backend boots, and what it can do.

The project's own kernel (built by `scripts/build-kernel` from Debian's linux-source-6.1
and `kernel/uml.config`: time travel, HZ=1000, everything built in) is preferred; it is
found in the cache under the same key the build script computes, so a change to the
config fragment or the script is never served by a stale build. Debian's prebuilt
`linux.uml` (HZ=100, modules, no time travel) remains a fallback for the real clock.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sctpbench.backends.protocol import installed_version
from sctpbench.backends.uml.boot import PROJECT_ROOT

FRAGMENT = PROJECT_ROOT / "kernel" / "uml.config"
BUILD_SCRIPT = PROJECT_ROOT / "scripts" / "build-kernel"
PATCHES = PROJECT_ROOT / "kernel" / "patches"
DEBIAN_LINUX_UML = Path("/usr/bin/linux.uml")
# The boot parameter (kernel/patches/0005) that makes the guest's random numbers a function
# of a 64-bit seed given in hex, so a run on virtual time repeats its kernel's draws.
RNG_SEED_PARAMETER = "random.seed"
DEBIAN_MODULES = Path("/usr/lib/uml/modules")


@dataclass(frozen=True)
class Kernel:
    binary: Path
    release: str
    origin: str  # "project" or "debian"
    time_travel: bool
    modules: Path | None  # a folder with modules (Debian) or only modules.builtin (project)
    config_sha256: str | None
    detail: str

    def describe(self) -> str:
        clocks = "virtual, paced and real clock" if self.time_travel else "real clock only"
        config = f", config {self.config_sha256[:12]}" if self.config_sha256 else ""
        return f"{self.origin} kernel {self.release}{config} ({clocks}): {self.binary}"


def cache_root() -> Path:
    """Where builds are kept across clones; the same rule as scripts/build-kernel."""
    explicit = os.environ.get("SCTPBENCH_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "sctpbench"


def build_key() -> str | None:
    """sha256 over the source package's version, the fragment, the build script and the
    patches (in the shell's glob order), as the script computes it."""
    version = installed_version("linux-source-6.1")
    if version == "unknown" or not FRAGMENT.exists() or not BUILD_SCRIPT.exists():
        return None
    parts = [FRAGMENT, BUILD_SCRIPT, *sorted(PATCHES.glob("*.patch"))]
    digest = hashlib.sha256(f"{version}\n".encode() + b"".join(p.read_bytes() for p in parts))
    return digest.hexdigest()[:16]


def project_kernel() -> Kernel | None:
    override = os.environ.get("SCTPBENCH_UML_KERNEL")
    if override:
        folder = Path(override)
    else:
        key = build_key()
        if key is None:
            return None
        folder = cache_root() / "kernel" / key
    binary = folder / "linux"
    if not os.access(binary, os.X_OK):
        return None
    facts = _build_facts(folder / "build.txt")
    return Kernel(
        binary=binary, release=(folder / "release").read_text().strip(), origin="project", time_travel=True,
        modules=folder, config_sha256=facts.get("config_sha256"), detail=facts.get("source", ""),
    )


def debian_kernel() -> Kernel | None:
    if not os.access(DEBIAN_LINUX_UML, os.X_OK) or _host_has_amx():
        return None
    releases = sorted(p.name for p in DEBIAN_MODULES.glob("*") if (p / "kernel/net/sctp/sctp.ko").exists())
    if not releases:
        return None
    return Kernel(
        binary=DEBIAN_LINUX_UML, release=releases[-1], origin="debian", time_travel=False,
        modules=DEBIAN_MODULES / releases[-1], config_sha256=None,
        detail=f"user-mode-linux {installed_version('user-mode-linux')}",
    )


def find(need_time_travel: bool) -> tuple[Kernel | None, str]:
    """The kernel to boot, or None and why not."""
    own = project_kernel()
    if own is not None:
        return own, ""
    if need_time_travel:
        return None, ("no guest kernel with time travel: run scripts/build-kernel (or scripts/install), "
                      "or use clock: real with Debian's linux.uml")
    debian = debian_kernel()
    if debian is not None:
        return debian, ""
    if _host_has_amx():
        return None, ("the project's guest kernel is not built (scripts/build-kernel); Debian's linux.uml cannot run "
                      "on this CPU (AMX: the host's XSAVE area is larger than it handles)")
    return None, f"neither the project's guest kernel (scripts/build-kernel) nor {DEBIAN_LINUX_UML} with sctp.ko under {DEBIAN_MODULES}"


def missing_sysctls(kernel: Kernel, names: Sequence[str]) -> list[str]:
    """The net.sctp.* names that the kernel's SCTP code does not register: a sysctl's name is a
    string in the code that registers it (the project's kernel has SCTP built in, Debian's has
    it in sctp.ko), so its absence there means the kernel lacks the sysctl."""
    code = kernel.binary if kernel.origin == "project" or kernel.modules is None \
        else kernel.modules / "kernel" / "net" / "sctp" / "sctp.ko"
    try:
        with open(code, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as image:
            return [n for n in names if image.find(b"\0" + n.encode() + b"\0") < 0]
    except (OSError, ValueError):  # unreadable, or empty
        return list(names)


def seeds_rng(kernel: Kernel) -> bool:
    """Whether the kernel takes RNG_SEED_PARAMETER: an early boot parameter's name is a string
    in the kernel image (the project's kernel from 0005 on; Debian's and older builds lack it,
    and would take the word as an unused module parameter, silently)."""
    if kernel.origin != "project":
        return False
    try:
        with open(kernel.binary, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as image:
            return image.find(b"\0" + RNG_SEED_PARAMETER.encode() + b"\0") >= 0
    except (OSError, ValueError):  # unreadable, or empty
        return False


def modprobe_root(kernel: Kernel) -> Path:
    """A root for the guest's modprobe (`-d ROOT`: ROOT/lib/modules/RELEASE), made once on the
    host and kept in the cache, with ROOT/modprobe, the program the guest kernel runs to load a
    module on demand (/proc/sys/kernel/modprobe, which gets no environment to find ROOT in).

    modprobe needs the kernel's modules indexed (depmod). Made here, a guest's boot only
    points its kernel at it, where each guest used to make its own (three program starts and
    depmod, the dearest part of its init). Debian's kernel: a link to its modules folder,
    already indexed; the project's: its modules.builtin alone (everything is built in)."""
    assert kernel.modules is not None
    tag = hashlib.sha256(f"{kernel.origin}\0{kernel.modules.resolve()}\0{kernel.config_sha256}".encode()).hexdigest()[:16]
    root = cache_root() / "modroot" / f"{kernel.origin}-{kernel.release}-{tag}"
    if (root / "modprobe").exists():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".new-", dir=root.parent))
    try:
        modules = work / "lib" / "modules"
        modules.mkdir(parents=True)
        if (kernel.modules / "kernel").is_dir():
            (modules / kernel.release).symlink_to(kernel.modules.resolve())
        else:
            own = modules / kernel.release
            own.mkdir()
            shutil.copy(kernel.modules / "modules.builtin", own / "modules.builtin")
            (own / "modules.order").touch()
            (own / "modules.builtin.modinfo").touch()
            subprocess.run(["depmod", "-b", str(work), kernel.release], check=True, capture_output=True)
        wrapper = work / "modprobe"
        wrapper.write_text(f"#!/bin/sh\nexec /sbin/modprobe -d {root} \"$@\"\n")
        wrapper.chmod(0o755)
        try:
            work.rename(root)
        except OSError:
            if not (root / "modprobe").exists():  # not another run that made it meanwhile
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return root


def _host_has_amx() -> bool:
    """Debian's 6.1 UML panics at its first process on such hosts ("ptrace set fp regs
    failed, errno = 14"); kernel/patches/ fixes that in the project's kernel."""
    try:
        return " amx_tile" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def _build_facts(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {k: v for k, v in pairs}

