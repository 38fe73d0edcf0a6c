"""A lab's folder and its lab.json: what `lab up` started, so that `lab down` can end it.

lab.json is written before anything is started and again after each piece starts, so a
lab whose `up` died half way (SIGKILL, a full disk) still names everything to clean.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATE_FORMAT = 1
STATE_FILE = "lab.json"
INVENTORY_FILE = "inventory.yaml"
CLIENT_KEY = "id_ed25519"  # what SSH from the host logs in with
HOST_KEY = "ssh_host_ed25519_key"  # every guest's sshd's (the inventory turns host key checking off)
AUTHORIZED_KEYS = "authorized_keys"
LOGS = "logs"
UML_DIR = "uml"  # the guests' umid folders (UML's pid files, mconsole sockets)
# A unix socket's path must fit sockaddr_un.sun_path (108 bytes with its NUL).
SOCKET_PATH_MAX = 107


@dataclass
class GuestState:
    host: str
    umid: str
    tap: str
    address: str
    gateway: str
    console: str  # absolute path of its console log
    nics: dict[str, str]  # plan interface name → ethN
    pid: int | None = None  # the UML kernel's process (its process group's leader)


@dataclass
class SwitchState:
    name: str
    ctl: str  # absolute path of its control socket
    log: str
    ports: list[list[str]]  # [host, plan interface, ethN] per end
    pid: int | None = None


@dataclass
class LabState:
    id: str
    directory: str
    experiment: str
    netns: str
    kernel: str
    guests: list[GuestState] = field(default_factory=list)
    switches: list[SwitchState] = field(default_factory=list)
    status: str = "starting"  # starting, then up once every guest answers SSH
    clock: str = "real"  # virtual: the guests share the vswitch's calendar; real: each runs on the host's clock
    started_at: str = ""
    format: int = STATE_FORMAT

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> LabState:
        d: dict[str, Any] = json.loads(text)
        return cls(**d | {"guests": [GuestState(**g) for g in d["guests"]],
                          "switches": [SwitchState(**s) for s in d["switches"]]})

    def guest(self, host: str) -> GuestState:
        return next(g for g in self.guests if g.host == host)


def write(directory: Path, state: LabState) -> None:
    """Replace lab.json at once: a reader never sees half a file."""
    path = directory / STATE_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(state.to_json())
    os.replace(tmp, path)


def read(directory: Path) -> LabState | None:
    path = directory / STATE_FILE
    if not path.exists():
        return None
    return LabState.from_json(path.read_text())


def forget(directory: Path) -> None:
    """After `down`: no state and no inventory naming machines that are gone."""
    for name in (STATE_FILE, INVENTORY_FILE):
        (directory / name).unlink(missing_ok=True)


class LabError(RuntimeError):
    """A lab that cannot start or be found; the message says which guest and why."""


class LabRunning(LabError):
    """`up` on a folder whose lab runs."""


class BadLabFolder(LabError):
    """A --dir the guests cannot use."""


def check_directory(directory: Path) -> None:
    """A folder the guests' command lines and unix sockets can name (before anything starts)."""
    text = str(directory)
    if any(c.isspace() or c in ",:\"'" for c in text):
        raise BadLabFolder(f"--dir {directory}: the guests' command lines cannot carry a path with spaces, commas, "
                           "colons or quotes; allowed: a plain absolute path")
    if directory == Path("/run") or directory.is_relative_to("/run"):
        raise BadLabFolder(f"--dir {directory}: the guests mount their own /run over it and could not read the lab's keys; "
                           "allowed: a folder outside /run")
    # The longest: a guest's mconsole, and SSH's shared connection as ssh creates it (a
    # random suffix, then renamed) for the last /30 of the management network.
    sockets = [directory / UML_DIR / "sblab-00000000-0123456789" / "mconsole",
               directory / "cm-198.19.255.254.0123456789abcdef"]
    longest = max(len(str(p)) for p in sockets)
    if longest > SOCKET_PATH_MAX:
        raise BadLabFolder(f"--dir {directory}: too long for the unix sockets kept in it ({longest} > "
                           f"{SOCKET_PATH_MAX} bytes); allowed: a shorter path")
