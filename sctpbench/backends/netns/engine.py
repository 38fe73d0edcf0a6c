"""The netns engine: realise a plan on the kernel this process runs on, run it, tear it down.

Runs as root, either on a host whose kernel has SCTP and netem (the netns backend,
backend.py) or inside a User-Mode Linux guest (the uml backend runs it through entry.py).
Standard library only, because the guest's process start is slow and every import counts.

What of the plan it realises, and on whose clock, is its `Share`: the whole plan on this
kernel's CLOCK_MONOTONIC (`WholePlan`), or one machine's hosts on the time of day (the
ansible backend's machines, backends/ansible/share.py). A backend that makes the hosts
and wires its own way (Mininet) is a subclass that builds them before `build` runs the
share's setup commands and removes them after `teardown`.

The files it leaves in the run folder, and their content, are listed in results/files.py.
"""

from __future__ import annotations

import os
import queue
import re
import resource
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol, TextIO

from sctpbench.backends import phases, stops
from sctpbench.backends.netns import inside
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.netns.render import NsCommand
from sctpbench.backends.uml import time_of_day
from sctpbench.model import sctp_params
from sctpbench.model.errors import BackendError
from sctpbench.plan.data import Plan, Process, TimedAction
from sctpbench.results import backend as results_backend
from sctpbench.results import events as results_events
from sctpbench.results import kernel as results_kernel

Report = Callable[[str], None]

READY_TIMEOUT_S = 15.0
CONFIRM_TIMEOUT_S = 5.0
# How long after its end a competing flow may take: iperf3's connection setup and final exchange.
TRAFFIC_GRACE_NS = 10_000_000_000
# The timeline action that lets a waiting sender go (plan/traffic.py).
GO = "go"
# t0 is set this far ahead of "everything ready" so the start command reaches the client
# before the first message is due.
T0_LEAD_NS = 300_000_000
# t0 falls on the kernel's tick: Linux aligns its jiffies to multiples of TICK_NSEC of
# CLOCK_MONOTONIC (tick_init_jiffy_update), so a t0 on that grid puts every message of the
# schedule at the same phase against the SCTP timers whatever the set-up before it cost
# (on virtual time each clock read costs 256 ns, so a leaner set-up or a longer checkout path
# moved t0 within the tick and timer-driven figures by up to 1 ms).
TICK_NS = 1_000_000
# The processes start on a grid too, so the association comes up, and its heartbeat and
# capture timers run, at the same phase against t0 however long the guest's set-up took.
START_GRID_NS = 10_000_000
SPIN_NS = 2_000_000  # sleep_until's spin on the real clock
# The kernel-wide socket buffer sysctls kernel.json records, as `sysctl KEY` prints them.
KERNEL_WIDE_READ_BACK = ("net.sctp.sctp_rmem", "net.sctp.sctp_wmem", "net.core.rmem_default", "net.core.wmem_default")


def _now() -> int:
    return time.monotonic_ns()


def on_tick(t: int, grid: int = TICK_NS) -> int:
    """The first point of a grid (by default the guest kernel's 1 ms ticks) at or after t, in CLOCK_MONOTONIC ns."""
    return -(-t // grid) * grid


def _realtime_at(monotonic_ns: int) -> int:
    before = time.monotonic_ns()
    wall = time.time_ns()
    after = time.monotonic_ns()
    return wall + monotonic_ns - (before + after) // 2


class LineReader:
    """Collects lines of a pipe in a thread, so the timeline never blocks on a read."""

    def __init__(self, stream: IO[str], log: TextIO | None = None, now: Callable[[], int] = _now) -> None:
        self.lines: queue.Queue[tuple[int, str | None]] = queue.Queue()
        self._log = log
        self._now = now
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: TextIO) -> None:
        for line in stream:
            self.lines.put((self._now(), line.rstrip("\n")))
            if self._log:
                self._log.write(line)
                self._log.flush()
        self.lines.put((self._now(), None))  # end of stream: nothing more will come


    def wait_for(self, predicate: Callable[[str], bool], timeout_s: float) -> tuple[int, str] | None:
        """The first line matching, or None at timeout or end of stream."""
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                t, line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                self.lines.put((t, None))
                return None
            if predicate(line):
                return t, line
        return None


class BatchSession:
    """A long-lived `tc -batch` or `ip -batch` in one namespace.

    Starting a process in the guest costs tens of milliseconds, far more than the timing
    an event needs. A running tc applies a line in about a millisecond; showing the
    device's qdiscs right after it prints output (tc flushes per command), which tells us
    the change before it has been made. The pipes are read here, without a thread, to
    keep thread wake-ups out of that path.
    """

    # After the change, a read-only command on the same device whose output marks completion.
    CONFIRM = {"tc": "qdisc show dev {dev}", "ip": "link show dev {dev}"}

    def __init__(self, tool: str, ns: str, log: TextIO, now: Callable[[], int] = _now) -> None:
        self.tool, self.ns = tool, ns
        self.log = log
        self._now = now
        self.proc = subprocess.Popen(
            [tool, "-n", ns, "-force", "-batch", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
        )
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._in, self._out, self._err = self.proc.stdin, self.proc.stdout.fileno(), self.proc.stderr.fileno()

    def send(self, commands: list[NsCommand], confirm_dev: str) -> None:
        self._read_ready(self._out)  # leftovers of an earlier confirmation
        text = "".join(" ".join(c.args) + "\n" for c in commands) + self.CONFIRM[self.tool].format(dev=confirm_dev) + "\n"
        self.log.write(text)
        self._in.write(text.encode())

    def confirm(self) -> int:
        """Wait for the show's output; the time it arrives bounds when the change was made."""
        ready, _, _ = select.select([self._out], [], [], CONFIRM_TIMEOUT_S)
        t = self._now()
        if not ready or not os.read(self._out, 65536):
            raise BackendError(f"{self.tool} in {self.ns}: no confirmation within {CONFIRM_TIMEOUT_S:g} s")
        # tc wrote any error for the change before the show's output.
        error = self._read_ready(self._err)
        if error:
            self.log.write(error)
            raise BackendError(f"{self.tool} in {self.ns}: {error.strip().splitlines()[0]}")
        return t

    @staticmethod
    def _read_ready(fd: int) -> str:
        text = b""
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            text += chunk
        return text.decode(errors="replace")

    def close(self) -> None:
        _stop(self.proc)


@dataclass
class Managed:
    """A process the run started (agent or capture), its output and its stderr log."""

    name: str
    proc: subprocess.Popen[str]
    out: LineReader
    stderr: TextIO

    def command(self, line: str) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()


class Share(Protocol):
    """What of the plan one engine realises, and on whose clock: the engine's extension point.

    Every method has the whole plan's answer in `WholePlan`; the ansible backend's machine
    share (backends/ansible/share.py) narrows it to one machine's hosts on the time of day.
    """

    def now(self) -> int:
        """The run's clock: its timeline's, its agents' and its records' (results/files.py)."""
        ...

    def realtime_of(self, t: int) -> int:
        """The time of day at `t` of the run's clock."""
        ...

    def namespaces(self, plan: Plan) -> dict[str, str]:
        """host → namespace of the hosts realised here."""
        ...

    def setup_commands(self, plan: Plan) -> list[NsCommand]:
        """The commands that build the network, in order."""
        ...

    def timeline(self, plan: Plan) -> list[TimedAction]:
        """The actions applied here."""
        ...

    def agent_binary(self, plan: Plan) -> str:
        """The agent program on this machine (its --version goes to versions.json)."""
        ...

    def process_argv(self, plan: Plan, p: Process, run_dir: Path) -> list[str]:
        """The command line that starts one process in its host's namespace."""
        ...

    def start_processes(self, engine: NetnsEngine) -> int:
        """Start the processes realised here (engine.start_process); return t0 on the run's clock."""
        ...

    def wait_for_peers(self, engine: NetnsEngine, t0: int) -> None:
        """Once the engine's own agents ended as their associations did: whatever else
        must end before teardown (agents whose peer is on another machine)."""
        ...

    def release(self, engine: NetnsEngine) -> None:
        """At teardown, once every process is stopped and before the namespaces go:
        give back what the setup took from the machine."""
        ...


@dataclass(frozen=True)
class WholePlan:
    """Every host of the plan on this kernel, on its CLOCK_MONOTONIC (the netns, uml and mininet backends)."""

    # The function itself, not a method calling it: the timeline reads the clock often, and
    # on virtual time every read and every Python frame around it can move the run by µs.
    now = staticmethod(_now)

    def realtime_of(self, t: int) -> int:
        return _realtime_at(t)

    def namespaces(self, plan: Plan) -> dict[str, str]:
        return netns_render.namespaces(plan)

    def setup_commands(self, plan: Plan) -> list[NsCommand]:
        """Namespaces and veth pairs in this kernel."""
        return netns_render.setup(plan)

    def timeline(self, plan: Plan) -> list[TimedAction]:
        return plan.timeline

    def agent_binary(self, plan: Plan) -> str:
        return next(p.argv[0] for p in plan.processes if p.role != "capture")

    def process_argv(self, plan: Plan, p: Process, run_dir: Path) -> list[str]:
        return netns_render.process_argv(plan, p, str(run_dir))

    def start_processes(self, engine: NetnsEngine) -> int:
        """Every process, each once the one before is ready."""
        sleep_until(on_tick(self.now(), START_GRID_NS), self.now, spin_ns(engine.plan))
        for p in engine.plan.processes:
            engine.start_process(p)
        engine.report(f"association up; t0 in {T0_LEAD_NS / 1e6:.0f} ms")
        return on_tick(self.now() + T0_LEAD_NS)

    def wait_for_peers(self, engine: NetnsEngine, t0: int) -> None:
        pass  # every peer is on this kernel: the engine waited for it

    def release(self, engine: NetnsEngine) -> None:
        pass  # the setup took nothing of the machine's that deleting the namespaces does not give back


@dataclass
class NetnsEngine:
    plan: Plan
    run_dir: Path
    report: Report
    modprobe_root: str | None = None
    share: Share = field(default_factory=WholePlan)
    agents: dict[str, Managed] = field(default_factory=dict)
    sessions: dict[tuple[str, str], BatchSession] = field(default_factory=dict)
    created_ns: list[str] = field(default_factory=list)
    restore_sysctls: list[str] = field(default_factory=list)
    # The run's clock: the share's (a field, so that reading it costs no extra call).
    now: Callable[[], int] = field(init=False)
    _logs: list[TextIO] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.now = self.share.now

    # ------------------------------------------------------------------ build

    def build(self) -> None:
        phases.ended(self.report, "boot")  # what came before: the guest's boot, or nothing on a host
        (self.run_dir / "records").mkdir(parents=True, exist_ok=True)
        (self.run_dir / "captures").mkdir(exist_ok=True)
        if self.plan.traffic:
            (self.run_dir / "traffic").mkdir(exist_ok=True)
        self.report("building the network")
        for group in _batches(self.share.setup_commands(self.plan)):
            self.execute(group)
        results_kernel.write_kernel(self.run_dir, self._read_back())
        results_kernel.write_versions(self.run_dir, self._versions())
        phases.ended(self.report, "setup")

    def execute(self, group: list[NsCommand]) -> None:
        """Run consecutive commands of one tool and namespace (one batch process where the tool has batches)."""
        first = group[0]
        if first.tool == "modprobe":
            if not _built_in(first.args, self.modprobe_root):  # modprobe would do nothing: no program start
                _check(["modprobe"] + (["-d", self.modprobe_root] if self.modprobe_root else []) + first.args)
        elif first.tool == "sysctl" and first.ns is None:
            # Kernel-wide: remember what was there, teardown puts it back.
            keys = [a.partition("=")[0] for a in first.args]
            self.restore_sysctls += [f"{k}={inside.read_sysctl(k)}" for k in keys]
            inside.write_sysctls(first.args, first.render())
        elif first.tool == "sysctl":
            with inside.namespace(first.ns):
                inside.write_sysctls(first.args, first.render())
        elif first.tool in netns_render.RESTORE:
            with inside.namespace(first.ns):
                _check([netns_render.RESTORE[first.tool], "--noflush"], "\n".join(first.args) + "\n", shown=first.render())
        elif first.tool == "ip" and first.args[:2] == ["netns", "add"]:
            self.add_namespaces([c.args[2] for c in group])
        else:
            # A batch's lines take no options: a leading one (`-6`, which `ip rule` needs to
            # read an IPv6 address) is the batch's, and _batches groups by it.
            options = _options(first)
            argv = [first.tool, *options] + (["-n", first.ns] if first.ns else []) + ["-batch", "-"]
            _check(argv, "".join(" ".join(c.args[len(options):]) + "\n" for c in group),
                   shown="\n".join(c.render() for c in group))

    def add_namespaces(self, names: list[str]) -> None:
        """All in one `ip -batch` (a program start is the dearest thing a guest does), which
        stops at the first that fails: teardown deletes exactly the namespaces this run
        created, never one of the same name that another run owns."""
        r = subprocess.run(["ip", "-batch", "-"], input="".join(f"netns add {n}\n" for n in names),
                           capture_output=True, text=True)
        failed = len(names) if r.returncode == 0 else min(_failed_line(r.stderr), len(names) - 1)
        self.created_ns += names[:failed]
        if r.returncode != 0:
            raise BackendError(f"command failed (status {r.returncode}): ip netns add {names[failed]}\n{r.stderr.strip()}")

    def _read_back(self) -> dict[str, object]:
        sysctls: dict[str, dict[str, str]] = {}
        for host, ns in self.share.namespaces(self.plan).items():
            # A stack variant's sysctl is read back where the kernel has it, skipped where not.
            with inside.namespace(ns):
                values = {k: inside.read_sysctl(f"net.sctp.{k}") for k in sctp_params.READ_BACK_SYSCTLS}
            sysctls[host] = {k: v.strip() for k, v in values.items() if v is not None}
        qdiscs = {
            host: _check(["tc", "-n", ns, "qdisc", "show"]).splitlines() for host, ns in self.share.namespaces(self.plan).items()
        }
        kernel_wide = [f"{k} = {inside.read_sysctl(k)}" for k in KERNEL_WIDE_READ_BACK]
        return {"sysctl": sysctls, "sysctl_kernel_wide": kernel_wide, "qdisc": qdiscs, "hz": _kernel_hz()}

    def _versions(self) -> dict[str, str | None]:
        agent = self.share.agent_binary(self.plan)
        return {
            "kernel_release": os.uname().release,
            "kernel_version": os.uname().version,
            "kernel_config_sha256": _kernel_config_sha256(),
            "kernel_time_travel": _time_travel_mode(),
            "machine": os.uname().machine,
            "iproute2": _check(["ip", "-V"]).strip(),
            "agent": _check([agent, "--version"]).strip(),
        }

    # ------------------------------------------------------------------ run

    def run(self) -> None:
        inside.exact_timers()
        timeline = self.share.timeline(self.plan)
        for tool, host in sorted({(t.commands[0].tool, host) for t in timeline if t.commands for host, _ in t.confirm}):
            ns = netns_render.namespace(self.plan, host)
            self.sessions[tool, host] = BatchSession(tool, ns, self._open(f"{tool}-{ns}.log"), self.now)
        t0 = self.share.start_processes(self)
        # A paced guest's realtime fell behind the host's by the calendar's rebases so far.
        time_of_day.take(self.run_dir / time_of_day.TOD_FILE)
        # The wall-clock time of t0 lets telemetry stamp points with real time, the same
        # way live and when pushed later (a UML guest's wall clock is the host's).
        results_backend.write(self.run_dir, {"ok": None, "t0_ns": t0, "t0_realtime_ns": self.share.realtime_of(t0)})
        phases.ended(self.report, "agents")
        events = self._open(results_events.NAME)
        for action in timeline:
            record = self._apply(action, t0)
            events.write(results_events.line(record))
            events.flush()
            if action.kind != "start":
                detail = f" {action.detail}" if action.detail else ""
                lag_ms = record["lag_ns"] / 1e6
                self.report(f"t={action.at_ns / 1e9:.3f}s {action.kind} {action.target}{detail} (lag {lag_ms:.2f} ms)")
        self._wait_workload(t0)
        self._wait_agents(t0)
        self.share.wait_for_peers(self, t0)
        self._wait_traffic(t0)
        phases.ended(self.report, "drain")

    def start_process(self, p: Process) -> None:
        """Start a process in its namespace and wait until its output shows it is ready.

        tcpdump announces itself on stderr, so for captures stderr joins stdout.
        """
        name, ready = p.name, p.ready_line
        stderr = self._open(f"records/{name}.stderr")
        # Born in its namespace without `ip netns exec` (inside.py): one program start instead of two.
        ns, argv = inside.split_exec(self.share.process_argv(self.plan, p, self.run_dir))
        with inside.namespace(ns):
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT if p.role == "capture" else stderr,
                text=True, bufsize=1,
            )
        assert proc.stdout
        agent = Managed(name, proc, LineReader(proc.stdout, self._open(f"records/{name}.stdout"), self.now), stderr)
        self.agents[name] = agent
        if agent.out.wait_for(lambda line: line.startswith(ready), READY_TIMEOUT_S) is None:
            raise BackendError(f"{name} did not print '{ready}' within {READY_TIMEOUT_S:g} s; {self._why(agent)}")

    def _apply(self, action: TimedAction, t0: int) -> dict[str, Any]:
        scheduled = t0 + action.at_ns
        if action.kind == "start":
            # The agents wait for the absolute time themselves: no lag from this process.
            issued = self.now()
            for name in action.agents:
                self.agents[name].command((action.control or "").format(t=scheduled))
            return _event(action, scheduled, issued, scheduled)
        sleep_until(scheduled, self.now, spin_ns(self.plan))
        issued = self.now()
        if action.kind == GO:
            # A waiting sender (iperf3 under its shell) runs once told: no answer to wait for.
            for name in action.agents:
                self.agents[name].command(action.control or "")
            return _event(action, scheduled, issued, self.now())
        if action.control:
            applied = max(self._control(self.agents[name], action) for name in action.agents)
        else:
            tool = action.commands[0].tool
            devices = dict(action.confirm)  # one confirmation per host
            for host, dev in devices.items():
                self.sessions[tool, host].send([netns_render.concrete(self.plan, c) for c in action.commands if c.host == host], dev)
            applied = max(self.sessions[tool, host].confirm() for host in devices)
        return _event(action, scheduled, issued, applied)

    def _control(self, agent: Managed, action: TimedAction) -> int:
        """Tell one agent; its answer carries the moment the change was made."""
        agent.command(action.control or "")
        got = agent.out.wait_for(lambda line: line.startswith(("ok ", "err ")), CONFIRM_TIMEOUT_S)
        if got is None or got[1].startswith("err"):
            raise BackendError(f"{action.kind} {action.target}: agent {agent.name} answered {got[1] if got else 'nothing'}")
        return int(got[1].split()[-1])

    def _wait_workload(self, t0: int) -> None:
        """Until the plan's end (t0 + end), for the cost of the workload apart from its drain:
        waiting on a client, as _wait_agents does next, so the guest does no other work."""
        client = next((self.agents[a.client_agent] for a in self.plan.associations if a.client_agent in self.agents), None)
        left_ns = t0 + self.plan.end_ns - self.now()
        if client is not None and left_ns > 0:
            try:
                client.proc.wait(timeout=left_ns / 1e9)
            except subprocess.TimeoutExpired:
                pass
        phases.ended(self.report, "workload")

    def _wait_agents(self, t0: int) -> None:
        """Every client first (each drains for at most drain_timeout after its last message),
        then every server, which ends when its association does."""
        deadline_ns = t0 + self.plan.end_ns + self.plan.drain_timeout_ns + 10_000_000_000
        deadline_s = (deadline_ns - self.now()) / 1e9
        for assoc in self.plan.associations:
            if assoc.client_agent not in self.agents:  # on another machine (the share's to wait for)
                continue
            client = self.agents[assoc.client_agent]
            self.wait_exit(client, max((deadline_ns - self.now()) / 1e9, 1.0), f"the client agent {client.name}",
                           f"did not finish within {deadline_s:.0f} s of t0+end")
        for assoc in self.plan.associations:
            if assoc.server_agent not in self.agents or assoc.client_agent not in self.agents:
                continue  # a server whose client is on another machine: the share waits for it
            server = self.agents[assoc.server_agent]
            self.wait_exit(server, 10, f"the server agent {server.name}", "did not see the association end within 10 s")

    def _wait_traffic(self, t0: int) -> None:
        """Every competing flow's sender until its end, then its receiver: iperf3's server
        ends with its one test, a udp sink once told (so it writes its `end` line)."""
        for flow in self.plan.traffic:
            if flow.client_process not in self.agents:
                continue
            deadline_s = (t0 + flow.end_ns + TRAFFIC_GRACE_NS - self.now()) / 1e9
            self.wait_exit(self.agents[flow.client_process], max(deadline_s, 1.0), f"the {flow.kind} flow {flow.name}'s sender",
                           f"did not finish within {TRAFFIC_GRACE_NS / 1e9:g} s of its end")
        for flow in self.plan.traffic:
            if flow.server_process not in self.agents:
                continue
            receiver = self.agents[flow.server_process]
            if flow.kind == "udp":
                receiver.command("stop")
            self.wait_exit(receiver, 10, f"the {flow.kind} flow {flow.name}'s receiver", "did not end within 10 s")

    def wait_exit(self, process: Managed, timeout_s: float, who: str, late: str) -> None:
        """Wait for a process to exit 0; otherwise say who was late or how it failed."""
        try:
            code = process.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise BackendError(f"{who} {late}") from None
        if code != 0:
            raise BackendError(f"{who} exited with status {code}; {self._why(process)}")

    def _why(self, agent: Managed) -> str:
        agent.stderr.flush()
        text = (self.run_dir / "records" / f"{agent.name}.stderr").read_text().strip()
        text = text or (self.run_dir / "records" / f"{agent.name}.stdout").read_text().strip()
        state = "still running" if agent.proc.poll() is None else f"exit status {agent.proc.returncode}"
        return f"{state}; stderr: {text.splitlines()[-1] if text else '(empty)'}"

    # ------------------------------------------------------------------ teardown

    def teardown(self) -> None:
        for agent in self.agents.values():
            _stop(agent.proc)
        self.share.release(self)
        for session in self.sessions.values():
            session.close()
        if self.created_ns:  # -force: past one that is gone already, to the others
            subprocess.run(["ip", "-force", "-batch", "-"], input="".join(f"netns del {ns}\n" for ns in reversed(self.created_ns)),
                           capture_output=True, text=True)
        if self.restore_sysctls:
            try:
                inside.write_sysctls(self.restore_sysctls, "restoring kernel-wide sysctls")
            except BackendError:
                pass  # as before: the teardown goes on; what could not be put back stays as the run left it
        for log in self._logs:
            try:
                log.close()
            except OSError:
                pass  # a full disk loses the log's tail; the teardown itself must finish

    # ------------------------------------------------------------------ helpers

    def _open(self, name: str) -> TextIO:
        f = open(self.run_dir / name, "w")
        self._logs.append(f)
        return f


def _event(action: TimedAction, scheduled: int, issued: int, applied: int) -> dict[str, object]:
    return {
        "kind": action.kind, "target": action.target, "detail": action.detail, "direction": action.direction,
        "at_ns": action.at_ns,
        "scheduled_ns": scheduled, "issued_ns": issued, "applied_ns": applied, "lag_ns": applied - scheduled,
    }


def _options(c: NsCommand) -> list[str]:
    """The leading option words of an ip or tc command (`-6`)."""
    options: list[str] = []
    for a in c.args:
        if not a.startswith("-"):
            break
        options.append(a)
    return options


def _batches(commands: list[NsCommand]) -> list[list[NsCommand]]:
    """Consecutive commands for the same tool and namespace run as one batch process."""
    groups: list[list[NsCommand]] = []
    for c in commands:
        same = bool(groups) and (groups[-1][0].tool, groups[-1][0].ns) == (c.tool, c.ns) and c.tool in ("ip", "tc")
        same = same and _options(groups[-1][0]) == _options(c)
        same = same and (c.args[:2] == ["netns", "add"]) == (groups[-1][0].args[:2] == ["netns", "add"])
        if same:
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def _failed_line(stderr: str) -> int:
    """Which line of a batch failed, counted from 0, from ip's "Command failed -:N" (0 when it
    does not say: then no line is taken to have worked)."""
    found = re.search(r"Command failed -:(\d+)", stderr)
    return int(found.group(1)) - 1 if found else 0


def _check(argv: list[str], stdin: str | None = None, shown: str | None = None) -> str:
    r = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        what = shown or " ".join(argv)
        raise BackendError(f"command failed (status {r.returncode}): {what}\n{r.stderr.strip()}")
    return r.stdout


def _stop(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream:
            try:
                stream.close()
            except OSError:
                pass


def spin_ns(plan: Plan) -> int:
    """How long before a deadline sleep_until stops sleeping and spins: on the real clock a
    wake-up comes tens of µs late, so the last 2 ms are spun. On virtual and paced time a
    timer fires at its deadline (with exact_timers), and a spin only burns the host's CPU:
    each clock read is a trapped system call costing 256 ns of virtual time, some 7,800
    of them per 2 ms, and it kept the guest's single CPU from the agents meanwhile."""
    return SPIN_NS if plan.clock == "real" else 0


def sleep_until(t_ns: int, now: Callable[[], int] = _now, spin: int = SPIN_NS) -> None:
    while (left := t_ns - now()) > spin:
        time.sleep((left - spin) / 1e9)
    while now() < t_ns:
        pass


def _built_in(args: list[str], root: str | None) -> bool:
    """Whether every module of a `modprobe -a NAME…` is built into the running kernel, as its
    modules.builtin (under modprobe's root) lists them."""
    listing = Path(root or "/") / "lib" / "modules" / os.uname().release / "modules.builtin"
    try:
        built_in = {Path(line).name.removesuffix(".ko").replace("-", "_") for line in listing.read_text().split()}
    except OSError:
        return False
    return all(name.replace("-", "_") in built_in for name in args if not name.startswith("-"))


def _kernel_config_sha256() -> str | None:
    """The running kernel's own configuration (/proc/config.gz, else /boot), hashed."""
    import gzip  # here only: the guest's imports are slow, and this runs once a run
    import hashlib

    proc = Path("/proc/config.gz")
    try:
        data = gzip.decompress(proc.read_bytes()) if proc.exists() else Path(f"/boot/config-{os.uname().release}").read_bytes()
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest()


def _time_travel_mode() -> str:
    """The kernel command line's time-travel mode (UML), or "off": whose clock the run used."""
    try:
        words = Path("/proc/cmdline").read_text().split()
    except OSError:
        return "off"
    return next((w.split("=", 1)[1] if "=" in w else "basic" for w in words if w.startswith("time-travel")), "off")


def _kernel_hz() -> int | None:
    """CONFIG_HZ, measured from the jiffies counter: SCTP timers step at 1/HZ."""
    def jiffies() -> tuple[int, int] | None:
        try:
            text = Path("/proc/timer_list").read_text()
        except OSError:
            return None
        m = re.search(r"^jiffies: (\d+)", text, re.M)
        return (int(m.group(1)), _now()) if m else None

    first = jiffies()
    time.sleep(0.2)
    second = jiffies()
    if not first or not second:
        return None
    hz = (second[0] - first[0]) / ((second[1] - first[1]) / 1e9)
    return min((100, 250, 300, 1000), key=lambda c: abs(c - hz))


def run_plan(plan: Plan, run_dir: Path, report: Report, modprobe_root: str | None = None) -> None:
    """Build, run and always tear down; backend.json says how it ended."""
    run_engine(NetnsEngine(plan, run_dir, report, modprobe_root))


def run_engine(engine: NetnsEngine) -> None:
    """Build, run and always tear down this engine (or one built on it); backend.json says how it ended."""
    _open_files_to_the_hard_limit()
    run_dir = engine.run_dir
    status: dict[str, object] = {"ok": False, "error": None}
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        engine.build()
        engine.run()
        status["ok"] = True
    except (BackendError, OSError) as e:
        # A full disk kills the agents first, often with no room left to say why.
        full = stops.is_no_space(e) or stops.no_space_left(run_dir)
        status["error"] = f"{stops.describe_no_space(run_dir)} ({e})" if full else str(e)
        if full or isinstance(e, OSError):
            raise BackendError(str(status["error"])) from e
        raise
    except KeyboardInterrupt as stop:
        status["error"] = stops.reason(stop)
        raise
    finally:
        engine.teardown()
        signal.signal(signal.SIGTERM, previous)
        _write_status(run_dir, status)
        phases.ended(engine.report, "teardown")


def _open_files_to_the_hard_limit() -> None:
    """Every process costs this one a pipe and two log files, and a guest's init leaves the
    soft limit at 1024: 128 associations would run out (`Too many open files`)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _write_status(run_dir: Path, status: dict[str, object]) -> None:
    """backend.json's last word; on a full disk the host (which sees the same folder) says it instead."""
    try:
        results_backend.amend(run_dir, bool(status["ok"]), None if status["error"] is None else str(status["error"]))
    except OSError:
        pass


def _raise_interrupt(signum: int, frame: object) -> None:
    raise stops.Terminated

