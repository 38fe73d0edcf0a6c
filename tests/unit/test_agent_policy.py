"""The agent's path-selection policies (common/policy.c): the C unit checks on synthetic samples,
built under ASan + UBSan on the host (no kernel SCTP needed)."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"


def test_policy_decisions_on_synthetic_samples() -> None:
    build = subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "build/policy-unit"], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    r = subprocess.run([str(AGENT_DIR / "build/policy-unit")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("parse", "static", "delay-centric", "guard", "predictive", "rtt-ratio", "signal"):
        assert f"policy {name} ok" in r.stdout
    assert "signal trace ok" in r.stdout
    assert "POLICY OK (0 failures)" in r.stdout
    assert "FAIL" not in r.stderr and "AddressSanitizer" not in r.stderr and "runtime error" not in r.stderr
