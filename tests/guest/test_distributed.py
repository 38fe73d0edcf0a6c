"""A campaign on Dask workers (campaign run --scheduler), with real processes: a `dask
scheduler` and `dask worker`s on 127.0.0.1. The runs give the local executor's figures; a
worker with another kernel is refused; a worker SIGKILLed mid-campaign costs nothing but
time (its run is run again elsewhere and recorded once); no scheduler is one clear error."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sctpbench.campaign import expand, spec, table
from tests.support.guest_processes import guests

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests/data/campaigns/tiny.yaml"
DASK = Path(sys.executable).parent / "dask"
RUNS = 4  # of tiny's 6, the first four in its order: both configurations
VIRTUAL = ("--set", "clock=virtual", "--max-runs", str(RUNS))
# On virtual time the guest sees every run folder at one path (uml backend.GUEST_RUN), so
# where the folder is on the host (a campaign folder, a Dask worker's temporary folder)
# no longer moves a figure: a longer path used to move detection by 2.3 µs (305.530880
# against 305.528576 ms, tiny's first run) and local against distributed by a few µs.
# What is left is not the path's: any two runs of the same run, in one folder or another,
# now and then differ by one 256 ns clock-read charge (docs/clocks.md; tiny's first run,
# five times: detection 305.534208 ms four times and 305.534464 once, MMTT 216.168704 ms
# once and 216.168448 four times), so figures agree to below a microsecond, counts exactly.
EXACT = ("messages_sent", "messages_lost")
TIMES = ("detection_time_ms", "failover_time_ms", "mtt_p50_ms", "mtt_mean_ms", "mtt_p99_ms", "mmtt_ms")
SAME_MS = 0.001


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    scheduler: str
    workers: dict[str, subprocess.Popen[bytes]]  # address → process
    refused: str  # the address of the worker with another kernel


def _worker(scheduler: str, port: int, logs: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(DASK), "worker", scheduler, "--host", "127.0.0.1", "--worker-port", str(port),
                             "--nthreads", "1", "--no-nanny", "--dashboard-address", "127.0.0.1:0"],
                            stdout=subprocess.DEVNULL, stderr=open(logs / f"worker-{port}.log", "wb"),
                            env=env or dict(os.environ))


def _wait_for_workers(scheduler: str, n: int) -> None:
    import distributed

    # Deadlines, not expectations: a scheduler just started imports Dask first, and at load 12
    # it was not listening 30 s later (2026-11-29); waiting longer costs nothing when it is.
    with distributed.Client(scheduler, timeout=180, set_as_default=False) as client:
        client.wait_for_workers(n, timeout=180)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    logs = tmp_path_factory.mktemp("dask")
    scheduler = f"tcp://127.0.0.1:{_port()}"
    sched = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", scheduler.rsplit(":", 1)[1],
                              "--dashboard-address", "127.0.0.1:0"],
                             stdout=subprocess.DEVNULL, stderr=open(logs / "scheduler.log", "wb"))
    ports = [_port(), _port(), _port()]
    other_kernel = dict(os.environ, SCTPBENCH_CACHE=str(logs / "empty-cache"))  # no project kernel there
    processes = [_worker(scheduler, ports[0], logs), _worker(scheduler, ports[1], logs),
                 _worker(scheduler, ports[2], logs, other_kernel)]
    try:
        _wait_for_workers(scheduler, 3)
        yield Cluster(scheduler, {f"tcp://127.0.0.1:{p}": w for p, w in zip(ports, processes, strict=True)},
                      f"tcp://127.0.0.1:{ports[2]}")
    finally:
        for p in [*processes, sched]:
            p.terminate()
        for p in [*processes, sched]:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


def _campaign(out: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "sctpbench.cli", "campaign", "run", str(TINY), "--out", str(out), *VIRTUAL, *args]


def _log(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]


def _rows(folder: Path) -> dict[str, dict[str, Any]]:
    import pyarrow.parquet as pq

    return {r["run_key"]: r for r in pq.read_table(folder / "campaign.parquet").to_pylist()}


def test_distributed_runs_give_the_local_figures_and_a_worker_with_another_kernel_gets_none(
        cluster: Cluster, tmp_path: Path) -> None:
    remote = subprocess.run(_campaign(tmp_path / "remote", "--scheduler", cluster.scheduler),
                            capture_output=True, text=True, timeout=400)
    assert remote.returncode == 0, remote.stderr
    local = subprocess.run(_campaign(tmp_path / "local", "--parallel", "2"), capture_output=True, text=True, timeout=400)
    assert local.returncode == 0, local.stderr
    refusal = [line for line in remote.stderr.splitlines() if f"worker {cluster.refused} refused" in line]
    assert refusal and "kernel" in refusal[0], remote.stderr
    folder, local_folder = tmp_path / "remote/tiny", tmp_path / "local/tiny"
    ends = [e for e in _log(folder) if e["event"] == "end"]
    assert len(ends) == RUNS and {e["status"] for e in ends} == {"ok"}
    assert {e["worker"] for e in ends} <= set(cluster.workers) - {cluster.refused}
    assert all(e["software"]["kernel_key"] not in ("debian", "-") for e in ends)
    remote_rows, local_rows = _rows(folder), _rows(local_folder)
    assert sorted(remote_rows) == sorted(local_rows) and len(remote_rows) == RUNS
    for key, row in remote_rows.items():
        run_files = sorted(p.relative_to(folder / "runs" / key) for p in (folder / "runs" / key).rglob("*"))
        assert run_files == sorted(p.relative_to(local_folder / "runs" / key) for p in (local_folder / "runs" / key).rglob("*"))
        _assert_same_figures(row, local_rows[key])
    assert not (folder / "attempts").exists()


def _assert_same_figures(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    for metric in EXACT:
        assert mine.get(metric) == theirs.get(metric), (mine["run_key"], metric, mine.get(metric), theirs.get(metric))
    for metric in TIMES:
        a, b = mine.get(metric), theirs.get(metric)
        assert (a is None) == (b is None) and (a is None or abs(a - b) < SAME_MS), (mine["run_key"], metric, a, b)


def test_the_campaign_folders_path_moves_no_figure(tmp_path: Path) -> None:
    """The same run in two campaign folders whose paths differ in length and depth."""
    short, deep = tmp_path / "a", tmp_path / ("b" * 60) / "deeper" / ("c" * 40)
    for out in (short, deep):
        result = subprocess.run(_campaign(out, "--max-runs", "1"), capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
    rows, deep_rows = _rows(short / "tiny"), _rows(deep / "tiny")
    assert sorted(rows) == sorted(deep_rows) and len(rows) == 1
    for key, row in rows.items():
        assert row["detection_time_ms"] is not None, "a run without the timer-driven figures compares nothing"
        _assert_same_figures(row, deep_rows[key])


def test_a_worker_killed_mid_campaign_costs_only_time(cluster: Cluster, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    folder = out / "tiny"
    proc = subprocess.Popen(_campaign(out, "--scheduler", cluster.scheduler), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    victim = None
    deadline = time.monotonic() + 120
    while victim is None and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
        victim = _running(folder, cluster.refused)
    assert victim is not None, "no run seen with its guest up"
    cluster.workers[victim["worker"]].send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=400)
    assert proc.returncode == 0, err
    log = _log(folder)
    ends = [e for e in log if e["event"] == "end"]
    assert sorted(e["run_key"] for e in ends) == sorted(_rows(folder)) and len(ends) == RUNS, "each run recorded once"
    again = next(e for e in ends if e["run_key"] == victim["run_key"])
    assert again["status"] == "ok" and again["worker"] != victim["worker"], "the lost run ran again elsewhere"
    assert any(e["event"] == "worker-gone" and e["worker"] == victim["worker"] for e in log)
    assert all(table.run_summary(folder / "runs" / key)["status"] == "ok" for key in _rows(folder))
    time.sleep(5)  # the killed worker's run: its child was told to stop (PR_SET_PDEATHSIG) and tears its guest down
    deadline = time.monotonic() + 60
    keys = tuple(r.run_key for r in expand.runs(spec.load(TINY, ["clock=virtual"])))
    while guests(keys) and time.monotonic() < deadline:
        time.sleep(1)
    assert not guests(keys), "a guest of the killed worker's run is still running"


def _running(folder: Path, refused: str) -> dict[str, Any] | None:
    """A started run whose guest is up: it cannot have ended, since a run ends after its
    guest is gone. (A fixed sleep after the start raced the run: on 2026-11-29 a tiny run
    finished within it and the worker was killed idle.)"""
    log = _log(folder) if (folder / "runs.jsonl").exists() else []
    ended = {e["run_key"] for e in log if e["event"] == "end"}
    return next((e for e in log if e["event"] == "start" and e.get("worker") != refused
                 and e["run_key"] not in ended and guests((e["run_key"],))), None)


def test_no_scheduler_is_one_clear_error(tmp_path: Path) -> None:
    result = subprocess.run(_campaign(tmp_path, "--scheduler", f"tcp://127.0.0.1:{_port()}"),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "no Dask scheduler answers there" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "tiny" / "runs").exists()


def _first_start(folder: Path, proc: subprocess.Popen[str], timeout_s: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while proc.poll() is None and time.monotonic() < deadline:
        starts = [e for e in _log(folder) if e["event"] == "start"] if (folder / "runs.jsonl").exists() else []
        if starts:
            return starts[0]
        time.sleep(0.5)
    raise AssertionError("no run started")


def test_ctrl_c_stops_the_remote_runs_and_their_guests(cluster: Cluster, tmp_path: Path) -> None:
    folder = tmp_path / "tiny"
    proc = subprocess.Popen(_campaign(tmp_path, "--scheduler", cluster.scheduler), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _first_start(folder, proc)
    keys = tuple(r.run_key for r in expand.runs(spec.load(TINY, ["clock=virtual"])))
    deadline = time.monotonic() + 60
    while not guests(keys) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert guests(keys), "no guest came up"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted: run the same command again to resume" in err
    deadline = time.monotonic() + 60  # each worker sees its task cancelled and tears its guest down
    while guests(keys) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not guests(keys), "a remote run's guest outlived Ctrl-C"
    assert any(e["event"] == "end" and e["status"] == "interrupted" for e in _log(folder))


def test_the_scheduler_gone_is_one_clear_error_and_what_came_back_is_kept(tmp_path: Path) -> None:
    """A scheduler and one worker of its own: the scheduler is killed after the first run came back."""
    scheduler = f"tcp://127.0.0.1:{_port()}"
    sched = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", scheduler.rsplit(":", 1)[1],
                              "--dashboard-address", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = _worker(scheduler, _port(), tmp_path)
    out = tmp_path / "out"
    folder = out / "tiny"
    try:
        _wait_for_workers(scheduler, 1)
        proc = subprocess.Popen(_campaign(out, "--scheduler", scheduler), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 180
        while proc.poll() is None and time.monotonic() < deadline and not any(
                e["event"] == "end" for e in (_log(folder) if (folder / "runs.jsonl").exists() else [])):
            time.sleep(0.5)
        sched.kill()
        _, err = proc.communicate(timeout=180)
    finally:
        for p in (worker, sched):
            p.kill()
            p.wait(30)
    assert proc.returncode == 2, err
    gone = [line for line in err.splitlines() if "is gone" in line or "no Dask scheduler" in line]
    assert len(gone) == 1 and gone[0].startswith("sctpbench: ") and "Traceback" not in err, err
    ok = [e["run_key"] for e in _log(folder) if e["event"] == "end" and e["status"] == "ok"]
    assert ok and all(table.run_summary(folder / "runs" / key)["status"] == "ok" for key in ok)
    assert not [e for e in _log(folder) if e["event"] == "end" and e["status"] == "failed"], "a lost task was recorded as a failed run"
