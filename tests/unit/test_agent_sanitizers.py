"""The agent's socket-free modules under AddressSanitizer and UBSan on the host (the guest
runs of the sanitizer builds are in tests/guest/test_agent_sanitizers.py).
"""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"


def test_socket_free_modules_are_clean_under_asan_and_ubsan() -> None:
    r = subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ALL OK (0 failures)" in r.stdout
    # tx ends with T_SCHED, or "-" where there is no schedule (saturate)
    assert "tx\t1\t2\t3\t4\t5\t0\n" in r.stdout and "tx\t6\t7\t0\t4\t8\t-\n" in r.stdout
    # cc: T PRIMARY CWND SSTHRESH FLIGHT_SIZE PARTIAL_BYTES_ACKED
    assert "cc\t1\t198.18.0.1\t4380\t65536\t1452\t7\n" in r.stdout
    assert "AddressSanitizer" not in r.stderr and "runtime error" not in r.stderr
