"""The guest's guardian: ends a guest whose `sctpbench` process died without tearing it down.

SIGKILL (or the OOM killer) gives `sctpbench` no chance to stop its guest, which runs in
a session of its own and would live on as an orphan until its run ends, writing into the
results folder. The uml backend therefore starts this small process beside each guest,
in a session of its own too, holding the read end of a pipe whose only write end is
`sctpbench`'s. When the run ends normally `sctpbench` writes "done"; end of file without
it means `sctpbench` is gone, and the kernel tells us at once (no polling). Then:

1. the guest's process group is killed: the guest is gone within milliseconds of its
   orchestrator on every clock (on the paced clock its calendar died too);
2. the guest's temporary folder is removed;
3. the run folder says what happened: backend.json's error "orchestrator killed", a
   summary.json saying so at once, then the records collected into the usual tables and
   metrics (what the agents had flushed, every 100 ms of guest time, is kept), and the
   session's summary.json when the run was one of a session's.

Why not the guest noticing by itself (console EOF, a parent-death signal): on the paced
clock the guest cannot run a single instruction once its calendar is gone, and a guest
that hangs would not notice either; only a process outside it can always end it and
write the run's last words. Records reach the host as they are written (hostfs writes
through), so killing the guest loses nothing a graceful stop would have kept but the
agents' last unflushed 100 ms.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

DONE = b"done\n"
# The project's root: the guardian runs from it as `python -S -m`, which imports only this
# checkout's sctpbench and the standard library. At rest it imports nothing more (see main):
# every run starts one, and a guardian importing its kill path's modules cost the host
# 0.1 CPU-s a run, three times one that imports them only when it has to act.
PROJECT_ROOT = Path(__file__).resolve().parents[3]

# What finishes a run whose orchestrator was killed (run as `python -m MODULE RUN`): a
# program, not an import, since backends sit below orchestration.
KILLED_RUN_FINISHER = "sctpbench.orchestration.killed"


def start(umid: str, run_dir: Path, uml_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Start the guardian; returns it and the write end `sctpbench` keeps (close it with `release`)."""
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-S", "-m", "sctpbench.backends.uml.guardian", str(read_end), umid, str(run_dir.resolve()),
             str(uml_dir.resolve())],
            cwd=PROJECT_ROOT, pass_fds=(read_end,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own session: a Ctrl-C on the terminal must not end it before sctpbench says "done".
            start_new_session=True,
        )
    finally:
        os.close(read_end)
    return proc, write_end


def release(proc: subprocess.Popen[bytes], write_end: int) -> None:
    """The run ended and sctpbench tore the guest down itself: the guardian leaves quietly."""
    try:
        os.write(write_end, DONE)
    finally:
        os.close(write_end)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _wait(fd: int) -> bool:
    """Block until sctpbench closes its end; True when it said "done" first."""
    said = b""
    while chunk := os.read(fd, 64):
        said += chunk
    return DONE in said


def note_killed(run_dir: Path) -> None:
    """backend.json and a first summary.json, standard library only: there within milliseconds."""
    from sctpbench.backends import lastwords, stops
    from sctpbench.results import backend as results_backend
    from sctpbench.results import plan as results_plan
    from sctpbench.results import summary as results_summary

    results_backend.amend(run_dir, False, stops.KILLED, writer=lastwords.write_json)
    try:
        plan = results_plan.read_document(run_dir) or {}
    except ValueError:  # unreadable or broken (jsonfile's one-line error): the summary says less
        plan = {}
    summary = {key: plan.get(key) for key in ("run_id", "repetition", "seed", "clock")}
    results_summary.write(run_dir, summary | {"status": "failed", "error": stops.KILLED, "metrics": {}, "collected": False},
                          lastwords.write_json)


def collect(run_dir: Path) -> None:
    """The records into tables and metrics, by the orchestration's own program (KILLED_RUN_FINISHER)."""
    r = subprocess.run([sys.executable, "-m", KILLED_RUN_FINISHER, str(run_dir)], stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{KILLED_RUN_FINISHER} failed: {r.stderr.strip()}")


def main(argv: list[str] | None = None) -> int:
    """argv: the pipe's read end, the guest's umid, the run folder, the guest's temporary folder."""
    fd, umid, run, uml_dir = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is sctpbench's to handle
    if _wait(int(fd)):
        return 0
    return finish(umid, Path(run), Path(uml_dir))


def finish(umid: str, run_dir: Path, uml_dir: Path) -> int:
    """sctpbench is gone: end its guest and write the run's last words."""
    import shutil
    import traceback

    from sctpbench.backends.uml import guests as uml_guests
    from sctpbench.results import guest as results_guest

    uml_guests.kill_umid(umid)
    shutil.rmtree(uml_dir, ignore_errors=True)
    try:
        # Only now a log: a guardian that had nothing to do leaves nothing behind.
        sys.stderr = results_guest.open_guardian_log(run_dir)
        print(f"sctpbench ended without tearing down guest {umid}: killed it", file=sys.stderr, flush=True)
        note_killed(run_dir)
        collect(run_dir)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
