"""Address resolution stays off the shaped path: the first packet on an idle path (its first
HEARTBEAT) takes the configured delay, not that plus an ARP exchange through netem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sctpbench.collectors import captures

ROOT = Path(__file__).resolve().parents[2]
DELAY_MS = 30.0


def test_the_first_heartbeat_on_an_idle_path_takes_the_configured_delay(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples" / "failover.yaml"), "--json", "--out", str(tmp_path),
         "--set", "topology.emulator=true", "--set", "measure.capture=true", "--set", "events=[]",
         "--set", f"topology.paths.secondary.delay={DELAY_MS:g}ms", "--set", "workload.duration=3s"],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stderr
    run_dir = Path(json.loads(r.stdout)["runs"][0]["directory"])
    client = captures.read(run_dir / "captures" / "secondary-client.pcap")
    server = captures.read(run_dir / "captures" / "secondary-server.pcap")
    # Through the emulator each host's own capture sees its packets leave unshaped.
    # The earliest heartbeat in either capture is its sender's copy; the other capture has it arriving.
    sent_from, first = min(((side, p) for side, ps in (("client", client), ("server", server)) for p in ps
                            if "HEARTBEAT" in p.chunk_types), key=lambda sp: sp[1].time)
    arrived = next(p for p in (server if sent_from == "client" else client) if p.key == first.key)
    assert (arrived.time - first.time) * 1e3 == pytest.approx(DELAY_MS, abs=1.0)
