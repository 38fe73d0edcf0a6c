"""What produced a campaign's runs: the checkout's commit, the guest kernel's build key, the machine.

Logged with every `campaign run` invocation (runs.jsonl's campaign-start), so each run's
row of the shipped tables (campaign/shipped.py) names the code and kernel that made it,
even when a campaign grew over several sessions and commits.
"""

from __future__ import annotations

import socket
import subprocess

from sctpbench.backends.uml.boot import PROJECT_ROOT

UNKNOWN = "unknown"


def commit() -> str:
    """The checkout's HEAD, with "+dirty" when tracked files differ from it; "unknown" outside a
    git checkout (an installed package)."""
    try:
        head = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=30, check=True).stdout.strip()
        changed = subprocess.run(["git", "-C", str(PROJECT_ROOT), "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN
    return f"{head}+dirty" if changed else head or UNKNOWN


def kernel_key(backend: str) -> str:
    """The guest kernel's build key (its cache folder's name), "debian" for Debian's
    prebuilt one, "-" for a backend without a guest kernel."""
    if backend != "uml":
        return "-"
    from sctpbench.backends.uml import kernel

    found, _ = kernel.find(False)
    if found is None:
        return "missing"
    return found.binary.parent.name if found.origin == "project" else "debian"  # as remote.software names it


def facts(backend: str) -> dict[str, str]:
    """What campaign-start logs: the commit, the kernel key and the machine (its host name)
    that ran the invocation's runs."""
    return {"commit": commit(), "kernel_key": kernel_key(backend), "host": socket.gethostname()}
