"""The wire against the timer model: every retransmission timeout of a failed path, read
from the client's own captures, comes one RTO (doubling, or the project kernel's relaxed back-off, capped at RTO.max) after the
timer started, within the guest kernel's timer-wheel granularity; and the reported
detection time is the last of them. On virtual time, so host load cannot move them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sctpbench.analysis import expiries

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, *overrides: str) -> dict:
    argv = [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples" / "failover.yaml"), "--json",
            "--out", str(tmp_path), "--set", "measure.capture=true", "--set", "clock=virtual"]
    for o in overrides:
        argv += ["--set", o]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["runs"][0]


@pytest.mark.parametrize("overrides, rtos", [
    ((), [200, 400, 800]),  # the example: RTO 200 ms, PMR 2, RTO.max 800 ms
    (("sctp.rto_max=400ms", "sctp.path_max_retrans=3"), [200, 400, 400, 400]),  # capped at RTO.max
    # Unset, with RTO.max unmodified (60 s, as seed 000 Paper II keeps it): the stock kernel's doubling.
    (("sctp.rto_max=60s", "sctp.path_max_retrans=3"), [200, 400, 800, 1600]),
    # ... and 200 % set explicitly (the reproduction's doubling runs) is the same doubling.
    (("sctp.rto_backoff_percent=200", "sctp.rto_max=60s", "sctp.path_max_retrans=3"), [200, 400, 800, 1600]),
    # The project kernel's relaxed back-off (seed 000 Paper II): the RTO times 1.5 per timeout.
    (("sctp.rto_backoff_percent=150", "sctp.path_max_retrans=3", "sctp.rto_max=2s"), [200, 300, 450, 675]),
    (("sctp.rto_backoff_percent=100", "sctp.path_max_retrans=3"), [200, 200, 200, 200]),  # no back-off at all
], ids=["doubling", "capped", "unset-rto-max-60s", "set-200", "relaxed-150", "relaxed-100"])
def test_each_timeout_follows_the_rto_and_detection_is_the_last(tmp_path: Path, overrides: tuple[str, ...], rtos: list[int]) -> None:
    run = _run(tmp_path, *overrides)
    found = expiries.analyse(Path(run["directory"]))
    assert found.path == "primary"
    assert [e.rto_ms for e in found.expiries] == rtos, [e.gap_ms for e in found.expiries]
    for e in found.expiries:
        assert e.within, f"timeout {e.index}: {e.gap_ms:.3f} ms after its start; RTO {e.rto_ms} ms, bucket {e.granularity_ms} ms"
    lag = found.detection_after_last_expiry_ms
    assert lag is not None and abs(lag) <= 5.0
    detection = run["metrics"]["detection_time_ms"]
    assert abs(detection - (found.expiries[-1].expired_ns - found.failed_ns) / 1e6) <= 5.0
    # The summary's timer model is the same RTO sequence, so detection stays checked against it.
    model = json.loads((Path(run["directory"]) / "summary.json").read_text())["detection_model"]
    assert model["model_ms"] == sum(rtos) and detection <= model["bound_ms"], (model, detection)
    # ... for the back-off the kernel read back: unset is 0 there (stock), doubling in the model.
    pct = next((int(o.split("=")[1]) for o in overrides if o.startswith("sctp.rto_backoff_percent=")), None)
    sysctl = json.loads((Path(run["directory"]) / "kernel.json").read_text())["sysctl"]["client"]
    assert (sysctl["rto_backoff_pct"], model["backoff_pct"]) == (str(pct or 0), pct or 200)


def test_pf_is_reported_at_the_timeout_that_makes_the_path_potentially_failed(tmp_path: Path) -> None:
    # pf_retrans 1: the path goes PF at the second timeout, and traffic leaves it then;
    # UNREACHABLE comes later, from heartbeats, within its own bound.
    run = _run(tmp_path, "sctp.pf_enable=true", "sctp.pf_retrans=1", "sctp.rto_initial=300ms", "sctp.rto_min=300ms",
               "sctp.rto_max=2s", "sctp.path_max_retrans=3", "workload.duration=12s")
    found = expiries.analyse(Path(run["directory"]))
    assert len(found.expiries) >= 2 and all(e.within for e in found.expiries[:2]), [e.gap_ms for e in found.expiries]
    second = (found.expiries[1].expired_ns - found.failed_ns) / 1e6
    m, model = run["metrics"], run["detection_model"]
    assert abs(m["pf_detection_time_ms"] - second) <= 20.0
    assert m["detection_time_ms"] == m["pf_detection_time_ms"]  # the first of the two
    assert model["pf_retrans"] == 1 and model["pf_model_ms"] == 900
    assert m["pf_detection_time_ms"] <= model["pf_bound_ms"]
    assert second < m["unreachable_time_ms"] <= model["bound_ms"]
