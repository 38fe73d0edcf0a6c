"""The `uml` backend: boot a User-Mode Linux guest that runs the netns engine inside.

The guest is an ordinary host process (no root needed) with a real Linux 6.1 kernel:
kernel SCTP, netem and namespaces live inside it and vanish with it. The host's
filesystem is the guest's read-only root; the run folder is mounted writable, so the
guest writes records straight into it. How the guest boots (its command line, boot.py;
its PID 1, init.sh) is shared with the lab's guests; which kernel it boots is kernel.py.

On the virtual clock the kernel runs with `time-travel=inf-cpu`: its clock advances only
while it is idle, so the run's timing does not depend on the host's load, but its wall
time does (see `deadline_s`). On the paced clock it runs with `time-travel=ext:` and asks
the project's calendar (timetravel.py) for every moment, which grants none before the
wall clock reaches it: the same virtual time, no faster than real time.
"""

from __future__ import annotations

import compileall
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from sctpbench.backends import phases
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.protocol import OFF_HOST, PACKAGE, Check, Report, installed_version
from sctpbench.backends.uml import boot, timetravel
from sctpbench.backends.uml import guardian as uml_guardian
from sctpbench.backends.uml import guests as uml_guests
from sctpbench.backends.uml import kernel as uml_kernel
from sctpbench.model.errors import BackendError
from sctpbench.plan.data import Plan
from sctpbench.results import guest as results_guest

# Boot, build and tear-down take a few seconds; beyond the plan's own length this is
# the most a healthy guest needs.
SLACK_S = 60.0
# On virtual time the guest's work costs wall time but no virtual time: a saturating flow
# took 43-57 s of wall time for 4 s of traffic (2 cores, one of them loaded). Allow that
# much and more before deciding the guest hangs.
VIRTUAL_WALL_FACTOR = 30.0
# Kernel command-line words per clock. {start}: the guest's time of day at virtual 0
# (see wall_offset_ns); set by the kernel rather than by `date` in the init script, as
# setting it there costs virtual time and moves the run against the guest's 1 ms tick
# grid, which SCTP's timers fire on (paced and virtual time then disagree by tens of µs).
# {socket}: the calendar's, whose GET_TOD answers the time of day; the ID names this
# guest to a calendar that several guests could share.
TIME_TRAVEL = {"virtual": ["time-travel=inf-cpu", "time-travel-start={start}"],
               "paced": ["time-travel=ext:1:{socket}"], "real": []}
SCHEDULER = {"virtual": "inf-cpu (the guest's own)", "paced": "sctpbench calendar (timetravel.py), paced by the wall clock",
             "real": "none (the host's clock)"}


def deadline_s(plan: Plan) -> float:
    """Wall-clock seconds after which a guest that has not finished is taken to hang."""
    length = (plan.end_ns + plan.drain_timeout_ns) / 1e9
    # Paced time is held back to the wall clock and also pays for the guest's work.
    factor = {"real": 1.0, "virtual": VIRTUAL_WALL_FACTOR, "paced": 1.0 + VIRTUAL_WALL_FACTOR}[plan.clock]
    return length * factor + SLACK_S


def _check_paths(paths: list[Path]) -> None:
    for path in paths:
        if any(c.isspace() or c in ",:" for c in str(path)):
            raise BackendError(f"uml backend: {path}: the guest's command line cannot carry a path with spaces, commas or colons")


# What runs the plan inside the guest: the netns engine (netns/entry.py) unless a backend built on it says otherwise.
GUEST_ENTRY = "sctpbench.backends.netns.entry"
# Where the guest sees the run folder, whatever its path on the host (under the guest's
# own /run tmpfs). On virtual time the guest's work before t0 (the agents' argv and
# environment, path lookups) moves every timer-driven figure by microseconds: with the
# host's path there, the same run gave other figures in another results folder, a
# campaign folder or a Dask worker's temporary folder. The host side reaches the folder
# through HOST_LINK, a link of fixed length in the guest's temporary folder (uml_dir).
GUEST_RUN = Path("/run/sctpbench-run")
HOST_LINK = "run"


def host_link(uml_dir: Path, run_dir: Path) -> Path:
    """The host path the guest mounts its run folder from: uml_dir/run → run_dir. uml_dir
    (mkdtemp) has one length always, and it goes with uml_dir (here, or by the guardian)."""
    link = uml_dir / HOST_LINK
    link.symlink_to(run_dir)
    return link


def command(kernel: uml_kernel.Kernel, clock: list[str], run_link: Path, umid: str, uml_dir: Path,
            expose: list[Path], entry: str = GUEST_ENTRY) -> list[str]:
    """The guest's argv (boot.py); init.sh's own environment: its mounts (a file in uml_dir),
    the run folder (the host's link to it, and where the guest mounts it), the interpreter,
    what it runs."""
    assert kernel.modules is not None
    table = uml_dir / "fstab"
    table.write_text(boot.fstab(expose, run_link, GUEST_RUN))
    environment = {"SB_FSTAB": str(table), "SB_RUN": str(GUEST_RUN), "SB_RUN_HOST": str(run_link), "SB_PYTHON": sys.executable,
                   **boot.mounts(kernel.modules, expose, uml_kernel.modprobe_root(kernel)), "SB_ENTRY": entry}
    return boot.command_line(kernel.binary, boot.INIT, umid, uml_dir, clock, environment)


def rng_words(kernel: uml_kernel.Kernel, seed: int) -> list[str]:
    """The kernel word that seeds the guest's random numbers with the run's seed (its low 64
    bits), so that netem's random loss and jitter, SCTP's heartbeat jitter, verification tags
    and the agents' getrandom() repeat with the seed; none for a kernel without it."""
    if not uml_kernel.seeds_rng(kernel):
        return []
    return [f"{uml_kernel.RNG_SEED_PARAMETER}={seed & (2**64 - 1):016x}"]


def wall_offset_ns(plan: Plan) -> int:
    """How far before the host's time of day to start the guest's wall clock.

    Telemetry stamps points with the guest's wall-clock time. On virtual time a run can
    finish faster than real time, and points stamped from the boot time onward would land
    in a dashboard's future; placing the whole planned run before the boot moment keeps
    every point in the recent past, in order. Paced and real time never run ahead.
    """
    if plan.clock != "virtual":
        return 0
    return plan.end_ns + plan.drain_timeout_ns


def compile_guest_side(package: Path = PACKAGE) -> None:
    """Bytecode for what the guest imports. The guest reads the host's tree read-only and so
    never writes it: a module the host had not imported since it changed (the guest's entry
    modules always; all of them where the host writes no bytecode, PYTHONDONTWRITEBYTECODE)
    was compiled again at every boot, in the second case 0.15 CPU-s of a failover run's
    0.95 s boot (2026-11-30). Up to date, this costs the host about 15 ms; where the tree is
    not writable it does nothing."""
    for part in OFF_HOST:
        if (package / part).is_file():
            compileall.compile_file(package / part, quiet=2)
        else:
            compileall.compile_dir(package / part, quiet=2)


def run_plan(plan: Plan, run_dir: Path, report: Callable[[str], None], entry: str = GUEST_ENTRY) -> None:
    """Boot the guest on the plan already written to run_dir/plan.json, run `entry` inside; raise on failure."""
    kernel, why = uml_kernel.find(need_time_travel=plan.clock != "real")
    if kernel is None:
        raise BackendError(f"uml backend unavailable: {why}")
    if plan.clock not in TIME_TRAVEL:
        raise BackendError(f"uml backend: clock {plan.clock!r} is not supported")
    run_dir = run_dir.resolve()
    expose = boot.exposed_paths(needed=[Path(_agent(plan)).resolve().parent])
    _check_paths([run_dir, *expose])
    compile_guest_side()
    uml_dir = Path(tempfile.mkdtemp(prefix="sctpbench-uml-"))
    umid = uml_guests.guest_id(plan.run_id, os.getpid())
    report(f"booting the guest ({kernel.origin} kernel {kernel.release}, {plan.clock} clock)")
    socket_path = uml_dir / "calendar.sock"
    # In whole µs, as captures stamp packets (tcpdump): a capture's times less the run's t0
    # then repeat to the ns when the run is repeated, rather than by ±1 µs with the boot's ns.
    start = (time.time_ns() - wall_offset_ns(plan)) // 1000 * 1000
    clock = [word.format(socket=socket_path, start=start) for word in TIME_TRAVEL[plan.clock]]
    rng = rng_words(kernel, plan.seed)
    argv = command(kernel, [*clock, *rng], host_link(uml_dir, run_dir), umid, uml_dir, expose, entry)
    facts = guest_facts(kernel, argv, plan.clock)
    results_guest.write(run_dir, facts)
    # The guest connects while parsing its command line: the calendar must listen first.
    # The time of day it owes the guest: 0 but on paced time, read by the guest on every clock alike.
    owed = run_dir / timetravel.TOD_FILE
    owed.write_text("0\n")
    calendar = timetravel.Calendar(path=socket_path, tod_path=owed) if plan.clock == "paced" else None
    lines: list[str] = []
    # Ends the guest should this process die without doing it (SIGKILL): see uml/guardian.py.
    guardian, guardian_fd = uml_guardian.start(umid, run_dir, uml_dir)
    try:
        if calendar is not None:
            calendar.start()
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            assert proc.stdout
            with results_guest.open_console(run_dir) as console:
                _follow(proc.stdout.fileno(), console, started + deadline_s(plan),
                        lambda line: _on_line(line, lines, report))
            proc.wait(timeout=30)
            phases.ended(report, "halt")
        finally:
            _kill(proc)
            facts["wall_s"] = round(time.monotonic() - started, 3)
    finally:
        if calendar is not None:
            calendar.stop()
            facts["calendar"] = calendar.stats.as_dict()
        shutil.rmtree(uml_dir, ignore_errors=True)
        owed.unlink(missing_ok=True)  # a guest that never reached its t0
        uml_guardian.release(guardian, guardian_fd)
        _write_facts(run_dir, facts)
    errors = [line.removeprefix("SB-ERROR ") for line in lines if line.startswith("SB-ERROR ")]
    if errors:
        raise BackendError(errors[-1].replace(" | ", "\n"))
    if "SB-EXIT 0" not in lines:
        raise BackendError(f"the guest ended without finishing the run (see {results_guest.console_path(run_dir)})")


def _write_facts(run_dir: Path, facts: dict[str, object]) -> None:
    try:
        results_guest.write(run_dir, facts)
    except OSError:
        pass  # a full disk: the run's error says so; the facts at boot were written then


def _agent(plan: Plan) -> str:
    """The agent binary: the first non-capture process's program."""
    return next(p.argv[0] for p in plan.processes if p.role != "capture")


def guest_facts(kernel: uml_kernel.Kernel, argv: list[str], clock: str) -> dict[str, object]:
    """What the host booted: the kernel, its command line and whose time it ran on (the guest reads back the rest)."""
    return {
        "kernel": str(kernel.binary), "origin": kernel.origin, "release": kernel.release,
        "config_sha256": kernel.config_sha256, "source": kernel.detail, "time_travel": kernel.time_travel,
        "clock": clock, "scheduler": SCHEDULER[clock], "command_line": argv[1:], "rng": _rng_fact(argv),
    }


def _rng_fact(argv: list[str]) -> str:
    """Where the guest kernel's random numbers came from, as its command line says."""
    prefix = f"{uml_kernel.RNG_SEED_PARAMETER}="
    given = next((word.removeprefix(prefix) for word in argv if word.startswith(prefix)), None)
    if given is None:
        return "the host's entropy (the kernel does not take random.seed=): draws differ run to run"
    return f"seeded: {prefix}{given} (the run's seed; kernel/patches/0005)"


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
        if not console.closed:
            try:
                console.write(chunk)
                console.flush()
            except OSError:
                # A full disk: the guest is still followed, its run ends and says why.
                _close_quietly(console)
        *complete, pending = (pending + chunk).split(b"\n")
        for raw in complete:
            on_line(raw.decode(errors="replace").rstrip("\r"))


def _close_quietly(f: BinaryIO) -> None:
    try:
        f.close()
    except OSError:
        pass  # the file is closed even when its last flush fails


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


class UmlBackend:
    """The uml backend as the registry knows it (protocol.Backend)."""

    name = "uml"
    clocks = tuple(TIME_TRAVEL)

    def checks(self) -> list[Check]:
        ok, detail = self.available()
        return [Check("User-Mode Linux guest", ok, detail)]

    def available(self, clock: str | None = None) -> tuple[bool, str]:
        if clock is not None and clock not in self.clocks:
            return False, f"the uml backend has no {clock} clock"
        # Debian's kernel serves the real clock; the virtual ones need the project's own.
        kernel, why = uml_kernel.find(need_time_travel=clock not in (None, "real"))
        return (True, kernel.describe()) if kernel else (False, why)

    def run_plan(self, plan: Plan, run_dir: Path, report: Report) -> None:
        run_plan(plan, run_dir, report)

    def missing_sysctls(self, names: Sequence[str], clock: str) -> tuple[list[str], str]:
        kernel, _ = uml_kernel.find(need_time_travel=clock != "real")
        if kernel is None:  # available() says why no run can go ahead
            return [], ""
        return uml_kernel.missing_sysctls(kernel, names), f"the {kernel.origin} guest kernel {kernel.release}"

    def render(self, plan: Plan, run_dir: str) -> str:
        # The guest runs exactly the netns backend's commands; only how it boots is added.
        return (f"# uml backend: these commands run as root inside a User-Mode Linux guest that sctpbench boots "
                f"({plan.clock} clock; its command line is in guest.json)\n" + netns_render.render(plan, run_dir))

    def host_facts(self) -> dict[str, str]:
        return {"user_mode_linux": installed_version("user-mode-linux")}

    def reap(self, run_id: str, owner_pid: int) -> None:
        # A guest started just before its owner was killed may not have its guardian yet.
        uml_guests.kill(run_id, owner_pid)
