"""End to end in the guest: the project kernel's stack variants change what the captures and
the agent's path samples show, and leave stock behaviour alone when unset.

Initial window (net.sctp.initial_cwnd_mtus): a saturating client of full-sized messages (one
1452 B DATA chunk fills a 1500 B packet) on a fresh association over a 100 ms-each-way path;
the first flight (DATA packets the client sends before the first SACK comes back) fills
stock Linux's 4380 B at 1500 B MTU, or the configured count of MTUs. Linux sends while the
flight is below cwnd, so a flight is ceil(cwnd / 1452) packets.

Carry-over (net.sctp.primary_cwnd_carry): a saturating client on path one (10 ms each way)
for 2 s, then `primary: two` (50 ms each way, idle until then): with the variant on, two's
cwnd right after the switch is one's before it and two's first flight at least as large;
off, two starts from its initial window (stock, or initial_cwnd's on the handover target
as seed 001 studies it). max_burst 0 in all, so the window alone limits a flight.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sctpbench.collectors import captures, records
from tests.support.guest_run import run_experiment

S = 1_000_000_000
MS = 1_000_000
MTU = 1500
STOCK_CWND = 4380  # min(4*MTU, max(2*MTU, 4380 B))
SERVER = {"one": "198.18.0.2", "two": "198.18.1.2"}

INITIAL_WINDOW = """\
name: initial-window
topology:
  hosts: [client, server]
  paths:
    long: {{between: [client, server], delay: 100ms, rate: 100mbit, queue: 1000}}
sctp: {{nodelay: true, sack_delay: 10ms{sctp}}}
workload: {{client: client, server: server, size: 1452B, arrival: saturate, duration: 1s}}
measure: {{capture: true}}
"""
CHUNK = 1452  # 1500 B MTU less the IPv4 (20), SCTP common (12) and DATA chunk (16) headers

CARRY = """\
name: primary-carry
topology:
  hosts: [client, server]
  paths:
    one: {{between: [client, server], delay: 10ms, rate: 10mbit, queue: 1000}}
    two: {{between: [client, server], delay: 50ms, rate: 10mbit, queue: 1000}}
sctp: {{nodelay: true, sack_delay: 10ms, max_burst: 0{sctp}}}
workload: {{client: client, server: server, size: 1452B, arrival: saturate, duration: 3s}}
measure: {{capture: true}}
events:
  - {{at: 2s, primary: two}}
"""
SWITCH_NS = 2 * S
# The server keeps acknowledging over its primary path (one): the first SACK for data on
# two reaches the client 10 ms after that data left it, and what the client sends in reply
# leaves two's 50 ms netem after that, so a flight limited by two's window ends in a
# pause of about 60 ms in two's capture (taken after the egress netem); packets of one
# flight leave 1.2 ms apart (10 Mbit/s).
PAUSE_S = 0.030


def _run(tmp: Path, name: str, text: str) -> Path:
    return run_experiment(tmp, text, name)


def first_flight(packets: list[captures.Packet], client: str) -> int:
    """DATA packets the client sent before the first SACK came back over the same path."""
    count = 0
    for p in packets:
        if p.src != client and "SACK" in p.chunk_types:
            return count
        if p.src == client and "DATA" in p.chunk_types:
            count += 1
    return count


def flight_before_pause(packets: list[captures.Packet], client: str, pause_s: float) -> int:
    """DATA packets the client's capture shows before the first pause of pause_s between two."""
    data = [p.time for p in packets if p.src == client and "DATA" in p.chunk_types]
    gaps = [i for i in range(1, len(data)) if data[i] - data[i - 1] >= pause_s]
    return gaps[0] if gaps else len(data)


def _sysctls(run_dir: Path) -> dict[str, dict[str, str]]:
    sysctl: dict[str, dict[str, str]] = json.loads((run_dir / "kernel.json").read_text())["sysctl"]
    return sysctl


@pytest.fixture(scope="module")
def windows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("initial-window")
    cases = {"stock": "", "10": ", initial_cwnd: 10, max_burst: 0", "20": ", initial_cwnd: 20, max_burst: 0",
             "unrestricted": ", initial_cwnd: unrestricted, max_burst: 0"}
    return {name: _run(tmp, f"window-{name}", INITIAL_WINDOW.format(sctp=sctp)) for name, sctp in cases.items()}


def _flight(run_dir: Path) -> int:
    return first_flight(captures.read(run_dir / "captures" / "long-client.pcap"), "198.18.0.1")


def test_stock_linux_sends_4380_bytes_before_the_first_sack(windows: dict[str, Path]) -> None:
    assert _flight(windows["stock"]) == math.ceil(STOCK_CWND / CHUNK) == 4
    sysctl = _sysctls(windows["stock"])
    for host in ("client", "server"):  # read back though never written: stock values
        assert (sysctl[host]["initial_cwnd_mtus"], sysctl[host]["primary_cwnd_carry"], sysctl[host]["max_burst"]) \
            == ("0", "0", "4")


@pytest.mark.parametrize("mtus, packets", [(10, 11), (20, 21)])
def test_the_initial_window_sets_the_first_flight(windows: dict[str, Path], mtus: int, packets: int) -> None:
    assert _flight(windows[str(mtus)]) == math.ceil(mtus * MTU / CHUNK) == packets
    assert _sysctls(windows[str(mtus)])["client"]["initial_cwnd_mtus"] == str(mtus)


def test_an_unrestricted_window_is_limited_by_the_receiver_alone(windows: dict[str, Path]) -> None:
    flight = _flight(windows["unrestricted"])
    # Far beyond 20 MTUs, within what the server's receive buffer (Linux's 212992 B) advertises.
    assert 2 * 21 < flight and flight * CHUNK <= 212_992, flight
    assert _sysctls(windows["unrestricted"])["client"]["initial_cwnd_mtus"] == "65535"


@pytest.fixture(scope="module")
def carry(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("carry")
    return {name: _run(tmp, f"carry-{name}", CARRY.format(sctp=sctp))
            for name, sctp in {"off": "", "on": ", primary_cwnd_carry: true", "window": ", initial_cwnd: 20"}.items()}


def _around_switch(run_dir: Path) -> tuple[int, int]:
    """one's cwnd in its last sample before the switch, two's in its first after it."""
    client = records.read(run_dir / "records" / "main.client.rec")
    t0 = json.loads((run_dir / "backend.json").read_text())["t0_ns"]
    before = [s for s in client.path if s.addr == SERVER["one"] and s.t_ns - t0 < SWITCH_NS]
    after = [s for s in client.path if s.addr == SERVER["two"] and s.t_ns - t0 > SWITCH_NS]
    return before[-1].cwnd, after[0].cwnd


def _new_path_flight(run_dir: Path) -> int:
    return flight_before_pause(captures.read(run_dir / "captures" / "two-client.pcap"), "198.18.1.1", PAUSE_S)


def test_with_carry_the_new_primary_takes_the_old_ones_cwnd(carry: dict[str, Path]) -> None:
    a_cwnd, b_cwnd = _around_switch(carry["on"])
    assert a_cwnd > 10 * MTU  # one grew well past its initial window in 2 s
    assert abs(b_cwnd - a_cwnd) <= 0.1 * a_cwnd, (a_cwnd, b_cwnd)
    assert _sysctls(carry["on"])["client"]["primary_cwnd_carry"] == "1"


def test_without_carry_the_new_primary_starts_from_its_initial_window(carry: dict[str, Path]) -> None:
    a_cwnd, b_cwnd = _around_switch(carry["off"])
    assert a_cwnd > 10 * MTU
    assert b_cwnd == STOCK_CWND, b_cwnd


def test_the_capture_shows_the_carried_window_as_the_first_flight_on_the_new_path(carry: dict[str, Path]) -> None:
    off, on = _new_path_flight(carry["off"]), _new_path_flight(carry["on"])
    # Off: two's initial 4380 B, then a pause for its first SACK. On: at least the carried
    # window leaves before two ever waits for a SACK.
    assert off == math.ceil(STOCK_CWND / CHUNK), off
    _, carried = _around_switch(carry["on"])
    assert on >= math.ceil(carried / CHUNK), (on, carried)


def test_the_initial_window_is_the_handover_targets_first_flight(carry: dict[str, Path]) -> None:
    # Seed 001's case: the idle path a handover moves to starts with initial_cwnd MTUs.
    _, b_cwnd = _around_switch(carry["window"])
    assert b_cwnd == 20 * MTU, b_cwnd
    assert _new_path_flight(carry["window"]) == math.ceil(20 * MTU / CHUNK) == 21
