"""The `ansible` backend: the experiment's hosts are machines, provisioned and driven with Ansible.

An inventory (inventory.py) names a machine for every host of the plan (and for `emu`)
and the interface that carries each of its paths. A run goes through the playbooks in
`playbooks/`, run with ansible-runner:

1. the clock preflight (clocksync.py): refused when the machines' clocks disagree, before
   anything is put on them (over SSH alone: a UML guest spends minutes in prepare.yml's
   modules under load, which a refused run need not pay);
2. prepare.yml: sctpbench's machine side (a bundle: the package's standard-library
   part and the agent binary), the run's files and each machine's share (part.json);
   the agent's version read back;
3. run.yml: every machine runs its share (machine_share.py) on one schedule of the time of
   day, and sends back what it measured, also when it failed;
4. clean.yml, always, also after a failure or Ctrl-C: nothing of the run stays.

The machines' results are merged into the run folder as results/files.py lists it:
records and captures side by side, events.jsonl with one line per timeline action,
kernel.json and versions.json per host. Every time in them is CLOCK_REALTIME.

Clocks: real (the machines' own), or paced where the inventory says the machines share one
virtual time (clock.shared: a lab of guests on virtual time, lab/vswitch.py); there the
run starts at the same phase of the first host's timer tick every time (start_moment).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
import tarfile
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sctpbench.backends.ansible import clocksync, dummynet, inventory
from sctpbench.backends.ansible import share as machine_share
from sctpbench.backends.ansible.inventory import Inventory
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.protocol import OFF_HOST, PACKAGE, Check, Report, installed_version
from sctpbench.model.errors import BackendError, SpecError
from sctpbench.plan.data import Plan, Process
from sctpbench.results import ansible as results_ansible
from sctpbench.results import backend as results_backend
from sctpbench.results import events as results_events
from sctpbench.results import host as results_host
from sctpbench.results import kernel as results_kernel
from sctpbench.results import plan as results_plan

PLAYBOOKS = PACKAGE.parent / "playbooks"
# Each machine has its own; merge() makes the run's one of them.
MERGED = (results_events.NAME, results_kernel.KERNEL, results_kernel.VERSIONS, results_backend.NAME)
NOT_RESULTS = (results_plan.NAME, "part.json", results_plan.SCRIPT, results_host.NAME, "schedules", "signals")
# Beyond the plan's own length: the machines' start margin, process starts, and the drain.
RUN_SLACK_S = 120
TICK_NS = 1_000_000  # the project kernel's HZ=1000 (kernel/uml.config)
# A playbook that takes longer is stopped (a machine that stopped answering mid-task): prepare
# and clean take under a minute on a lab of UML guests on a loaded host.
PLAYBOOK_TIMEOUT_S = 600


def bundle(agent: Path, into: Path) -> tuple[Path, str]:
    """The machine side as a tarball whose top folder is its content's digest, and that digest."""
    files: list[tuple[str, Path]] = [("bin/sctpbench-agent", agent)]
    for part in OFF_HOST:
        root = PACKAGE / part
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
        files += [(f"sctpbench/{p.relative_to(PACKAGE)}", p) for p in paths]
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(name.encode() + b"\0" + path.read_bytes())
    bundle_id = digest.hexdigest()[:16]
    out = into / f"bundle-{bundle_id}.tar.gz"
    with tarfile.open(out, "w:gz") as tar:
        for name, path in files:
            tar.add(path, arcname=f"{bundle_id}/{name}")
    return out, bundle_id


def run_files(plan: Plan, run_dir: Path, into: Path) -> Path:
    """plan.json and the files it names (schedules, signals), under a folder named by the run id."""
    out = into / "run.tar.gz"
    with tarfile.open(out, "w:gz") as tar:
        for name in (results_plan.NAME, "schedules", "signals"):
            if (run_dir / name).exists():
                tar.add(run_dir / name, arcname=f"{plan.run_id}/{name}")
    return out


def parts(plan: Plan, inv: Inventory, bundle_id: str) -> dict[str, machine_share.Part]:
    """Every machine's share: the plan's host it plays and the interfaces it gives."""
    out = {}
    for host in plan.hosts:
        machine = inv.machine(host)
        out[host] = machine_share.Part(machine=host, hosts=[host], interfaces=machine.interfaces,
                                  agent=f"{inv.workdir}/bundles/{bundle_id}/bin/sctpbench-agent",
                                  modprobe_root=machine.modprobe_root)
    return out


def ansible_inventory(inv: Inventory, hosts: Sequence[str], shares: dict[str, machine_share.Part] | None,
                      plan_processes: Sequence[Process] = ()) -> dict[str, Any]:
    """The inventory as Ansible reads it (YAML/JSON), each host with its connection and share."""
    machines: dict[str, Any] = {}
    for host in hosts:
        m = inv.machine(host)
        entry: dict[str, Any] = {
            "ansible_host": m.address, "ansible_port": m.port, "ansible_user": m.user,
            "ansible_python_interpreter": m.python, "ansible_ssh_common_args": m.ssh_args,
            "sb_python": m.python, "sb_interfaces": sorted(m.interfaces.values()),
        }
        if m.identity:
            entry["ansible_ssh_private_key_file"] = m.identity
        if shares is not None:
            entry["sb_part"] = asdict(shares[host])
            entry["sb_has_agents"] = any(p.host == host and p.role in machine_share.AGENT_ROLES for p in plan_processes)
        machines[host] = entry
    return {"all": {"hosts": machines}}


def agent_version(agent: Path) -> str:
    return subprocess.run([str(agent), "--version"], capture_output=True, text=True, check=True).stdout.strip()


MITOGEN_MISSING = "not installed (pip: mitogen; scripts/install)"


def _mitogen() -> Path | None:
    """Mitogen for Ansible's package folder, found without importing it (it needs ansible)."""
    spec = importlib.util.find_spec("ansible_mitogen")
    return Path(spec.origin).parent if spec is not None and spec.origin is not None else None


def mitogen_strategies() -> Path:
    """Where Mitogen's strategy plugins are: pip installs them beside this package's libraries,
    and Debian's ansible-playbook loads them from there by path."""
    package = _mitogen()
    if package is None:
        raise BackendError(f"the ansible backend needs Mitogen for Ansible: {MITOGEN_MISSING}")
    return package / "plugins" / "strategy"


class Playbooks:
    """The playbooks of one run (or one clean-up), run with ansible-runner in a folder of their own."""

    def __init__(self, inv: Inventory, hosts: Sequence[str], data_dir: Path, agent: Path, plan: Plan | None = None) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir = data_dir
        self.bundle, self.bundle_id = bundle(agent, data_dir)
        shares = parts(plan, inv, self.bundle_id) if plan else None
        (data_dir / "inventory").mkdir(exist_ok=True)
        machines = ansible_inventory(inv, hosts, shares, plan.processes if plan else ())
        (data_dir / "inventory" / "hosts.json").write_text(json.dumps(machines, indent=2))
        self.extravars: dict[str, Any] = {"sb_workdir": inv.workdir, "sb_bundle": str(self.bundle),
                                          "sb_bundle_id": self.bundle_id, "sb_agent_version": agent_version(agent)}

    def run(self, playbook: str, extravars: dict[str, Any] | None = None, check: bool = False,
            timeout_s: int = PLAYBOOK_TIMEOUT_S) -> Any:
        import ansible_runner  # noqa: PLC0415 - heavy, and only this backend needs it

        # In a thread, so that Ctrl-C here ends ansible-playbook too (the runner kills it once
        # cancelled) instead of leaving it running beside the clean-up.
        cancelled = threading.Event()
        thread, r = ansible_runner.run_async(
            private_data_dir=str(self.data_dir), playbook=str(PLAYBOOKS / playbook),
            inventory=str(self.data_dir / "inventory" / "hosts.json"), extravars=self.extravars | (extravars or {}),
            envvars={"ANSIBLE_PIPELINING": "True", "ANSIBLE_SSH_TRANSFER_METHOD": "piped", "ANSIBLE_HOST_KEY_CHECKING": "False",
                     "ANSIBLE_FORKS": "16", "ANSIBLE_NOCOLOR": "True",
                     # One Python per machine for the whole playbook, not one per task: a task
                     # started Python in a UML guest for 2-7 s (prepare.yml 78 s on a lab of
                     # three, 31 s with Mitogen; docs/backends.md).
                     "ANSIBLE_STRATEGY_PLUGINS": str(mitogen_strategies()), "ANSIBLE_STRATEGY": "mitogen_linear",
                     # Mitogen's connect includes starting its Python on the machine: 10 s (the
                     # default) was too short for fresh lab guests started at once.
                     "ANSIBLE_TIMEOUT": str(int(clocksync.TIMEOUT_S))},
            cmdline="--check --diff" if check else None, quiet=True, ident=playbook.removesuffix(".yml") + ("-check" if check else ""),
            cancel_callback=cancelled.is_set, timeout=timeout_s,
        )
        try:
            while thread.is_alive():
                thread.join(0.5)
        except BaseException:
            cancelled.set()
            thread.join(30)
            raise
        return r


def failures(r: Any) -> list[str]:
    """What failed, per machine and task, from ansible-runner's events."""
    out = []
    for event in r.events:
        if event.get("event") in ("runner_on_failed", "runner_on_unreachable") and not event["event_data"].get("ignore_errors"):
            data = event["event_data"]
            res = data.get("res", {})
            why = res.get("msg") or res.get("stderr") or res.get("stdout") or ""
            out.append(f"{data.get('host')}: {data.get('task')}: {str(why).strip().splitlines()[-1:] or ''}")
    return out


def changed_hosts(r: Any) -> dict[str, int]:
    """Machine → tasks that changed (or would, in check mode)."""
    stats = r.stats or {}
    return {h: n for h, n in stats.get("changed", {}).items() if n}


def merge(run_dir: Path, results: Path, plan: Plan) -> dict[str, Any]:
    """Every machine's results into the run folder; returns the merged backend.json."""
    shares: dict[str, Path] = {}
    for tarball in sorted(results.glob("*.tar.gz")):
        host = tarball.name.removesuffix(".tar.gz")
        target = results / host
        _extract(tarball, target)
        shares[host] = target
    for share in shares.values():
        for path in share.rglob("*"):
            rel = path.relative_to(share)
            if path.is_file() and rel.parts[0] not in NOT_RESULTS and rel.name not in MERGED:
                (run_dir / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, run_dir / rel)
    _merge_events(run_dir, shares)
    _merge_facts(run_dir, shares, plan)
    return _merge_status(run_dir, shares, plan)


def _extract(tarball: Path, target: Path) -> None:
    """Files and folders only, each inside `target`: a machine's tarball is not trusted to stay there."""
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            path = (target / member.name).resolve()
            if not (member.isfile() or member.isdir()) or not path.is_relative_to(target.resolve()):
                raise BackendError(f"{tarball.name}: {member.name!r} is not a file inside the run's folder")
        tar.extractall(target)


def _merge_events(run_dir: Path, shares: dict[str, Path]) -> None:
    """One line per action: a fail on two hosts is one event, issued at the first, applied at the last."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for share in shares.values():
        for e in results_events.read_documents(share) or []:
            key = (e["at_ns"], e["kind"], e["target"], e["detail"], e["direction"])
            if key in merged:
                m = merged[key]
                m["issued_ns"], m["applied_ns"] = min(m["issued_ns"], e["issued_ns"]), max(m["applied_ns"], e["applied_ns"])
                m["lag_ns"] = m["applied_ns"] - m["scheduled_ns"]
            else:
                merged[key] = e
    events = sorted(merged.values(), key=lambda e: (e["scheduled_ns"], e["kind"]))
    results_events.write(run_dir, events)


def _merge_facts(run_dir: Path, shares: dict[str, Path], plan: Plan) -> None:
    # A machine whose share lacks one (it failed early) has none: {}.
    kernels = {h: k.document if (k := results_kernel.read_kernel(s)) else {} for h, s in shares.items()}
    versions = {h: results_kernel.read_versions(s) or {} for h, s in shares.items()}
    first = plan.associations[0].client if plan.associations and plan.associations[0].client in kernels else next(iter(kernels), "")
    kernel = dict(kernels.get(first, {}))
    kernel["sysctl"] = {h: k.get("sysctl", {}).get(h, {}) for h, k in kernels.items()}
    kernel["qdisc"] = {h: k.get("qdisc", {}).get(h, []) for h, k in kernels.items()}
    kernel["machines"] = kernels
    results_kernel.write_kernel(run_dir, kernel)
    version = dict(versions.get(first, {})) | {"machines": versions}
    results_kernel.write_versions(run_dir, version)


def _merge_status(run_dir: Path, shares: dict[str, Path], plan: Plan) -> dict[str, Any]:
    statuses = {h: results_backend.read_document(s) or {} for h, s in shares.items()}
    missing = [h for h in plan.hosts if h not in statuses]
    errors = [f"{h}: {s['error']}" for h, s in statuses.items() if s.get("error")]
    errors += [f"{h}: no results came back" for h in missing]
    t0 = next((s["t0_ns"] for s in statuses.values() if "t0_ns" in s), None)
    status = {"ok": not errors and all(s.get("ok") for s in statuses.values()), "error": "; ".join(errors) or None,
              "t0_ns": t0, "t0_realtime_ns": t0, "clock": "CLOCK_REALTIME",
              "machines": statuses}
    results_backend.write(run_dir, status)
    return status


def run_plan(plan: Plan, run_dir: Path, report: Report, inv: Inventory, agent: Path) -> None:
    if freebsd := [h for h in plan.hosts if inv.machine(h).system == "freebsd"]:
        raise BackendError(f"{', '.join(freebsd)}: a FreeBSD emulator's ipfw/Dummynet commands are printed by `sctpbench plan "
                           f"--backend ansible`, not run (untested: README, \"Real machines\")")
    if plan.traffic:
        raise BackendError("the ansible backend does not run competing traffic yet (iperf3, udpgen): its senders and "
                           "receivers stamp their own clocks; run this experiment on the uml backend")
    run_dir = run_dir.resolve()
    data_dir = run_dir / "ansible"
    books = Playbooks(inv, plan.hosts, data_dir, agent, plan)
    facts: dict[str, Any] = {"inventory": str(inv.path), "playbooks": str(PLAYBOOKS), "bundle": books.bundle_id}
    run_vars = {"sb_run_id": plan.run_id, "sb_run_files": str(run_files(plan, run_dir, data_dir))}
    try:
        facts["clock"] = clocksync.check(inv, plan.hosts)
        report("clocks agree: " + "; ".join(
            f"{h} {o['offset_ns'] / 1e6:+.3f} ± {o['uncertainty_ns'] / 1e6:.3f} ms" for h, o in facts["clock"]["machines"].items()))
        started = time.monotonic()
        report(f"preparing {len(plan.hosts)} machines with ansible ({', '.join(plan.hosts)})")
        r = books.run("prepare.yml", run_vars)
        facts["prepare_s"] = round(time.monotonic() - started, 1)
        if r.status != "successful":
            raise BackendError("preparing the machines failed: " + "; ".join(failures(r) or [r.status]))
        start_ns = start_moment(inv, plan.hosts[0], time.time_ns())
        timeout_s = int((plan.end_ns + plan.drain_timeout_ns + inv.start_margin_ns) / 1e9) + RUN_SLACK_S
        report(f"running on every machine; servers start in {inv.start_margin_ns / 1e9:g} s")
        started = time.monotonic()
        # Until the workload's end: the machines are left alone while they measure.
        quiet_s = int((start_ns - time.time_ns() + machine_share.T0_DELAY_NS + plan.end_ns) / 1e9) + 1
        r = books.run("run.yml", run_vars | {"sb_start_ns": start_ns, "sb_timeout_s": timeout_s, "sb_quiet_s": quiet_s,
                                              "sb_results": str(data_dir / "results")}, timeout_s=timeout_s + RUN_SLACK_S)
        facts["run_s"] = round(time.monotonic() - started, 1)
        status = merge(run_dir, data_dir / "results", plan)
        shutil.rmtree(data_dir / "results")  # merged into the run folder; ansible-runner's logs stay
        if not status["ok"]:
            raise BackendError(status["error"] or "the run failed: " + "; ".join(failures(r) or [r.status]))
    finally:
        started = time.monotonic()
        r = books.run("clean.yml")
        facts["clean_s"] = round(time.monotonic() - started, 1)
        facts["clean"] = r.status
        results_ansible.write(run_dir, facts)
        for sent in (books.bundle, Path(run_vars["sb_run_files"])):  # copies of what the run folder has
            sent.unlink(missing_ok=True)


def prepare(plan: Plan, inv: Inventory, agent: Path, check: bool, data_dir: Path) -> dict[str, int]:
    """prepare.yml alone, for a person to see (check) or make ready what a run of `plan` needs."""
    books = Playbooks(inv, plan.hosts, data_dir, agent, plan)
    (data_dir / "run").mkdir(exist_ok=True)
    results_plan.write(data_dir / "run", plan)
    run_vars = {"sb_run_id": plan.run_id, "sb_run_files": str(run_files(plan, data_dir / "run", data_dir))}
    r = books.run("prepare.yml", run_vars, check=check)
    if r.status != "successful":
        raise BackendError("prepare.yml failed: " + "; ".join(failures(r) or [r.status]))
    return changed_hosts(r)


def clean(inv: Inventory, agent: Path, check: bool, data_dir: Path) -> dict[str, int]:
    """Run clean.yml on every machine of the inventory; machine → tasks changed (would change, with check)."""
    books = Playbooks(inv, sorted(inv.machines), data_dir, agent)
    r = books.run("clean.yml", check=check)
    if r.status != "successful":
        raise BackendError("clean.yml failed: " + "; ".join(failures(r) or [r.status]))
    return changed_hosts(r)


def start_moment(inv: Inventory, first_host: str, now_ns: int) -> int:
    """When the servers start (time of day): `start_margin` from now; on one virtual time also
    at the same phase of the first host's 1 ms timer tick in every run (its time of day less
    its boot-time clock, clock.epochs, is where its ticks fall), as SCTP's timers run on ticks
    and a run started elsewhere between two ticks would move its detection time by up to a
    tick per timer."""
    start = now_ns + inv.start_margin_ns
    epoch = inv.clock_epochs.get(first_host)
    if inv.clock_shared and epoch is not None:
        start += (epoch - start) % TICK_NS
    return start


class AnsibleBackend:
    """The ansible backend as the registry knows it (protocol.Backend)."""

    name = "ansible"
    # paced: only where the inventory's machines share one virtual time (a lab on virtual time).
    clocks = ("real", "paced")

    def _inventory(self) -> tuple[Inventory | None, str]:
        path = inventory.path_from_environment()
        if not path.exists():
            return None, f"no inventory {path} (give one with --inventory or ${inventory.ENV})"
        try:
            return inventory.load(path), ""
        except SpecError as e:
            return None, str(e)

    def checks(self) -> list[Check]:
        playbook = shutil.which("ansible-playbook")
        inv, why = self._inventory()
        mitogen = _mitogen()
        return [Check("ansible-playbook", playbook is not None, playbook or "not on PATH (Debian: ansible-core)"),
                Check("Mitogen for Ansible", mitogen is not None, str(mitogen) if mitogen else MITOGEN_MISSING),
                Check("ansible inventory", inv is not None, str(inv.path) if inv else why)]

    def available(self, clock: str | None = None) -> tuple[bool, str]:
        if clock is not None and clock not in self.clocks:
            return False, ("the ansible backend runs on the machines' own clocks: real, or paced where they "
                           "share one virtual time (a lab on virtual time)")
        if clock == "paced":
            inv, why = self._inventory()
            if inv is not None and inv.clock_shared != "paced":
                return False, (f"the machines of {inv.path} do not share one virtual time (clock.shared: paced, "
                               "as `sctpbench lab up` writes on virtual time)")
        missing = "; ".join(f"{c.name}: {c.detail}" for c in self.checks() if not c.ok)
        return (False, missing) if missing else (True, "")

    def run_plan(self, plan: Plan, run_dir: Path, report: Report) -> None:
        inv, why = self._inventory()
        if inv is None:
            raise BackendError(why)
        agent = Path(next(p.argv[0] for p in plan.processes if p.role in machine_share.AGENT_ROLES))
        run_plan(plan, run_dir, report, inv, agent)

    def missing_sysctls(self, names: Sequence[str], clock: str) -> tuple[list[str], str]:
        # The machines' kernels are only known once prepared; kernel.json reads back what was in force.
        return [], ""

    def render(self, plan: Plan, run_dir: str) -> str:
        inv, why = self._inventory()
        out = [f"# ansible backend: playbooks in {PLAYBOOKS}: prepare.yml, the clock preflight, run.yml, clean.yml",
               f"# inventory: {inv.path if inv else why}"]
        for host in plan.hosts:
            machine = inv.machines.get(host) if inv else None
            part = machine_share.Part(machine=host, hosts=[host], interfaces=machine.interfaces if machine else {},
                                 agent="$WORKDIR/bundles/ID/bin/sctpbench-agent")
            out.append(f"# on {host} ({machine.address if machine else 'no machine in the inventory'}), as root:")
            if machine is not None and machine.system == "freebsd":
                out += dummynet.render(plan, machine.interfaces)
                continue
            try:
                out += [c.render() for c in machine_share.local_setup(plan, part)]
            except BackendError as e:
                out.append(f"# {e}")
        out.append("# then every machine starts its processes and applies its part of the timeline on the time of day")
        timeline = [line.replace("CLOCK_MONOTONIC", "CLOCK_REALTIME")
                    for line in netns_render.render(plan, run_dir).splitlines() if line.startswith("# t0+")]
        return "\n".join(out + timeline) + "\n"

    def host_facts(self) -> dict[str, str]:
        return {"ansible_core": installed_version("ansible-core"), "ansible_runner": _pip_version("ansible-runner"),
                "mitogen": _pip_version("mitogen")}

    def reap(self, run_id: str, owner_pid: int) -> None:
        inv, _ = self._inventory()
        if inv is None:
            return
        agent = PACKAGE / "workloads/agent/build/sctpbench-agent"
        with tempfile.TemporaryDirectory(prefix="sctpbench-reap-") as tmp:
            try:
                clean(inv, agent, False, Path(tmp))
            except BackendError:
                pass  # a person finds what is left with `sctpbench hosts clean --check`


def _pip_version(package: str) -> str:
    try:
        from importlib.metadata import version  # noqa: PLC0415

        return version(package)
    except Exception:  # noqa: BLE001 - facts only
        return "unknown"

