"""`sctpbench hosts prepare|clean`: the ansible backend's machines, prepared for FILE or
cleaned of what runs left; --check only says what would change."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from sctpbench.backends.ansible import backend as ansible
from sctpbench.backends.ansible import inventory
from sctpbench.cli import experiment_file
from sctpbench.cli.exit_status import EXIT_FAILED, EXIT_OK
from sctpbench.model.errors import BackendError, SpecError
from sctpbench.orchestration import capabilities
from sctpbench.plan import build as planning


def add_parser(sub: argparse._SubParsersAction) -> None:
    hosts = sub.add_parser("hosts", help="the ansible backend's machines: prepare them for FILE, or remove what runs "
                           "left; --check only says what would change")
    hosts.add_argument("action", choices=["prepare", "clean"])
    hosts.add_argument("file", type=Path, nargs="?", help="the experiment (prepare)")
    hosts.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    hosts.add_argument("--inventory", type=Path, help="default: $SCTPBENCH_INVENTORY, else ./inventory.yaml")
    hosts.add_argument("--check", action="store_true", help="only say which machines would change (exit 1 if any)")


def main(args: argparse.Namespace) -> int:
    inv = inventory.load(inventory.path_from_environment())
    if args.action == "prepare" and args.file is None:
        raise SpecError("hosts prepare: name the experiment file whose run the machines are prepared for")
    with tempfile.TemporaryDirectory(prefix="sctpbench-hosts-") as tmp:
        try:
            if args.action == "prepare":
                plan = planning.build(experiment_file.load(args), 1, str(capabilities.agent_path()), str(capabilities.udpgen_path()))
                changed = ansible.prepare(plan, inv, capabilities.agent_path(), args.check, Path(tmp))
            else:
                changed = ansible.clean(inv, capabilities.agent_path(), args.check, Path(tmp))
        except BackendError as e:
            print(f"sctpbench: {e}", file=sys.stderr)
            return EXIT_FAILED
    words = {"prepare": ("would change", "changed", "ready"), "clean": ("has something left", "cleaned", "clean")}[args.action]
    for machine in sorted(inv.machines):
        print(f"{machine}: {(words[0] if args.check else words[1]) if changed.get(machine) else words[2]}")
    return EXIT_FAILED if args.check and changed else EXIT_OK
