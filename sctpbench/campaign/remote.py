"""A campaign run on a Dask worker: the task the distributed executor submits, and the
software facts a worker must share with the client before it may take one.

The task gets the run's resolved experiment (pickled, as Dask and the local executor's
worker processes pass everything; spec.load has already read every
trace, pattern and topology file into it, so the run needs no file of the client's), runs
it with the local executor's own worker code (`execute.work`) in a child process, into a
temporary folder, and gives the run folder back as a tar archive in bytes. A child
process, not the task's thread, because only a process can be told to stop: when the
client cancels the task (Ctrl-C, or the client gone), the child gets one SIGINT and its
runner tears the guest down, as in a local campaign.

Run as `python -m sctpbench.campaign.remote FOLDER` it is that child: the run's
description on stdin, the run folder to create as its argument.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench import __version__
from sctpbench.model.experiment import Experiment

STOP_GRACE_S = 60.0  # the guest's teardown takes seconds; then the child is killed
POLL_S = 0.5
# A guest's software, fact by fact, in the order a refusal names them.
FACTS = ("sctpbench", "agent", "kernel", "kernel_key", "kernel_config")


def software(backend: str) -> dict[str, str]:
    """What must be the same on the client and a worker for a run to give the same figures:
    the sctpbench version, the agent binary (a hash: the same revision built by another
    compiler is another agent) and, for the uml backend, the guest kernel (its build key,
    i.e. its cache folder, and its config's hash)."""
    from sctpbench.orchestration import capabilities

    agent = capabilities.agent_path()
    facts = {"sctpbench": __version__,
             "agent": hashlib.sha256(agent.read_bytes()).hexdigest()[:16] if agent.is_file() else "missing"}
    if backend == "uml":
        from sctpbench.backends.uml import kernel

        found, _ = kernel.find(False)
        if found is None:
            facts |= {"kernel": "missing", "kernel_key": "-", "kernel_config": "-"}
        else:
            key = found.binary.parent.name if found.origin == "project" else "debian"
            facts |= {"kernel": f"{found.origin} {found.release}", "kernel_key": key,
                      "kernel_config": (found.config_sha256 or "-")[:16]}
    return facts


def differences(client: dict[str, str], worker: dict[str, str]) -> str | None:
    """One line saying what differs, or None when the worker may take runs."""
    differ = [f"{k} {worker.get(k, '-')} (client {client.get(k, '-')})" for k in FACTS
              if client.get(k) != worker.get(k)]
    return "; ".join(differ) or None


@dataclass(frozen=True)
class Task:
    """What travels to the worker: everything a run needs."""

    run_key: str
    experiment: Experiment  # resolved: traces, patterns and topologies read in
    repetition: int
    backend: str
    software: dict[str, str]  # the client's, checked again on the worker before the run


@dataclass(frozen=True)
class Returned:
    """What comes back: the run folder and who made it."""

    run_key: str
    archive: bytes  # tar of the run folder, names relative to it
    worker: str  # the Dask worker's address
    host: str
    software: dict[str, str]
    seconds: float
    exitcode: int


class Refused(RuntimeError):
    """This worker's software is not the client's."""


async def check(client_software: dict[str, str], backend: str, resource: str, dask_worker: Any = None) -> str | None:
    """Run on each worker by the client (Client.run) before it gets any run: a worker with
    the client's software is given `resource`, which every run task asks for, so only such
    workers take runs; another is left without it and the line saying why comes back."""
    why = differences(client_software, software(backend))
    if why is None:
        threads = dask_worker.state.nthreads
        if dask_worker.state.total_resources.get(resource) != threads:
            await dask_worker.set_resources(**{resource: threads})  # one run per worker thread
    return why


def run(task: Task) -> Returned:
    """The Dask task: one run in a child process, its folder back as a tar archive."""
    import distributed

    worker = distributed.get_worker()
    mine = software(task.backend)
    why = differences(task.software, mine)
    if why is not None:
        raise Refused(f"worker {worker.address}: {why}")
    key = distributed.worker.thread_state.key
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sctpbench-run-") as tmp:
        folder = Path(tmp) / task.run_key
        exitcode = _child(task, folder, lambda: _cancelled(worker, key))
        archive = pack(folder) if folder.exists() else b""
    return Returned(task.run_key, archive, worker.address, socket.gethostname(), mine,
                    time.monotonic() - started, exitcode)


def _cancelled(worker: Any, key: Any) -> bool:
    """The client no longer wants this task (cancelled, or the client gone)."""
    state = worker.state.tasks.get(key)
    return state is None or state.state in ("cancelled", "released", "forgotten")


def _child(task: Task, folder: Path, cancelled: Any) -> int:
    description = pickle.dumps((task.experiment, task.repetition, task.backend))
    child = subprocess.Popen([sys.executable, "-m", "sctpbench.campaign.remote", str(folder)], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert child.stdin is not None
    child.stdin.write(description)
    child.stdin.close()
    while child.poll() is None:
        time.sleep(POLL_S)
        if cancelled():
            child.send_signal(signal.SIGINT)
            try:
                child.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                child.kill()
            break
    code = child.wait()
    from sctpbench.backends import registry

    registry.get(task.backend).reap(task.run_key, child.pid)  # what a stop in mid-boot left running
    return code


def pack(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(folder, arcname=".")
    return buffer.getvalue()


def unpack(archive: bytes, folder: Path) -> None:
    """A run folder from its archive: only plain files and folders, every name inside."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r") as tar:
        members = tar.getmembers()
        for m in members:
            name = os.path.normpath(m.name)
            if os.path.isabs(name) or name.startswith("..") or not (m.isfile() or m.isdir()):
                raise ValueError(f"run archive: {m.name!r} is not a file inside the run folder")
        tar.extractall(folder, members=members)  # noqa: S202 (checked above)


def _end_with_the_worker() -> None:
    """A worker killed outright (SIGKILL, the machine lost) cannot stop its child: have the
    kernel send the child SIGTERM then, which work() takes as a stop (the guest is torn
    down). Linux's PR_SET_PDEATHSIG follows the thread that started the child: the task's
    thread, which waits for the child until it ends."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() == 1:  # the worker died before the request was made
        sys.exit(130)


def _main() -> None:
    """The child: the run's description on stdin, as execute's local workers get it."""
    from sctpbench.campaign import execute
    from sctpbench.orchestration import capabilities

    _end_with_the_worker()
    experiment, repetition, backend = pickle.loads(sys.stdin.buffer.read())  # from the worker that started it
    execute.work(experiment, repetition, Path(sys.argv[1]), backend, capabilities.agent_path(), None)


if __name__ == "__main__":
    _main()
