"""End to end in the guest: an mSCTP handover with dynamic address reconfiguration (RFC 5061).

A dual-homed association whose client starts bound to the primary path only: at 2 s it
adds its secondary address (add_address: ASCONF ADD-IP), at 3 s makes the secondary path
its primary and asks the server to do the same (set_primary with peer: ASCONF
SET-PRIMARY), at 4 s deletes its primary address (delete_address: ASCONF DELETE-IP).
One 6 s run, captured on both paths, serves the assertions: the agents' records (the
commands and the server's peer address notifications), the captures (each ASCONF and its
ASCONF-ACK at the right moment, on the right path), the messages (none lost, those after
the switch over the secondary path) and the kernel's sysctls read back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sctpbench.collectors import records

ROOT = Path(__file__).resolve().parents[2]
S = 1_000_000_000
MS = 1_000_000
ONE_WAY = 10 * MS  # dual-homed.yaml: 10 ms each way on both paths

EXPERIMENT = f"""\
name: handover-events
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{nodelay: true, sack_delay: 10ms}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 6s}}
measure: {{capture: true}}
events:
  - {{at: 2s, add_address: secondary}}
  - {{at: 3s, set_primary: secondary, peer: true}}
  - {{at: 4s, delete_address: primary}}
"""
CLIENT = {"primary": "198.18.0.1", "secondary": "198.18.1.1"}
SERVER = {"primary": "198.18.0.2", "secondary": "198.18.1.2"}
# RFC 5061 parameter types in an ASCONF
ADD_IP, DELETE_IP, SET_PRIMARY = 0xC001, 0xC002, 0xC004
ASCONF, ASCONF_ACK, DATA, AUTH = 193, 128, 0, 15


@dataclass(frozen=True)
class Packet:
    t_rel_ns: int  # from t0, on the guest's CLOCK_REALTIME (the capture's clock)
    src: str
    dst: str
    chunks: tuple[int, ...]
    params: tuple[int, ...]


def _packets(pcap: Path, t0_realtime_ns: int) -> list[Packet]:
    """Every SCTP packet of a capture, read by tshark: chunk types and parameter types."""
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-Y", "sctp", "-T", "fields", "-E", "separator=/t", "-e", "frame.time_epoch",
         "-e", "ip.src", "-e", "ip.dst", "-e", "sctp.chunk_type", "-e", "sctp.parameter_type"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    packets = []
    for line in out.splitlines():
        epoch, src, dst, chunks, params = (line.split("\t") + [""] * 5)[:5]
        seconds, _, fraction = epoch.partition(".")
        t_ns = int(seconds) * S + int((fraction + "000000000")[:9])
        packets.append(Packet(t_ns - t0_realtime_ns, src, dst, tuple(int(c) for c in chunks.split(",") if c),
                              tuple(int(p, 16) for p in params.split(",") if p)))
    return packets


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("handover")
    experiment = tmp / "handover.yaml"
    experiment.write_text(EXPERIMENT)
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--json", "--out", str(tmp / "out")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    run_dir = Path(json.loads(r.stdout)["runs"][0]["directory"])
    backend = json.loads((run_dir / "backend.json").read_text())
    return {
        "dir": run_dir,
        "t0": backend["t0_ns"],
        "client": records.read(run_dir / "records/main.client.rec"),
        "server": records.read(run_dir / "records/main.server.rec"),
        "captures": {p.stem: _packets(p, backend["t0_realtime_ns"]) for p in (run_dir / "captures").glob("*.pcap")},
        "kernel": json.loads((run_dir / "kernel.json").read_text()),
        "plan": json.loads((run_dir / "plan.json").read_text()),
        "summary": json.loads((run_dir / "summary.json").read_text()),
    }


def test_the_client_starts_on_the_primary_path_only_and_asconf_is_on(run: dict[str, Any]) -> None:
    assert run["client"].meta["local"] == CLIENT["primary"]
    assert run["client"].params["asconf_supported"] == run["server"].params["asconf_supported"] == "1"
    for host in ("client", "server"):
        sysctl = run["kernel"]["sysctl"][host]
        assert (sysctl["addip_enable"], sysctl["auth_enable"]) == ("1", "1"), sysctl


def test_the_client_records_each_command_on_time(run: dict[str, Any]) -> None:
    t0 = run["t0"]
    got = [(name, args, t - t0) for t, name, args in run["client"].events if name in ("addaddr", "primary", "peerprimary", "deladdr")]
    assert [(name, args) for name, args, _ in got] == [
        ("addaddr", CLIENT["secondary"]), ("primary", SERVER["secondary"]), ("peerprimary", CLIENT["secondary"]),
        ("deladdr", CLIENT["primary"]),
    ]
    for (_, _, rel), at in zip(got, (2 * S, 3 * S, 3 * S, 4 * S), strict=True):
        assert at <= rel <= at + MS, (rel, at)  # virtual clock: within 1 ms of its time


def test_the_server_sees_the_address_added_made_primary_and_removed(run: dict[str, Any]) -> None:
    t0 = run["t0"]
    changes = [(a.state, a.addr, a.t_ns - t0) for a in run["server"].addr]
    wanted = [("ADDR_ADDED", CLIENT["secondary"], 2 * S), ("ADDR_MADE_PRIM", CLIENT["secondary"], 3 * S),
              ("ADDR_REMOVED", CLIENT["primary"], 4 * S)]
    for state, addr, at in wanted:
        (rel,) = [rel for s, a, rel in changes if (s, a) == (state, addr)]
        # one way to the server, plus the kernel's and the agent's turn
        assert at + ONE_WAY <= rel <= at + ONE_WAY + 5 * MS, (state, rel)


def test_each_asconf_and_its_ack_cross_the_right_path_at_the_right_time(run: dict[str, Any]) -> None:
    # Captured where each chunk arrives: ASCONFs at the server, ASCONF-ACKs at the client
    # (a capture on the sending side sees a packet after the egress netem delay).
    captures = run["captures"]
    asconfs = sorted((p.t_rel_ns, path, p) for path in ("primary", "secondary")
                     for p in captures[f"{path}-server"] if ASCONF in p.chunks)
    acks = sorted((p.t_rel_ns, path, p) for path in ("primary", "secondary")
                  for p in captures[f"{path}-client"] if ASCONF_ACK in p.chunks)
    # Linux: ADD-IP goes over the primary path it still uses; SET-PRIMARY and DELETE-IP over
    # the new primary. Each ASCONF carries its request (with AUTH: chunk 15 comes first).
    assert [(path, p.src, p.dst) for _, path, p in asconfs] == [
        ("primary", CLIENT["primary"], SERVER["primary"]),
        ("secondary", CLIENT["secondary"], SERVER["secondary"]),
        ("secondary", CLIENT["secondary"], SERVER["secondary"]),
    ]
    for (t, _, p), kind, at in zip(asconfs, (ADD_IP, SET_PRIMARY, DELETE_IP), (2 * S, 3 * S, 4 * S), strict=True):
        assert kind in p.params, (hex(kind), [hex(x) for x in p.params])
        assert p.chunks[0] == AUTH, p.chunks
        assert at + ONE_WAY <= t <= at + ONE_WAY + 5 * MS, (t, at)
    assert len(acks) == 3
    for (t_ack, ack_path, ack), (t, path, asconf) in zip(acks, asconfs, strict=True):
        assert (ack_path, ack.src, ack.dst) == (path, asconf.dst, asconf.src)
        assert ack.chunks[0] == AUTH, ack.chunks
        assert ONE_WAY <= t_ack - t <= ONE_WAY + 5 * MS, (t_ack - t)


def test_no_message_is_lost_and_after_the_switch_they_travel_over_the_secondary_path(run: dict[str, Any]) -> None:
    client, server, t0 = run["client"], run["server"], run["t0"]
    assert len(client.tx) == 300 and sorted(rx.seq for rx in server.rx) == list(range(300))
    switched = t0 + 3 * S + MS  # `primary` took effect within 1 ms of 3 s
    before = [rx.from_addr for rx in server.rx if rx.t_gen_ns < t0 + 3 * S]
    after = [rx.from_addr for rx in server.rx if rx.t_gen_ns >= switched]
    assert set(before) == {CLIENT["primary"]} and len(after) >= 140
    assert set(after) == {CLIENT["secondary"]}
    data = [(p.t_rel_ns, path) for path in ("primary", "secondary") for p in run["captures"][f"{path}-client"] if DATA in p.chunks]
    assert {path for t, path in data if t >= 3 * S + MS} == {"secondary"}
    assert {path for t, path in data if t < 3 * S} == {"primary"}


def test_after_the_delete_nothing_uses_the_primary_path(run: dict[str, Any]) -> None:
    # The DELETE-IP exchange itself goes over the secondary path; from the switch of
    # primaries on, no packet of either end crosses the primary path (heartbeats come every
    # 30 s, after this run).
    for end in ("client", "server"):
        late = [p for p in run["captures"][f"primary-{end}"] if p.t_rel_ns >= 3 * S + 2 * ONE_WAY + 5 * MS]
        assert late == [], late[:3]


def test_the_summary_times_each_request_to_its_ack(run: dict[str, Any]) -> None:
    """summary.json's `asconf`: each request from the agent's record to the ASCONF-ACK the
    client's capture saw, one round trip later; on the wire (a direct path, shaped on the
    client's egress) one one-way delay after the request. Capture times are the kernel's
    CLOCK_REALTIME to the microsecond, records its CLOCK_MONOTONIC: 50 µs between the two."""
    assert run["summary"]["asconf"]["error"] is None
    done = run["summary"]["asconf"]["associations"]["main"]
    assert [x["request"] for x in done] == ["ASCONF_ADD_IP", "ASCONF_SET_PRIMARY", "ASCONF_DELETE_IP"]
    assert [x["path"] for x in done] == ["primary", "secondary", "secondary"]
    for x, at in zip(done, (2 * S, 3 * S, 4 * S), strict=True):
        assert at <= x["request_rel_ns"] <= at + MS, x
        assert ONE_WAY - 50_000 <= x["wire_rel_ns"] - x["request_rel_ns"] <= ONE_WAY + 5 * MS, x
        assert (2 * ONE_WAY - 50_000) / MS <= x["completed_ms"] <= (2 * ONE_WAY + 5 * MS) / MS, x
