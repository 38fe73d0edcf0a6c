"""Entry point inside the guest (or on a capable host): run the plan in a run folder.

Prints `SB-PROGRESS text` lines for the host to show and exits 0 on success, 1 when the
backend failed (backend.json holds the reason), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sctpbench.backends import stops
from sctpbench.backends.netns import run_plan
from sctpbench.model.errors import BackendError
from sctpbench.plan.data import Plan


def _report(text: str) -> None:
    print(f"SB-PROGRESS {text}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sctpbench-guest")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--modprobe-root")
    args = parser.parse_args(argv)
    plan = Plan.from_json((args.run_dir / "plan.json").read_text())
    try:
        run_plan(plan, args.run_dir, _report, args.modprobe_root)
    except BackendError as e:
        print(f"SB-ERROR {e}".replace("\n", " | "), flush=True)
        return 1
    except KeyboardInterrupt as stop:
        print(f"SB-ERROR {stops.reason(stop)}", flush=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
