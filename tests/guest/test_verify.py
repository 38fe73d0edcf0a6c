"""End to end in the guest: examples/verify-shaping.yaml, then `sctpbench verify` on its captures.

One run (about 20 s) serves the assertions. The checks themselves (delay, loss, rate,
blackhole) are verify's; here we assert that they pass on a real run and that the
captures show what the experiment is built to show.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def sctpbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("results")
    r = sctpbench("run", str(ROOT / "examples/verify-shaping.yaml"), "--json", "--out", str(out))
    assert r.returncode == 0, r.stderr
    run_dir = json.loads(r.stdout)["runs"][0]["directory"]
    v = sctpbench("verify", run_dir, "--json")
    report = json.loads(v.stdout)["runs"][0] if v.stdout.strip() else {}
    return {"dir": run_dir, "returncode": v.returncode, "stderr": v.stderr, "report": report,
            "directions": {(d["path"], d["direction"]): d for d in report.get("directions", [])}}


def test_every_check_passes(verified: dict[str, Any]) -> None:
    assert verified["returncode"] == 0, (verified["stderr"], verified["report"].get("failed"))
    assert verified["report"]["ok"] and len(verified["directions"]) == 4
    text = sctpbench("verify", verified["dir"])
    assert text.returncode == 0 and "primary forward (client → server)" in text.stdout


def test_the_lossy_direction_drops_and_the_clean_path_does_not(verified: dict[str, Any]) -> None:
    forward = verified["directions"][("primary", "forward")]
    assert forward["loss_drops"] > 0 and any(d["cause"] == "loss" for d in forward["drops"])
    for direction in ("forward", "reverse"):
        secondary = verified["directions"][("secondary", direction)]
        assert secondary["sent"] > 0 and secondary["dropped"] == 0, secondary


def test_nothing_crosses_the_blackhole_and_traffic_returns_after_the_restore(verified: dict[str, Any]) -> None:
    holes = [verified["directions"][("primary", d)]["blackholes"] for d in ("forward", "reverse")]
    assert all(len(h) == 1 for h in holes)
    forward, reverse = holes[0][0], holes[1][0]
    assert forward["crossed_inside"] == 0 and reverse["crossed_inside"] == 0
    assert forward["sent_inside"] > 0  # the client kept trying the failed primary
    assert forward["dropped"] + reverse["dropped"] >= forward["sent_inside"] + reverse["sent_inside"]
    assert forward["first_after_ms"] is not None or reverse["first_after_ms"] is not None


def test_packet_driven_pattern_drops_exactly_the_configured_positions_every_run(tmp_path: Path) -> None:
    r = sctpbench("run", str(ROOT / "examples/drop-pattern.yaml"), "--json", "--repeat", "2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    session = Path(json.loads(r.stdout)["directory"])
    v = sctpbench("verify", str(session), "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    runs = json.loads(v.stdout)["runs"]
    assert len(runs) == 2
    for report in runs:
        forward = next(d for d in report["directions"] if (d["path"], d["direction"]) == ("primary", "forward"))
        check = next(c for c in forward["checks"] if c["name"] == "drop pattern")
        assert check["ok"] and check["detail"].startswith("dropped DATA packets #5, #10, #11, #12, #40;"), check
        reverse = next(d for d in report["directions"] if (d["path"], d["direction"]) == ("primary", "reverse"))
        assert reverse["dropped"] == 0


def test_hosts_with_any_names_are_verified_with_their_clock_and_blackhole(tmp_path: Path) -> None:
    # The agents' records are named by role and association (records/main.server.rec), not by host: verify once
    # looked for records/<server host>.rec, lost the clock relation and could not check blackholes.
    experiment = tmp_path / "named.yaml"
    experiment.write_text(
        "name: named\n"
        "topology:\n  hosts: [alpha, beta]\n  emulator: true\n  paths:\n"
        "    one: {between: [alpha, beta], delay: 10ms}\n    two: {between: [alpha, beta], delay: 10ms}\n"
        "sctp: {rto_initial: 200ms, rto_min: 200ms, rto_max: 400ms, path_max_retrans: 1, pf_enable: false, nodelay: true}\n"
        "workload: {client: alpha, server: beta, rate: 50/s, duration: 3s}\n"
        "events: [{at: 1s, fail: one}, {at: 2s, restore: one}]\n"
        "measure: {capture: true}\n"
    )
    r = sctpbench("run", str(experiment), "--json", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    run_dir = json.loads(r.stdout)["runs"][0]["directory"]
    # With captures on, the plan lists tcpdump first: the agent's version must still be the agent's.
    versions = json.loads((Path(run_dir) / "versions.json").read_text())
    assert versions["agent"].startswith("sctpbench-agent "), versions
    v = sctpbench("verify", run_dir, "--json")
    report = json.loads(v.stdout)["runs"][0]
    assert v.returncode == 0, report["failed"]
    assert report["clock"] is not None
    assert any(d["blackholes"] for d in report["directions"] if d["path"] == "one")
