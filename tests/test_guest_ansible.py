"""The ansible backend for real: a lab of three UML guests (client, emulator, server), each its own
kernel, driven over SSH by Debian's Ansible through the project's playbooks.

- examples/failover.yaml through the emulator, three repetitions on the lab, agrees with the
  same experiment on the netns backend in one guest and on the mininet backend in one guest
  (detection time, failover time, MTT p50), all three on the real clock;
- a run killed mid-way leaves every guest clean: clean.yml in check mode changes nothing;
- a clock set off on one guest beyond the inventory's bound makes the run refuse, naming it.

The lab runs on the real clock (guests on one shared virtual time would need NICs that tell
the calendar about every frame in flight: README, "Real machines"), so the comparison allows
the real clock's own spread besides the runs' confidence intervals, and is skipped, not
failed, when the self-check found the host too busy for the run to mean anything.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sctpbench.backends import clocksync, inventory
from sctpbench.lab import lifecycle

ROOT = Path(__file__).resolve().parent.parent
FAILOVER = ROOT / "examples/failover.yaml"
THROUGH_EMULATOR = ["--set", "topology.emulator=true"]
# What the real clock of a guest on a shared 2-core host may add beside the CIs: a timer
# tick or a scheduling delay for detection and failover (timers of 200-800 ms), a fraction
# of the 10 ms one-way delay for the median MTT.
ALLOWED = {"detection_time_ms": 30.0, "failover_time_ms": 30.0, "mtt_p50_ms": 2.0}
# Run by hand (SCTPBENCH_LAB_TESTS=1), not by the test command: a lab guest sometimes stops
# answering a few seconds after a run ended (its kernel spins; even UML's mconsole gets no
# answer), in about one run in three after the first on the same lab. Until that is found,
# a CI run would fail on it at random. README, "Real machines".
pytestmark = [pytest.mark.guest,
              pytest.mark.skipif(os.environ.get("SCTPBENCH_LAB_TESTS") != "1",
                                 reason="the ansible lab tests run by hand: SCTPBENCH_LAB_TESTS=1 (README, \"Real machines\")")]


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


def _session(out: Path, r: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert r.returncode == 0, r.stderr[-3000:] + r.stdout[-2000:]
    doc = json.loads(r.stdout)
    return {"runs": doc["runs"], "summary": json.loads((Path(doc["runs"][0]["directory"]).parent / "summary.json")
                                                        .read_text())["summary"]}


def test_failover_on_three_guests_agrees_with_one_kernel(lab: Path, tmp_path: Path) -> None:
    on_lab = _session(tmp_path, _sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--repeat", "3", "--json",
                                           "--out", str(tmp_path / "lab"), "--backend", "ansible",
                                           inventory_file=lab / "inventory.yaml"))
    in_one = _session(tmp_path, _sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--set", "clock=real", "--repeat", "3",
                                           "--json", "--out", str(tmp_path / "one"), "--backend", "uml"))
    in_mininet = _session(tmp_path, _sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--set", "clock=real", "--repeat", "3",
                                               "--json", "--out", str(tmp_path / "mininet"), "--backend", "mininet"))
    for run in on_lab["runs"]:
        folder = Path(run["directory"])
        assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"]
        assert json.loads((folder / "backend.json").read_text())["clock"] == "CLOCK_REALTIME"
        assert set(json.loads((folder / "kernel.json").read_text())["machines"]) == {"client", "server", "emu"}
        assert (folder / "records/main.client.rec").read_text().startswith("#sctpbench-records\tv1\tclock=CLOCK_REALTIME")
        assert abs(json.loads((folder / "ansible.json").read_text())["clock"]["machines"]["server"]["offset_ns"]) < 5e6
    disturbed = [r["directory"] for s in (on_lab, in_one, in_mininet) for r in s["runs"] if r.get("status") != "ok"]
    if disturbed:
        pytest.skip(f"the self-check found these runs disturbed by the host's load: {disturbed}")
    for other in (on_lab, in_mininet):
        for key, allowed in ALLOWED.items():
            a, b = other["summary"][key], in_one["summary"][key]
            assert abs(a["mean"] - b["mean"]) <= (a["ci95"] or 0) + (b["ci95"] or 0) + allowed, (key, a, b)


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


# Last in the module: it moves a guest's clock (and puts it back as `lab up` set it).
def test_a_clock_set_off_on_one_guest_makes_the_run_refuse(lab: Path, tmp_path: Path) -> None:
    inv = inventory.load(lab / "inventory.yaml")
    server = inv.machine("server")
    ahead = "import time; time.clock_settime_ns(time.CLOCK_REALTIME, time.time_ns() + 2_000_000_000)"
    subprocess.run([*server.ssh_command(), f"python3 -c '{ahead}'"], check=True, capture_output=True, timeout=120)
    try:
        r = _sctpbench("run", str(FAILOVER), *THROUGH_EMULATOR, "--out", str(tmp_path), "--backend", "ansible",
                       inventory_file=lab / "inventory.yaml")
    finally:
        clocksync.step(server)
    said = r.stdout + r.stderr  # the run's line on stdout, progress on stderr
    assert r.returncode == 1, said
    assert "clock preflight: server's clock is" in said and "ahead of this host's, beyond the bound of 5 ms" in said, said
    assert _clean_check(lab).returncode == 0
