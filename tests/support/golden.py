"""The golden experiments: examples whose run id and metrics must not move on the same
kernel (issue 32: a change for speed must not change results). tests/guest/test_golden.py
runs each and compares it with its record in tests/data/golden_results/; after a change that moves
results on purpose, record them again and say why in the commit:

    .venv/bin/python -m tests.support.golden

A record holds the kernel it was made on (its source package and configuration hash):
on another kernel the figures are not comparable and the test says so.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

from tests.support.guest_run import run_file

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden_results"
EXPERIMENTS = ("failover", "handover")
# A checkout in another folder may still move per-message times by one 256 ns clock read
# (docs/clocks.md, "What moves a run's figures": the failover example from /work and /tmp).
TOLERANCE_MS = 0.002


def run(name: str, out: Path) -> Path:
    """examples/NAME.yaml run as a user runs it; its run folder."""
    return run_file(ROOT / "examples" / f"{name}.yaml", out)


def record_of(run_dir: Path) -> dict[str, Any]:
    """What a golden record keeps of a run: the kernel, the run id, the metrics, the paths used."""
    summary = json.loads((run_dir / "summary.json").read_text())
    guest = json.loads((run_dir / "guest.json").read_text())
    return {"kernel": {"source": guest["source"], "config_sha256": guest["config_sha256"]},
            "run_id": summary["run_id"], "status": summary["status"], "paths_used": summary["paths_used"],
            "metrics": summary["metrics"]}


def differences(golden: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Each way `now` departs from `golden`: exact for counts and names, TOLERANCE_MS for times."""
    out = [f"{key}: {golden[key]!r} → {now[key]!r}" for key in ("run_id", "status", "paths_used") if golden[key] != now[key]]
    for name in sorted(set(golden["metrics"]) | set(now["metrics"])):
        a, b = golden["metrics"].get(name), now["metrics"].get(name)
        if isinstance(a, float) and isinstance(b, float) and name.endswith("_ms"):
            if not (math.isclose(a, b, rel_tol=0, abs_tol=TOLERANCE_MS) or (math.isnan(a) and math.isnan(b))):
                out.append(f"metrics.{name}: {a} → {b}")
        elif a != b:
            out.append(f"metrics.{name}: {a!r} → {b!r}")
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXPERIMENTS:
            record = record_of(run(name, Path(tmp) / name))
            (GOLDEN / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            print(f"{name}: run {record['run_id']} recorded on {record['kernel']['source']}")


if __name__ == "__main__":
    main()
