"""Which User-Mode Linux guests are running, for tests that check nothing is left behind."""

from __future__ import annotations

from pathlib import Path


def guests(umid_prefixes: tuple[bytes, ...] = (b"umid=sb-",)) -> set[int]:
    """Process ids of linux.uml processes whose command line carries one of the umid prefixes."""
    pids = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"linux.uml" in cmdline and any(p in cmdline for p in umid_prefixes):
                pids.add(int(proc.name))
    return pids
