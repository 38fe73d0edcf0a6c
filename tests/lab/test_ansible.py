"""The ansible backend for real: a lab of three UML guests (client, emulator, server), each its own
kernel, on one shared virtual time (the lab's vswitch: one calendar, virtio NICs), driven over
SSH by Debian's Ansible through the project's playbooks.

- examples/failover.yaml through the emulator on the lab, beside two busy loops, is `ok` and
  agrees with the same experiment on the netns backend in one guest and on the mininet
  backend in one guest, all on virtual time (MTT p50 to 0.01 ms, detection and failover
  time within what the kernels' random heartbeat jitter spreads them);
- a run killed mid-way leaves every guest clean: clean.yml in check mode changes nothing;
- a clock set off on one guest beyond the inventory's bound makes the run refuse, naming it.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sctpbench.backends.ansible import inventory
from sctpbench.lab import lifecycle

ROOT = Path(__file__).resolve().parents[2]
FAILOVER = ROOT / "examples/failover.yaml"
THROUGH_EMULATOR = ["--set", "topology.emulator=true"]
# On virtual time the data path's timing is exact on all three (the median MTT agrees to the
# microsecond); SCTP's timers differ where the kernels' histories do: the heartbeats' random
# jitter (which confirms paths and moves when the retransmission timer restarts) is drawn
# from kernel entropy, which on the lab is fed by SSH from the host at wall-clock moments,
# so every fresh lab draws its own. Measured: detection 1465.99 (uml), 1434.52-1434.54
# (mininet), 1449.99-1475.99 ms (five fresh labs, 2026-11-25) and 1422.99 ms in three of five
# fresh labs on 2026-11-26 (43 ms below uml: the lowest seen, inside the timer model's 1400-1630 ms);
# failover 203.99, 204.54, 201.99-208.99 ms. The bound covers the spread seen over ten labs.
ALLOWED = {"detection_time_ms": 50.0, "failover_time_ms": 10.0}
SAME_MS = 0.01


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("lab") / "lab"
    lifecycle.up(FAILOVER, folder, overrides=["topology.emulator=true"])
    try:
        yield folder
    finally:
        lifecycle.down(folder)


def _sctpbench(*args: str, inventory_file: Path | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    extra = ["--inventory", str(inventory_file)] if inventory_file else []
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", *args, *extra], capture_output=True, text=True,
                          timeout=timeout)


def _session(r: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert r.returncode == 0, r.stderr[-3000:] + r.stdout[-2000:]
    doc = json.loads(r.stdout)
    return {"runs": doc["runs"], "summary": json.loads((Path(doc["runs"][0]["directory"]).parent / "summary.json")
                                                        .read_text())["summary"]}


def _on_lab(folder: Path, out: Path) -> dict[str, Any]:
    return _session(_sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--json", "--out", str(out),
                               "--backend", "ansible", inventory_file=folder / "inventory.yaml"))


def _busy_loops(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def test_failover_on_three_guests_agrees_with_one_kernel(lab: Path, tmp_path: Path) -> None:
    # The lab's run beside two busy loops (this is a 2-CPU machine): on one virtual time the
    # load costs wall time only, so the run is still `ok` and its median MTT the one kernel's.
    loops = _busy_loops(2)
    try:
        on_lab = _on_lab(lab, tmp_path / "lab")
    finally:
        for p in loops:
            p.kill()
            p.wait()
    in_one = _session(_sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--json", "--out", str(tmp_path / "one"),
                                 "--backend", "uml"))
    in_mininet = _session(_sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--json", "--out", str(tmp_path / "mininet"),
                                     "--backend", "mininet"))
    run = on_lab["runs"][0]
    folder = Path(run["directory"])
    assert run["status"] == "ok" and run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"]
    assert json.loads((folder / "plan.json").read_text())["clock"] == "paced"
    assert json.loads((folder / "backend.json").read_text())["clock"] == "CLOCK_REALTIME"
    assert set(json.loads((folder / "kernel.json").read_text())["machines"]) == {"client", "server", "emu"}
    assert (folder / "records/main.client.rec").read_text().startswith("#sctpbench-records\tv1\tclock=CLOCK_REALTIME")
    clock = json.loads((folder / "ansible.json").read_text())["clock"]
    assert clock["method"].startswith("one virtual time (paced)")
    assert {h: o["offset_ns"] for h, o in clock["machines"].items()} == {"client": 0, "server": 0, "emu": 0}
    assert abs(on_lab["summary"]["mtt_p50_ms"]["mean"] - in_one["summary"]["mtt_p50_ms"]["mean"]) <= SAME_MS
    for other in (on_lab, in_mininet):
        for key, allowed in ALLOWED.items():
            a, b = other["summary"][key], in_one["summary"][key]
            assert abs(a["mean"] - b["mean"]) <= allowed, (key, a, b)


def test_preparing_twice_changes_nothing_the_second_time(lab: Path) -> None:
    inv = str(lab / "inventory.yaml")
    first = _sctpbench("hosts", "prepare", str(FAILOVER), *THROUGH_EMULATOR, inventory_file=Path(inv), timeout=300)
    assert first.returncode == 0, first.stderr
    again = _sctpbench("hosts", "prepare", str(FAILOVER), *THROUGH_EMULATOR, "--check", inventory_file=Path(inv), timeout=300)
    assert again.returncode == 0 and again.stdout.splitlines() == ["client: ready", "emu: ready", "server: ready"], again.stdout
    # The prepared run's files are what a clean-up removes; leave the machines as the next test expects.
    assert _sctpbench("hosts", "clean", inventory_file=Path(inv), timeout=300).returncode == 0


def _clean_check(lab: Path) -> subprocess.CompletedProcess[str]:
    return _sctpbench("hosts", "clean", "--check", inventory_file=lab / "inventory.yaml", timeout=300)


def test_a_run_killed_mid_way_leaves_every_guest_clean(lab: Path, tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "sctpbench.cli", "run", str(FAILOVER), *THROUGH_EMULATOR, "--out", str(tmp_path),
            "--backend", "ansible", "--inventory", str(lab / "inventory.yaml")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout
    seen = []
    deadline = time.monotonic() + 300
    for line in proc.stdout:  # kill it once the machines run their shares
        seen.append(line)
        if "running on every machine" in line or time.monotonic() > deadline:
            break
    time.sleep(15)  # servers up, clients mid-association
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=300)
    assert proc.returncode == 130, "".join(seen) + rest
    r = _clean_check(lab)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split("\n")[:3] == ["client: clean", "emu: clean", "server: clean"]


# Last in the module: it moves a guest's clock (and puts it back).
def test_a_clock_set_off_on_one_guest_makes_the_run_refuse(lab: Path, tmp_path: Path) -> None:
    server = inventory.load(lab / "inventory.yaml").machine("server")

    def move(ns: int) -> None:
        code = f"import time; time.clock_settime_ns(time.CLOCK_REALTIME, time.time_ns() + {ns})"
        subprocess.run([*server.ssh_command(), f"python3 -c '{code}'"], check=True, capture_output=True, timeout=120)

    move(2_000_000_000)
    try:
        r = _sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--out", str(tmp_path), "--backend", "ansible",
                       inventory_file=lab / "inventory.yaml")
    finally:
        move(-2_000_000_000)
    said = r.stdout + r.stderr  # the run's line on stdout, progress on stderr
    assert r.returncode == 1, said
    assert "clock preflight: server's clock is 2000." in said, said
    assert "ms ahead of the machines' shared virtual time, beyond the bound of 5 ms" in said, said
    assert _clean_check(lab).returncode == 0
