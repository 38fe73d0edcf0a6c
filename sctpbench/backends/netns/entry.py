"""The netns engine as a command: run the plan in a run folder on this kernel.

`python -m sctpbench.backends.netns.entry RUN_DIR --modprobe-root DIR` is what the uml
backend's guest runs (uml/init.sh). It prints `SB-PROGRESS text` lines for the host to
show and exits 0 on success, 1 when the engine failed (backend.json holds the reason),
130 when interrupted. The commands built on the engine (backends/mininet/engine.py,
backends/ansible/share.py) speak the same lines through `entry`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from sctpbench.backends import stops
from sctpbench.backends.netns import engine
from sctpbench.model.errors import BackendError
from sctpbench.plan.data import Plan
from sctpbench.results import plan as results_plan

RunPlan = Callable[[Plan, Path, engine.Report, str | None], None]


def report(text: str) -> None:
    print(f"SB-PROGRESS {text}", flush=True)


def entry(run: Callable[[], None], who: str = "") -> int:
    """Run, and say how it ended as the host reads it: an SB-ERROR line (prefixed by `who`,
    the machine it ran on, where there are several) and the exit status."""
    prefix = f"{who}: " if who else ""
    try:
        run()
    except BackendError as e:
        print(f"SB-ERROR {prefix}{e}".replace("\n", " | "), flush=True)
        return 1
    except KeyboardInterrupt as stop:
        print(f"SB-ERROR {prefix}{stops.reason(stop)}", flush=True)
        return 130
    return 0


def main(argv: list[str] | None = None, prog: str = "sctpbench-guest", run_plan: RunPlan = engine.run_plan) -> int:
    """RUN_DIR [--modprobe-root DIR], as init.sh gives them: read by hand, as argparse's own
    imports (gettext and the rest) would cost the guest more than its whole work here."""
    words = sys.argv[1:] if argv is None else argv
    if len(words) not in (1, 3) or (len(words) == 3 and words[1] != "--modprobe-root"):
        print(f"usage: {prog} RUN_DIR [--modprobe-root DIR]", file=sys.stderr)
        return 2
    run_dir, modprobe_root = Path(words[0]), (words[2] if len(words) == 3 else None)
    plan = results_plan.read(run_dir)
    return entry(lambda: run_plan(plan, run_dir, report, modprobe_root))


if __name__ == "__main__":
    sys.exit(main())
