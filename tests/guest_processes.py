"""Which User-Mode Linux guests are running, for tests that check nothing is left behind."""

from __future__ import annotations

from pathlib import Path


def guests(umid_prefixes: tuple[bytes, ...] = (b"umid=sb-",)) -> set[int]:
    """Process ids of UML kernel processes (Debian's linux.uml or the project's own kernel,
    both booted with the host filesystem as root) whose command line carries a umid prefix."""
    pids = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"rootfstype=hostfs" in cmdline and any(p in cmdline for p in umid_prefixes):
                pids.add(int(proc.name))
    return pids
