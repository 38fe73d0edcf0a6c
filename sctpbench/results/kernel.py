"""kernel.json and versions.json: what was in force and what ran (files.py).

kernel.json: net.sctp.* sysctls per host (`sysctl`), kernel-wide socket buffers, qdiscs per
host, the kernel's HZ (`hz`, measured). versions.json: the endpoints' kernel, machine,
iproute2, the agent's --version. Both are None for a run that stopped before its network was built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

KERNEL = "kernel.json"
VERSIONS = "versions.json"


@dataclass(frozen=True)
class KernelState:
    hz: int | None
    sysctl: dict[str, dict[str, Any]] = field(default_factory=dict)  # per host: net.sctp.* name → value
    document: dict[str, Any] = field(default_factory=dict)  # the whole file, for the reports

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> KernelState:
        return cls(hz=d.get("hz"), sysctl=d.get("sysctl") or {}, document=d)


def read_kernel(run_dir: Path) -> KernelState | None:
    document = jsonfile.read_optional(run_dir / KERNEL)
    return None if document is None else KernelState.from_dict(document)


def read_versions(run_dir: Path) -> dict[str, Any] | None:
    """versions.json as written: what ran, for people to read (no field is computed on)."""
    return jsonfile.read_optional(run_dir / VERSIONS)


def write_kernel(run_dir: Path, document: dict[str, Any]) -> None:
    (run_dir / KERNEL).write_text(jsonfile.text(document))


def write_versions(run_dir: Path, document: dict[str, Any]) -> None:
    (run_dir / VERSIONS).write_text(jsonfile.text(document))
