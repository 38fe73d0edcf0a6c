#!/usr/bin/env python3
"""What a run costs: CPU and wall time per run and per message, and where they go.

    .venv/bin/python bench/run_cost.py [--runs 3] [--only failover,seed003,bulk] [--against REV] [--syscalls]

Three reference experiments, each run RUNS times with `sctpbench run` on the default backend
(the guest, virtual clock):

  failover  examples/failover.yaml (450 messages, 9 s of virtual time)
  seed003   bench/run_cost/seed003-rho090.yaml: four Poisson sources of 150 msg/s for 6 s over
            two 1 Mbit/s links at rho 0.90 (about 3,600 messages), the delay-centric policy
  bulk      bench/run_cost/bulk-100mbit.yaml: one association saturating a 100 Mbit/s path for 4 s

Per experiment it prints the medians over the runs of:
  cpu s/run    user + system CPU seconds of the whole `sctpbench run` process tree (getrusage of
               the reaped child: the host's Python, the guest kernel and every guest process)
  wall s/run   wall seconds of the same process
  cpu ms/msg   cpu s/run divided by the messages the run sent
  sw/msg       voluntary context switches of the process tree per message: every system call,
               page fault and signal of a guest process is a ptrace stop of its host process and
               a wake-up of the guest kernel's, so this bounds the guest's system calls from above
  then the run's phases from its cost.json (results/cost.py), CPU seconds each (medians).

--syscalls adds, per experiment and checkout, one run more with every agent under `strace -c` inside
the guest (an SCTPBENCH_AGENT wrapper; its counts go to the run folder, the one place a guest
writes), and prints the agents' system calls per message and the five commonest. Only the agents
are counted: not the guest's Python engine, tc or the kernel's own work. strace slows the agents,
so these runs are left out of the CPU figures.

--against REV runs the same experiments on commit REV as well (a temporary worktree, its own
agents built there, the same interpreter), alternating A and B run by run, and prints both
side by side. A commit older than cost.json shows no phases.

These are host figures: they change with the host's load; quote the machine, its load and
the command with them. The runs' own figures (virtual time) do not depend on them.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = {
    "failover": ROOT / "examples" / "failover.yaml",
    "seed003": ROOT / "bench" / "run_cost" / "seed003-rho090.yaml",
    "bulk": ROOT / "bench" / "run_cost" / "bulk-100mbit.yaml",
}
PHASES = ("plan", "boot", "setup", "agents", "workload", "drain", "teardown", "halt", "collection", "analysis")


@dataclass
class Sample:
    cpu_s: float
    wall_s: float
    switches: int
    messages: int
    phases: dict[str, float] = field(default_factory=dict)
    status: str = ""


@dataclass(frozen=True)
class Tree:
    """A checkout to run sctpbench from: this one, or a worktree of another commit."""

    name: str
    root: Path

    def command(self, experiment: Path, out: Path) -> list[str]:
        return [sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--out", str(out), "--json"]

    def environment(self) -> dict[str, str]:
        # The tree's own package first: the editable install's finder comes after sys.path.
        return {**os.environ, "PYTHONPATH": str(self.root)}


def run_once(tree: Tree, experiment: Path) -> Sample:
    """One run; its CPU and switches are measured around it (measured)."""
    with tempfile.TemporaryDirectory(prefix="run-cost-") as out:
        started = time.monotonic()
        proc = subprocess.run(tree.command(experiment, Path(out)), cwd=tree.root, env=tree.environment(),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        wall = time.monotonic() - started
        run = json.loads(proc.stdout)["runs"][0]
        phases = _phases(Path(run["directory"]))
        return Sample(0.0, wall, 0, int(run["metrics"].get("messages_sent") or 0), phases, run["status"])


def _phases(run_dir: Path) -> dict[str, float]:
    try:
        document = json.loads((run_dir / "cost.json").read_text())
    except OSError:
        return {}
    return {p["name"]: float(p["cpu_s"]) for p in document["phases"]}


def measured(tree: Tree, experiment: Path) -> Sample:
    """One run, its CPU from the kernel's accounting of the reaped process tree."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    sample = run_once(tree, experiment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    sample.cpu_s = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    sample.switches = after.ru_nvcsw - before.ru_nvcsw
    return sample


# The guest sees the agent's own folder only (read-only) and writes to the run folder.
STRACE_WRAPPER = """#!/bin/sh
case "$1" in --version) exec "${0%/*}/sctpbench-agent" "$@";; esac
exec strace -c -o /run/sctpbench-run/strace.$$ "${0%/*}/sctpbench-agent" "$@"
"""
STRACE_ROW = re.compile(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$")


def agent_syscalls(tree: Tree, experiment: Path) -> tuple[int, collections.Counter[str]]:
    """One run with every agent under strace -c: messages sent, and the agents' calls by name."""
    with tempfile.TemporaryDirectory(prefix="run-cost-strace-") as scratch:
        folder = Path(scratch)
        shutil.copy(tree.root / "sctpbench" / "workloads" / "agent" / "build" / "sctpbench-agent", folder)
        wrapper = folder / "agent"
        wrapper.write_text(STRACE_WRAPPER)
        wrapper.chmod(0o755)
        out = folder / "out"
        proc = subprocess.run(tree.command(experiment, out), cwd=tree.root,
                              env={**tree.environment(), "SCTPBENCH_AGENT": str(wrapper)},
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        run = json.loads(proc.stdout)["runs"][0]
        calls: collections.Counter[str] = collections.Counter()
        for counts in Path(run["directory"]).glob("strace.*"):
            for line in counts.read_text().splitlines():
                m = STRACE_ROW.match(line)
                if m and m.group(2) != "total":
                    calls[m.group(2)] += int(m.group(1))
        return int(run["metrics"].get("messages_sent") or 0), calls


def syscall_row(name: str, messages: int, calls: collections.Counter[str]) -> str:
    total = sum(calls.values())
    top = ", ".join(f"{c} {n / max(messages, 1):.2f}" for c, n in calls.most_common(5))
    return f"{name:<14} agents' system calls {total} ({total / max(messages, 1):.2f} a message); per message: {top}"


def worktree(rev: str, where: Path) -> Tree:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(where), rev], check=True)
    for target in ([], ["usrsctp"]):
        subprocess.run(["make", "-s", "-C", str(where / "sctpbench" / "workloads" / "agent"), *target], check=True)
    subprocess.run(["make", "-s", "-C", str(where / "sctpbench" / "workloads" / "udpgen")], check=True)
    return Tree(rev, where)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def row(name: str, samples: list[Sample]) -> str:
    cpu = median([s.cpu_s for s in samples])
    wall = median([s.wall_s for s in samples])
    messages = median([float(s.messages) for s in samples]) or float("nan")
    switches = median([float(s.switches) for s in samples])
    phases = " ".join(f"{p} {median([s.phases[p] for s in samples if p in s.phases]):.2f}"
                      for p in PHASES if any(p in s.phases for s in samples))
    statuses = ",".join(sorted({s.status for s in samples}))
    return (f"{name:<14} {cpu:7.2f} {wall:7.2f} {1000 * cpu / messages:8.3f} {switches / messages:7.0f} {messages:6.0f}"
            f"  {statuses:<9} {phases or '(no cost.json)'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(EXPERIMENTS))
    parser.add_argument("--against", metavar="REV", help="also run commit REV, alternating with this checkout")
    parser.add_argument("--syscalls", action="store_true", help="also count the agents' system calls (strace in the guest)")
    args = parser.parse_args()
    if args.syscalls and shutil.which("strace") is None:
        parser.error("--syscalls needs strace (scripts/install installs it)")
    chosen = [name.strip() for name in args.only.split(",")]
    unknown = [n for n in chosen if n not in EXPERIMENTS]
    if unknown:
        parser.error(f"--only: no experiment {', '.join(unknown)}; allowed: {', '.join(EXPERIMENTS)}")
    trees = [Tree("this", ROOT)]
    with tempfile.TemporaryDirectory(prefix="run-cost-tree-") as scratch:
        try:
            if args.against:
                trees.append(worktree(args.against, Path(scratch) / "tree"))
            load = os.getloadavg()[0]
            print(f"# {os.uname().nodename}, {os.cpu_count()} CPUs, load {load:.1f} at start; {args.runs} run(s) each; "
                  f"medians; host CPU and wall time of the whole process tree (the guest's virtual clock is not these)")
            print(f"{'experiment':<14} {'cpu s':>7} {'wall s':>7} {'cpu ms/msg':>8} {'sw/msg':>7} {'msgs':>6}  {'status':<9} "
                  "phases (cpu s)")
            for name in chosen:
                samples: dict[str, list[Sample]] = {t.name: [] for t in trees}
                for _ in range(args.runs):
                    for tree in trees:
                        samples[tree.name].append(measured(tree, EXPERIMENTS[name]))
                for tree in trees:
                    print(row(f"{name}@{tree.name}", samples[tree.name]), flush=True)
                if args.syscalls:
                    for tree in trees:
                        print(syscall_row(f"{name}@{tree.name}", *agent_syscalls(tree, EXPERIMENTS[name])), flush=True)
            print(f"# load {os.getloadavg()[0]:.1f} at the end")
        finally:
            if args.against:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(Path(scratch) / "tree")],
                               capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
