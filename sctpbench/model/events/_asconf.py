"""What the address-reconfiguration kinds share (RFC 5061 ASCONF on a live association):
a path of an association named as target, and the client's address on it.

Not a kind (the registry skips modules starting with `_`). The kinds: add_address,
delete_address, peer_primary (primitive, told to the client agent), set_primary and
handover (made of them and of `primary`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sctpbench.model.errors import SpecError
from sctpbench.model.events.base import AssociationLike, Context, Fail
from sctpbench.model.timeline import Step


def check_path(key: str, path: str, context: Context, fail: Fail) -> None:
    """The path must join an association's two hosts (the topology check has run)."""
    if path not in context.association:
        fail(key, f"{path!r} is not a path of {'an' if context.several else 'the'} association; "
                  f"allowed: {', '.join(context.association)}")


def concerns(step: Step, association: Sequence[AssociationLike]) -> bool:
    return any(step.path == a.path for a in association)


def client_address(step: Step, association: Sequence[AssociationLike]) -> str:
    """The client's address on the step's path; a dual-stack path's first (IPv4) one."""
    for a in association:
        if a.path == step.path:
            return a.client_address
    allowed = ", ".join(a.path for a in association)
    raise SpecError(f"events: {step.kind}: {step.path!r} is not a path of the association; allowed: {allowed}")
