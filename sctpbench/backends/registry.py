"""The backends by name: the one list the command line, `check`, the clock choice, the
runner and campaigns take them from.

Order is preference: `--backend auto` takes the first of AUTO that is available here, so a
host that can run the experiment on its own kernel (netns) does, and the guest (uml)
serves everywhere else. The others run only when asked for by name: mininet, and ansible,
which drives other machines. A new backend is a folder beside the others whose backend.py
implements protocol.Backend, and a line in PLACES.

A backend's module is imported when it is asked for by name, not before: a run on the
guest never imports the Ansible or Mininet code (a tenth of a CPU-second of every run's
start-up, measured in docs/development.md).
"""

from __future__ import annotations

import importlib

from sctpbench.backends.protocol import Backend
from sctpbench.model.errors import BackendError

# Each backend's name and where its class is ("module:class"), in --backend's order.
PLACES: dict[str, str] = {
    "netns": "sctpbench.backends.netns.backend:NetnsBackend",
    "uml": "sctpbench.backends.uml.backend:UmlBackend",
    "mininet": "sctpbench.backends.mininet.backend:MininetBackend",
    "ansible": "sctpbench.backends.ansible.backend:AnsibleBackend",
}
AUTO: tuple[str, ...] = ("netns", "uml")


def names() -> tuple[str, ...]:
    return tuple(PLACES)


def get(name: str) -> Backend:
    if name not in PLACES:
        raise BackendError(f"no backend named {name!r}; allowed: {', '.join(names())}")
    module, _, cls = PLACES[name].partition(":")
    backend: Backend = getattr(importlib.import_module(module), cls)()
    return backend


def every() -> tuple[Backend, ...]:
    """Every backend, each imported (`sctpbench check` asks them all)."""
    return tuple(get(name) for name in names())
