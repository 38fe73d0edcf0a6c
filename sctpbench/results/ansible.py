"""ansible.json: how the ansible backend ran a plan on its machines (files.py;
ansible/backend.py: run_plan): the inventory and playbooks used, the bundle sent, each
playbook's wall time, the clock preflight and the clean-up's outcome. Written last, once
the machines are cleaned, whatever happened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sctpbench.results import jsonfile

NAME = "ansible.json"


def write(run_dir: Path, facts: dict[str, Any]) -> None:
    (run_dir / NAME).write_text(jsonfile.text(facts))


def read_optional(run_dir: Path) -> dict[str, Any] | None:
    """The ansible backend's account, or None for a run of another backend."""
    return jsonfile.read_optional(run_dir / NAME)
