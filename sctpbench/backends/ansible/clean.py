"""What sctpbench left on a machine, found and removed (the ansible backend's teardown).

A run's share (share.py) tears itself down when it ends; this is for a run that was
killed, or a machine someone wants to check. It finds, and unless `--check` removes:
- the runs' processes (share.py's and the agents it started), by command line;
- the runs' namespaces (`sb-*`), with the processes still in them; every interface in
  them that was the machine's own (alias `sctpbench:NAME`) goes back under its name;
- qdiscs left on the machine's path interfaces (`--interface`, from the inventory);
- the runs' files under the work folder.
It prints one JSON object: what it found, and whether it changed anything (`changed`),
which the playbook reports to Ansible, so `--check` mode shows a machine is clean.
Standard library only: it runs with the machine's own python3.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

PROCESS_MARKS = ("sctpbench.backends.ansible.share", "sctpbench-agent")
NAMESPACE_PREFIX = "sb-"
ALIAS_PREFIX = "sctpbench:"
SHAPING_QDISCS = ("netem", "tbf", "ingress", "pfifo", "htb", "prio")


def _run(argv: list[str]) -> str:
    r = subprocess.run(argv, capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""


def processes() -> list[int]:
    """Processes of sctpbench runs on this machine (not this one)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if any(mark in argv for mark in PROCESS_MARKS) and "sctpbench.backends.ansible.clean" not in argv:
            found.append(int(proc.name))
    return sorted(found)


def namespaces() -> list[str]:
    return sorted(line.split()[0] for line in _run(["ip", "netns", "list"]).splitlines()
                  if line.startswith(NAMESPACE_PREFIX))


def adopted(ns: str) -> list[tuple[str, str]]:
    """(name in the namespace, the machine's name) of the machine's interfaces in `ns`."""
    out = []
    for link in json.loads(_run(["ip", "-n", ns, "-j", "link", "show"]) or "[]"):
        alias = link.get("ifalias", "")
        if alias.startswith(ALIAS_PREFIX):
            out.append((link["ifname"], alias.removeprefix(ALIAS_PREFIX)))
    return out


def shaped(interfaces: list[str]) -> list[str]:
    """The machine's path interfaces that still carry qdiscs a run added."""
    out = []
    for dev in interfaces:
        text = _run(["tc", "qdisc", "show", "dev", dev])
        if any(f"qdisc {kind} " in text for kind in SHAPING_QDISCS):
            out.append(dev)
    return out


@dataclass
class Found:
    processes: list[int]
    namespaces: list[str]
    adopted: dict[str, list[tuple[str, str]]]  # namespace → (name inside, the machine's name)
    runs: list[str]
    shaped: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.processes or self.namespaces or self.runs or self.shaped)


def clean(workdir: Path, interfaces: list[str], check: bool) -> Found:
    runs = workdir / "runs"
    spaces = namespaces()
    found = Found(processes(), spaces, {ns: adopted(ns) for ns in spaces},
                  sorted(p.name for p in runs.glob("*")) if runs.is_dir() else [])
    if not check:
        _remove(found, workdir)
    found.shaped = shaped(interfaces)  # looked at after the interfaces came back from the namespaces
    if not check:
        for dev in found.shaped:
            for parent in ("root", "ingress"):
                subprocess.run(["tc", "qdisc", "del", "dev", dev, parent], capture_output=True)
    return found


def _remove(found: Found, workdir: Path) -> None:
    for pid in found.processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for ns, links in found.adopted.items():
        for inside, name in links:
            subprocess.run(["ip", "-n", ns, "link", "set", "dev", inside, "down", "name", name, "netns", "1"], capture_output=True)
            subprocess.run(["ip", "link", "set", "dev", name, "alias", ""], capture_output=True)
        for inside_pid in _run(["ip", "netns", "pids", ns]).split():
            try:
                os.kill(int(inside_pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    for run in found.runs:  # a run's folder, or the tarball of what it measured
        path = workdir / "runs" / run
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sctpbench-machine-clean", description="find and remove what sctpbench runs left")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--interface", action="append", default=[], help="a path interface of this machine")
    parser.add_argument("--check", action="store_true", help="only say what is left")
    args = parser.parse_args(argv)
    found = clean(args.workdir, args.interface, args.check)
    print(json.dumps(asdict(found) | {"changed": found.changed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
