"""Which User-Mode Linux guests are running, for tests that check nothing is left behind.

The uml backend finds them (uml_guests.py): only it knows how a guest is named."""

from __future__ import annotations

from sctpbench.backends.uml import guests as uml_guests


def guests(run_ids: tuple[str, ...] | None = None, owner_pid: int | None = None) -> set[int]:
    """Process ids of sctpbench's guests: all of them, or those of these runs (booted by owner_pid)."""
    if run_ids is None:
        return uml_guests.pids()
    return set().union(*(uml_guests.pids(run_id, owner_pid) for run_id in run_ids))
