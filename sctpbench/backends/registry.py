"""The backends by name: the one list the command line, `check`, the clock choice, the
runner and campaigns take them from.

Order is preference: `--backend auto` takes the first of AUTO that is available here, so a
host that can run the experiment on its own kernel (netns) does, and the guest (uml)
serves everywhere else. The others run only when asked for by name: mininet, and ansible,
which drives other machines. A new backend is a folder beside the others whose backend.py
implements protocol.Backend, and a line here.
"""

from __future__ import annotations

from sctpbench.backends.ansible.backend import AnsibleBackend
from sctpbench.backends.mininet.backend import MininetBackend
from sctpbench.backends.netns.backend import NetnsBackend
from sctpbench.backends.protocol import Backend
from sctpbench.backends.uml.backend import UmlBackend
from sctpbench.model.errors import BackendError

BACKENDS: tuple[Backend, ...] = (NetnsBackend(), UmlBackend(), MininetBackend(), AnsibleBackend())
AUTO: tuple[str, ...] = ("netns", "uml")


def names() -> tuple[str, ...]:
    return tuple(b.name for b in BACKENDS)


def get(name: str) -> Backend:
    for backend in BACKENDS:
        if backend.name == name:
            return backend
    raise BackendError(f"no backend named {name!r}; allowed: {', '.join(names())}")
