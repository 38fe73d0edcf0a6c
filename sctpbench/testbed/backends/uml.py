"""The `uml` backend: boot a User-Mode Linux guest that runs the `netns` backend inside.

The guest is an ordinary host process (no root needed) with a real Linux 6.1 kernel:
kernel SCTP, netem and namespaces live inside it and vanish with it. The host's
filesystem is the guest's read-only root; the run folder is mounted writable, so the
guest writes records straight into it.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import BinaryIO, Callable

from sctpbench.testbed.errors import BackendError
from sctpbench.testbed.plan import Plan

INIT = Path(__file__).resolve().parent / "uml_init.sh"
LINUX_UML = "/usr/bin/linux.uml"
MODULES_DIR = Path("/usr/lib/uml/modules")
GUEST_MEMORY = "256M"
# Boot, build and tear-down take a few seconds; beyond the plan's own length this is
# the most a healthy guest needs.
SLACK_S = 60.0


def available() -> tuple[bool, str]:
    if not os.access(LINUX_UML, os.X_OK):
        return False, f"{LINUX_UML} not found (Debian package user-mode-linux)"
    releases = sorted(p.name for p in MODULES_DIR.glob("*") if (p / "kernel/net/sctp/sctp.ko").exists())
    if not releases:
        return False, f"no sctp.ko under {MODULES_DIR}"
    return True, f"{LINUX_UML}, modules {', '.join(releases)}"


# The guest mounts tmpfs on these host folders; what it needs from them is mounted back.
GUEST_TMPFS = (Path("/tmp"), Path("/run"), Path("/var/tmp"))
PROJECT_ROOT = Path(__file__).resolve().parents[3]


def exposed_paths(agent: str) -> list[Path]:
    """Host folders the guest needs (interpreter, package, agent) that its tmpfs would hide."""
    wanted = {Path(sys.prefix).resolve(), PROJECT_ROOT, Path(agent).resolve().parent}
    hidden = sorted(p for p in wanted if any(p.is_relative_to(t) for t in GUEST_TMPFS))
    return [p for p in hidden if not any(p != q and p.is_relative_to(q) for q in hidden)]


def _check_paths(paths: list[Path]) -> None:
    for path in paths:
        if any(c.isspace() or c in ",:" for c in str(path)):
            raise BackendError(f"uml backend: {path}: the guest's command line cannot carry a path with spaces, commas or colons")


def command(run_dir: Path, umid: str, uml_dir: Path, expose: list[Path]) -> list[str]:
    return [
        LINUX_UML, f"mem={GUEST_MEMORY}", "root=/dev/root", "rootfstype=hostfs", "rootflags=/", "ro",
        f"init={INIT}", "con=null", "con0=fd:0,fd:1", f"umid={umid}", f"uml_dir={uml_dir}", "quiet",
        f"SB_RUN={run_dir}", f"SB_PYTHON={sys.executable}", f"SB_EXPOSE={':'.join(map(str, expose))}",
    ]


def run_plan(plan: Plan, run_dir: Path, report: Callable[[str], None]) -> None:
    """Boot the guest on the plan already written to run_dir/plan.json; raise on failure."""
    ok, why = available()
    if not ok:
        raise BackendError(f"uml backend unavailable: {why}")
    run_dir = run_dir.resolve()
    expose = exposed_paths(plan.processes[0].argv[0])
    _check_paths([run_dir, *expose])
    uml_dir = Path(tempfile.mkdtemp(prefix="sctpbench-uml-"))
    umid = f"sb-{plan.run_id[:8]}-{os.getpid()}"
    report("booting the guest")
    proc = subprocess.Popen(
        command(run_dir, umid, uml_dir, expose), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True,
    )
    deadline = time.monotonic() + (plan.end_ns + plan.drain_timeout_ns) / 1e9 + SLACK_S
    lines: list[str] = []
    try:
        assert proc.stdout
        with open(run_dir / "console.log", "wb") as console:
            _follow(proc.stdout.fileno(), console, deadline, lambda line: _on_line(line, lines, report))
        proc.wait(timeout=30)
    finally:
        _kill(proc)
        shutil.rmtree(uml_dir, ignore_errors=True)
    errors = [l.removeprefix("SB-ERROR ") for l in lines if l.startswith("SB-ERROR ")]
    if errors:
        raise BackendError(errors[-1].replace(" | ", "\n"))
    if "SB-EXIT 0" not in lines:
        raise BackendError(f"the guest ended without finishing the run (see {run_dir / 'console.log'})")


def _follow(fd: int, console: BinaryIO, deadline: float, on_line: Callable[[str], None]) -> None:
    """Copy the guest console to console.log and hand over each line, until EOF or deadline."""
    pending = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BackendError("the guest did not finish in time (see console.log)")
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        console.write(chunk)
        console.flush()
        *complete, pending = (pending + chunk).split(b"\n")
        for raw in complete:
            on_line(raw.decode(errors="replace").rstrip("\r"))


def _on_line(line: str, kept: list[str], report: Callable[[str], None]) -> None:
    if line.startswith("SB-PROGRESS "):
        report(line.removeprefix("SB-PROGRESS "))
    elif line.startswith(("SB-ERROR ", "SB-EXIT ")):
        kept.append(line)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """The guest's kernel and its helper processes share one session: end them all."""
    if proc.poll() is None:
        for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # helpers that outlived the kernel process
    except ProcessLookupError:
        pass
    if proc.stdout:
        proc.stdout.close()
