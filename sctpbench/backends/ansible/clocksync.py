"""The clock preflight: how far each machine's time of day is from this host's, before a run.

On the ansible backend a message is stamped at generation on one machine and at delivery
on another (agents on CLOCK_REALTIME, share.py), so every MTT carries the difference of
two clocks. Each machine is asked for its time a few times over one SSH session (a
ping-pong, as NTP does it): its offset is its answer minus the middle of the round trip,
known to within half the round trip; the round with the shortest trip is kept. A run is
refused when some machine is surely further than the inventory's bound from this host,
and so possibly twice that from another machine. What was measured goes to clock.json.

Machines on one virtual time (inventory clock.shared, a lab on virtual time) share one
clock by construction, but it falls behind this host's while their work costs wall time
and not virtual time, so a ping-pong against this host measures that lag, not the
machines. There each machine's time of day less its boot-time clock (two reads of its own,
no round trip) is compared with what it was when `lab up` started it (clock.epochs): the
difference is exactly how far its time of day was set since.
"""

from __future__ import annotations

import select
import subprocess
import time
from dataclasses import asdict, dataclass

from sctpbench.backends.ansible.inventory import Inventory, Machine
from sctpbench.model.errors import BackendError

ROUNDS = 12
STEPS = 6  # at most, when setting a clock
STEP_GOOD_NS = 500_000
TIMEOUT_S = 180.0  # SSH into a UML guest beside other guests took over 60 s once (a fresh-clone suite, 2026-11-29)
# Answers each line of its input with the time of day, until its input ends; `step N` first
# moves the machine's clock by N ns (a lab guest has no NTP: clocksync.step sets it).
ECHO_TIME = ("import sys, time\nfor line in sys.stdin:\n"
             " if line.startswith('step '): time.clock_settime_ns(time.CLOCK_REALTIME, time.time_ns() + int(line[5:]))\n"
             " print(time.time_ns(), flush=True)")


@dataclass(frozen=True)
class Offset:
    machine: str
    offset_ns: int  # the machine's time of day minus this host's
    uncertainty_ns: int  # half the shortest round trip
    rounds: int

    def describe(self) -> str:
        side = "ahead of" if self.offset_ns >= 0 else "behind"
        return (f"{self.machine}'s clock is {abs(self.offset_ns) / 1e6:.3f} ± {self.uncertainty_ns / 1e6:.3f} ms "
                f"{side} this host's")


def measure(machine: Machine, correct: bool = False) -> Offset:
    """The machine's offset from this host's time of day, over one SSH session; with
    `correct`, its clock is then stepped by that offset (root) and the offset measured again."""
    argv = [*machine.ssh_command(), machine.python, "-u", "-c", _quoted(ECHO_TIME)]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    deadline = time.monotonic() + TIMEOUT_S
    try:
        offset = _rounds(proc, machine, deadline)
        # A UML guest's clock lands a millisecond or more from where it was set: step again
        # until what is left is within what can be measured.
        for _ in range(STEPS if correct else 0):
            if abs(offset.offset_ns) <= max(offset.uncertainty_ns, STEP_GOOD_NS):
                break
            _ask(proc, machine, deadline, f"step {-offset.offset_ns}")
            offset = _rounds(proc, machine, deadline)
    finally:
        assert proc.stdin
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return offset


def step(machine: Machine) -> Offset:
    """Set the machine's clock to this host's, to within half a round trip (what remains)."""
    return measure(machine, correct=True)


def _rounds(proc: subprocess.Popen[str], machine: Machine, deadline: float) -> Offset:
    samples: list[tuple[int, int]] = []  # (round trip, offset)
    for _ in range(ROUNDS):
        sent = time.time_ns()
        answer = _ask(proc, machine, deadline, "")
        back = time.time_ns()
        samples.append((back - sent, answer - (sent + back) // 2))
    trip, offset = min(samples)
    return Offset(machine.host, offset, trip // 2, len(samples))


def _ask(proc: subprocess.Popen[str], machine: Machine, deadline: float, line: str) -> int:
    assert proc.stdin
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    answer = _line(proc, deadline)
    if answer is None:
        raise BackendError(f"clock preflight: {machine.host} ({machine.address}) did not answer: "
                           f"{_stderr(proc) or 'no output'}")
    return int(answer)


# The machine's time of day less its boot-time clock: constant unless its time of day is set.
EPOCH = ("import time; print(time.clock_gettime_ns(time.CLOCK_REALTIME) - "
         "time.clock_gettime_ns(time.CLOCK_BOOTTIME))")


def epoch(machine: Machine) -> int:
    """The machine's time of day less its boot-time clock, in ns (one SSH command)."""
    argv = [*machine.ssh_command(), machine.python, "-c", _quoted(EPOCH)]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT_S)
    answer = done.stdout.strip()
    if done.returncode != 0 or not answer.lstrip("-").isdigit():
        raise BackendError(f"clock preflight: {machine.host} ({machine.address}) did not answer: "
                           f"{done.stderr.strip() or 'no output'}")
    return int(answer)


def check(inventory: Inventory, hosts: list[str]) -> dict[str, object]:
    """Measure every machine the run uses; BackendError when one is surely beyond the bound."""
    if inventory.clock_shared:
        return _check_shared(inventory, hosts)
    offsets = [measure(inventory.machine(h)) for h in hosts]
    bound = inventory.clock_bound_ns
    beyond = [o for o in offsets if abs(o.offset_ns) - o.uncertainty_ns > bound]
    if beyond:
        worst = max(beyond, key=lambda o: abs(o.offset_ns))
        raise BackendError(f"clock preflight: {worst.describe()}, beyond the bound of {bound / 1e6:g} ms "
                           f"(clock.bound in {inventory.path}); MTT spans two machines' clocks: synchronise them "
                           f"(chrony, NTP) or raise the bound")
    return {"method": "ssh ping-pong against the orchestrating host's time of day", "bound_ns": bound,
            "machines": {o.machine: asdict(o) for o in offsets}}


def _check_shared(inventory: Inventory, hosts: list[str]) -> dict[str, object]:
    """Machines on one virtual time: how far each one's time of day was set since it started."""
    bound = inventory.clock_bound_ns
    offsets = []
    for host in hosts:
        reference = inventory.clock_epochs.get(host)
        if reference is None:
            raise BackendError(f"clock preflight: {inventory.path}: clock.epochs has no entry for {host} "
                               "(written by `sctpbench lab up` with clock.shared)")
        offsets.append(Offset(host, epoch(inventory.machine(host)) - reference, 0, 1))
    beyond = [o for o in offsets if abs(o.offset_ns) > bound]
    if beyond:
        worst = max(beyond, key=lambda o: abs(o.offset_ns))
        side = "ahead of" if worst.offset_ns >= 0 else "behind"
        raise BackendError(f"clock preflight: {worst.machine}'s clock is {abs(worst.offset_ns) / 1e6:.3f} ms {side} "
                           f"the machines' shared virtual time, beyond the bound of {bound / 1e6:g} ms (clock.bound in "
                           f"{inventory.path}); MTT spans two machines' clocks: its time of day was set since "
                           f"`lab up`; start the lab again")
    return {"method": f"one virtual time ({inventory.clock_shared}): each machine's time of day less its boot-time "
                      "clock, against its value when the lab started", "bound_ns": bound,
            "machines": {o.machine: asdict(o) for o in offsets}}


def _line(proc: subprocess.Popen[str], deadline: float) -> str | None:
    assert proc.stdout
    left = deadline - time.monotonic()
    if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
        return None
    line = proc.stdout.readline().strip()
    return line if line.isdigit() else None


def _stderr(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr
    if proc.poll() is None:
        return ""
    lines = proc.stderr.read().strip().splitlines()
    return lines[-1] if lines else ""


def _quoted(code: str) -> str:
    """The program as one word of the remote shell's command line."""
    return "'" + code.replace("'", "'\\''") + "'"
