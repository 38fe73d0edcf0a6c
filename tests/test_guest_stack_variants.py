"""End to end in the guest: the project kernel's stack variants change what the captures and
the agent's path samples show, and leave stock behaviour alone when unset.

Initial window (net.sctp.initial_cwnd_mtus): a saturating client on a fresh association over
a 100 ms-each-way path; the first flight (DATA packets the client sends before the first
SACK comes back) is stock Linux's 4380 B at 1500 B MTU, or the configured count of MTUs.

Carry-over (net.sctp.primary_cwnd_carry): a saturating client on path a (10 ms each way)
for 2 s, then `primary: b` (50 ms each way, idle until then): with the variant on, b's
cwnd right after the switch is a's before it and b's first flight is as large; off, b
starts from its initial window. max_burst 0 in both, so the window alone limits a flight.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sctpbench.collectors import captures, records

pytestmark = pytest.mark.guest
S = 1_000_000_000
MS = 1_000_000
MTU = 1500
SERVER = {"a": "198.18.0.2", "b": "198.18.1.2"}

INITIAL_WINDOW = """\
name: initial-window
topology:
  hosts: [client, server]
  paths:
    long: {{between: [client, server], delay: 100ms, rate: 100mbit, queue: 1000}}
sctp: {{nodelay: true, sack_delay: 10ms{sctp}}}
workload: {{client: client, server: server, size: 1000B, arrival: saturate, duration: 1s}}
measure: {{capture: true}}
"""

CARRY = """\
name: primary-carry
topology:
  hosts: [client, server]
  paths:
    a: {{between: [client, server], delay: 10ms, rate: 10mbit, queue: 1000}}
    b: {{between: [client, server], delay: 50ms, rate: 10mbit, queue: 1000}}
sctp: {{nodelay: true, sack_delay: 10ms, max_burst: 0{sctp}}}
workload: {{client: client, server: server, size: 1000B, arrival: saturate, duration: 3s}}
measure: {{capture: true}}
events:
  - {{at: 2s, primary: b}}
"""
SWITCH_NS = 2 * S


def _run(tmp: Path, name: str, text: str) -> Path:
    experiment = tmp / f"{name}.yaml"
    experiment.write_text(text)
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--json", "--out", str(tmp / name)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr + r.stdout
    return Path(json.loads(r.stdout)["runs"][0]["directory"])


def first_flight(packets: list[captures.Packet], client: str, after: float = 0.0) -> int:
    """DATA packets the client sent (from `after`, capture time) before the first SACK came back."""
    count = 0
    for p in packets:
        if p.time < after:
            continue
        if p.src != client and "SACK" in p.chunk_types:
            return count
        if p.src == client and "DATA" in p.chunk_types:
            count += 1
    return count


def _sysctls(run_dir: Path) -> dict[str, dict[str, str]]:
    sysctl: dict[str, dict[str, str]] = json.loads((run_dir / "kernel.json").read_text())["sysctl"]
    return sysctl


@pytest.fixture(scope="module")
def windows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("initial-window")
    cases = {"stock": "", "10": ", initial_cwnd: 10, max_burst: 0", "20": ", initial_cwnd: 20, max_burst: 0"}
    return {name: _run(tmp, f"window-{name}", INITIAL_WINDOW.format(sctp=sctp)) for name, sctp in cases.items()}


def _flight(run_dir: Path) -> int:
    return first_flight(captures.read(run_dir / "captures" / "long-client.pcap"), "198.18.0.1")


def test_stock_linux_sends_4380_bytes_before_the_first_sack(windows: dict[str, Path]) -> None:
    # min(4*MTU, max(2*MTU, 4380 B)) = 4380 B: three 1000 B messages bundled in full packets, and
    # Linux sends while the flight is below cwnd, so one packet more.
    assert 3 <= _flight(windows["stock"]) <= 4
    sysctl = _sysctls(windows["stock"])
    for host in ("client", "server"):  # read back though never written: stock values
        assert (sysctl[host]["initial_cwnd_mtus"], sysctl[host]["primary_cwnd_carry"], sysctl[host]["max_burst"]) \
            == ("0", "0", "4")


@pytest.mark.parametrize("mtus", [10, 20])
def test_the_initial_window_sets_the_first_flight(windows: dict[str, Path], mtus: int) -> None:
    flight = _flight(windows[str(mtus)])
    # cwnd N*1500 B of 1452 B packets (1500 less IP, SCTP and DATA headers), sent while below it.
    assert mtus <= flight <= mtus + 2, flight
    assert _sysctls(windows[str(mtus)])["client"]["initial_cwnd_mtus"] == str(mtus)


@pytest.fixture(scope="module")
def carry(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("carry")
    return {name: _run(tmp, f"carry-{name}", CARRY.format(sctp=sctp))
            for name, sctp in {"off": "", "on": ", primary_cwnd_carry: true"}.items()}


def _around_switch(run_dir: Path) -> tuple[int, int]:
    """a's cwnd in its last sample before the switch, b's in its first after it."""
    client = records.read(run_dir / "records" / "main.client.rec")
    t0 = json.loads((run_dir / "backend.json").read_text())["t0_ns"]
    before = [s for s in client.path if s.addr == SERVER["a"] and s.t_ns - t0 < SWITCH_NS]
    after = [s for s in client.path if s.addr == SERVER["b"] and s.t_ns - t0 > SWITCH_NS]
    return before[-1].cwnd, after[0].cwnd


def _b_flight(run_dir: Path) -> int:
    backend = json.loads((run_dir / "backend.json").read_text())
    switch = (backend["t0_realtime_ns"] + SWITCH_NS) / S
    return first_flight(captures.read(run_dir / "captures" / "b-client.pcap"), "198.18.1.1", after=switch)


def test_with_carry_the_new_primary_takes_the_old_ones_cwnd(carry: dict[str, Path]) -> None:
    a_cwnd, b_cwnd = _around_switch(carry["on"])
    assert a_cwnd > 10 * MTU  # a grew well past its initial window in 2 s
    assert abs(b_cwnd - a_cwnd) <= 0.1 * a_cwnd, (a_cwnd, b_cwnd)
    assert _sysctls(carry["on"])["client"]["primary_cwnd_carry"] == "1"


def test_without_carry_the_new_primary_starts_from_its_initial_window(carry: dict[str, Path]) -> None:
    a_cwnd, b_cwnd = _around_switch(carry["off"])
    assert a_cwnd > 10 * MTU
    assert b_cwnd == 4380, b_cwnd


def test_the_capture_shows_the_carried_window_as_the_first_flight_on_the_new_path(carry: dict[str, Path]) -> None:
    off, on = _b_flight(carry["off"]), _b_flight(carry["on"])
    assert off <= 4, off
    a_cwnd, _ = _around_switch(carry["on"])
    assert on >= 0.8 * a_cwnd / MTU, (on, a_cwnd)
