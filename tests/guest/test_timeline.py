"""Timeline in the guest: fail, restore and a primary change take effect on the wire."""

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
S = 1_000_000_000


def test_restore_brings_the_path_back_and_primary_moves_traffic(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples/failover-restore.yaml"), "--json", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)["runs"][0]
    run_dir = Path(run["directory"])
    assert run["metrics"]["messages_delivered"] == run["metrics"]["messages_sent"] == 600

    events = pq.read_table(run_dir / "path_events.parquet").to_pylist()
    client = [(e["t_rel_ns"], e["kind"]) for e in events if e["source"] == "client" and e["path"] == "primary"]
    down = next(t for t, k in client if k == "ADDR_UNREACHABLE")
    up = next(t for t, k in client if k == "ADDR_AVAILABLE" and t > down)
    assert 3 * S < down < 6 * S
    # restore at 6 s; the next heartbeat (HB.interval 1 s plus RTO and jitter) finds the path
    assert 6 * S < up < 9 * S

    messages = pq.read_table(run_dir / "messages.parquet").to_pylist()
    def paths(lo: float, hi: float) -> set[str]:
        return {m["path"] for m in messages if lo * S <= m["t_rel_ns"] < hi * S}
    assert paths(0, 3) == {"primary"}
    assert paths(4.5, 6) == {"secondary"}  # failed over
    assert paths(up / S + 0.5, 9) == {"primary"}  # back on the restored primary
    assert paths(9.5, 12) == {"secondary"}  # the application chose the secondary

    primary = next(e for e in run["events"] if e["kind"] == "primary")
    assert 0 <= primary["lag_ns"] < 100_000_000
    # The agent's record of the change reaches the path-event table, on the path it names.
    primary_set = [e for e in events if e["source"] == "client" and e["kind"] == "PRIMARY_SET"]
    assert [(e["path"], e["addr"]) for e in primary_set] == [("secondary", "198.18.1.2")]
    assert 9 * S <= primary_set[0]["t_rel_ns"] < 9 * S + 100_000_000
