"""--backend and --inventory: where a command's plan runs (run, plan, check)."""

from __future__ import annotations

import argparse
from pathlib import Path

from sctpbench.orchestration import capabilities


def add(p: argparse.ArgumentParser, help: str | None = None) -> None:
    p.add_argument("--backend", choices=capabilities.backend_choices(), default=capabilities.AUTO, help=help)
    p.add_argument("--inventory", type=Path, help="the ansible backend's machines (default: $SCTPBENCH_INVENTORY, "
                   "else ./inventory.yaml)")
