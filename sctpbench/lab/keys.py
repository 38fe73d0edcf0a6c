"""The lab's SSH keys, made by `lab up` in its folder with ssh-keygen: the key the host
logs in with (its public half is every guest's authorized_keys) and the guests' host key."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from sctpbench.lab.state import AUTHORIZED_KEYS, CLIENT_KEY, HOST_KEY, LabError


def ensure(directory: Path) -> Path:
    """The client key's path; keys already in the folder are kept (an inventory copied
    elsewhere stays valid across `down` and `up`)."""
    for name, comment in ((CLIENT_KEY, "sctpbench lab"), (HOST_KEY, "sctpbench lab guest")):
        if not (directory / name).exists():
            _keygen(directory / name, comment)
    shutil.copyfile(directory / f"{CLIENT_KEY}.pub", directory / AUTHORIZED_KEYS)
    return directory / CLIENT_KEY


def _keygen(path: Path, comment: str) -> None:
    done = subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise LabError(f"ssh-keygen {path}: {done.stderr.strip() or f'exit status {done.returncode}'}")
