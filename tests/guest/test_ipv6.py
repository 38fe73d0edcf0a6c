"""End to end in the guest: SCTP over IPv6 and dual stack, through the emulator.

- An association multihomed across families (examples/failover-cross-family.yaml: lte
  IPv4, the primary; wifi IPv6) fails over from IPv4 to IPv6 and delivers every message;
  the captures hold SCTP over IPv6, and verify reads them.
- A dual-stack path gives the association two SCTP paths (one per family), both used.
- No IPv6 control traffic (RS, NS, NA, MLD, any ICMPv6) reaches a capture during the run,
  a `down`/`up` of a dual-stack path included (a link coming up re-sends MLD reports
  unless the hosts drop them: plan/network.py NO_MLD).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sctpbench.analysis import expiries, verify
from sctpbench.collectors import captures

ROOT = Path(__file__).resolve().parents[2]


def _run(experiment: Path, out: Path, *sets: str) -> dict[str, Any]:
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--json", "--out", str(out),
         *[a for s in sets for a in ("--set", s)]],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stderr
    run: dict[str, Any] = json.loads(r.stdout)["runs"][0]
    run["dir"] = Path(run["directory"])
    return run


def _not_sctp(pcap: Path) -> list[str]:
    """Every frame of a capture that is not SCTP, one line each (tshark's summary)."""
    r = subprocess.run(["tshark", "-r", str(pcap), "-n", "-Y", "!sctp || icmpv6"], capture_output=True, text=True, check=True)
    return [line for line in r.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def cross(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run(ROOT / "examples" / "failover-cross-family.yaml", tmp_path_factory.mktemp("cross"),
                "topology.emulator=true", "measure.capture=true")


def test_cross_family_association_fails_over_from_ipv4_to_ipv6_and_delivers_everything(cross: dict[str, Any]) -> None:
    assert sorted(cross["peers_seen"]) == ["198.18.1.2", "2001:2:0:3::2"]
    assert cross["paths_used"] == ["lte", "wifi"]
    m = cross["metrics"]
    assert m["messages_sent"] == 450 and m["messages_delivered"] == 450
    assert 0 < m["failover_time_ms"] < m["detection_time_ms"]
    model = cross["detection_model"]
    assert model["model_ms"] <= m["detection_time_ms"] <= model["bound_ms"], (m, model)


def test_captures_hold_sctp_over_ipv6_and_verify_reads_them(cross: dict[str, Any]) -> None:
    wifi = captures.read(cross["dir"] / "captures" / "wifi-client.pcap")
    data = [p for p in wifi if "DATA" in p.chunk_types]
    assert data and all((p.src, p.dst) == ("2001:2:0:2::1", "2001:2:0:3::2") for p in data)
    # every message from the failure at 5 s on (50/s), the retransmitted ones bundled
    assert len({c.seq for p in data for c in p.chunks if c.seq is not None}) >= 200
    report = verify.verify_run(cross["dir"])
    wifi_forward = next(d for d in report.directions if (d.path, d.direction) == ("wifi", "forward"))
    assert wifi_forward.sent >= len(data) and all(c.ok for d in report.directions for c in d.checks), report


def test_expiries_are_read_from_retransmissions_on_the_other_family(cross: dict[str, Any]) -> None:
    found = expiries.analyse(cross["dir"])  # lte's T3-rtx expiries show as bursts on wifi, over IPv6
    assert found.path == "lte" and [e.rto_ms for e in found.expiries] == [200.0, 400.0, 800.0]
    assert all(e.within for e in found.expiries) and found.unreachable_ns is not None, found


def test_no_ipv6_control_traffic_on_the_paths(cross: dict[str, Any]) -> None:
    for pcap in sorted((cross["dir"] / "captures").glob("*.pcap")):
        assert _not_sctp(pcap) == [], pcap.name


def test_a_dual_stack_path_gives_two_sctp_paths_and_stays_quiet_across_down_and_up(tmp_path: Path) -> None:
    experiment = tmp_path / "dual.yaml"
    experiment.write_text(
        "name: dual\n"
        "topology: {use: dual-homed, emulator: true, paths: {secondary: {family: dual}}}\n"
        "sctp: {rto_initial: 200ms, rto_min: 200ms, rto_max: 800ms, path_max_retrans: 2, pf_enable: false,\n"
        "       hb_interval: 500ms, sack_delay: 10ms, nodelay: true}\n"
        "workload: {client: client, server: server, size: 200B, rate: 50/s, duration: 5s}\n"
        "measure: {capture: true}\n"
        "events:\n"
        "  - {at: 1s, down: secondary}\n"
        "  - {at: 2s, up: secondary}\n"
        "  - {at: 3s, primary: '2001:2:0:3::2'}\n"
    )
    run = _run(experiment, tmp_path / "out")
    assert sorted(run["peers_seen"]) == ["198.18.1.2", "198.18.3.2", "2001:2:0:3::2"]
    assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"] == 250
    secondary = captures.read(run["dir"] / "captures" / "secondary-client.pcap")
    # Both SCTP paths of the dual-stack path carry the association: heartbeats on each,
    # and data over IPv6 once it is the primary.
    assert {(p.src, p.dst) for p in secondary if "HEARTBEAT" in p.chunk_types} >= {
        ("198.18.2.1", "198.18.3.2"), ("2001:2:0:2::1", "2001:2:0:3::2")}
    assert any(p.dst == "2001:2:0:3::2" and "DATA" in p.chunk_types for p in secondary)
    for pcap in sorted((run["dir"] / "captures").glob("*.pcap")):
        assert _not_sctp(pcap) == [], pcap.name
