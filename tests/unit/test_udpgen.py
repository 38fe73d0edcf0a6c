"""sctpbench-udpgen, the background UDP generator, on the host's loopback (UDP needs no
guest): seeded exponential gaps, every datagram accounted for, bad options refused."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest
from scipy import stats

FOLDER = Path(__file__).resolve().parents[2] / "sctpbench" / "workloads" / "udpgen"
UDPGEN = FOLDER / "build" / "sctpbench-udpgen"


@pytest.fixture(scope="module", params=["release", "asan"])
def udpgen(request: pytest.FixtureRequest) -> Path:
    """The release build, and one under ASan + UBSan (built here: a memory error fails the test)."""
    if request.param == "release":
        return UDPGEN
    subprocess.run(["make", "-s", "-C", str(FOLDER), "sanitize"], check=True)
    return FOLDER / "build" / "sctpbench-udpgen-asan"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _send(udpgen: Path, tmp: Path, port: int, seed: int, records: str) -> list[list[str]]:
    sender = subprocess.Popen([str(udpgen), "send", "--local", "127.0.0.1", "--peer", "127.0.0.1", "--port", str(port),
                               "--size", "250", "--rate", "2000", "--arrival", "poisson", "--seed", str(seed),
                               "--duration", "500", "--records", str(tmp / records)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert sender.stdout and sender.stdin
    assert sender.stdout.readline() == "ready\n"
    sender.stdin.write(f"start {time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 50_000_000}\n")
    sender.stdin.flush()
    assert sender.wait(timeout=30) == 0
    return [line.split() for line in (tmp / records).read_text().splitlines()]


def test_poisson_datagrams_all_reach_the_sink_with_seeded_exponential_gaps(udpgen: Path, tmp_path: Path) -> None:
    port = _free_port()
    sink = subprocess.Popen([str(udpgen), "sink", "--local", "127.0.0.1", "--port", str(port), "--records",
                             str(tmp_path / "sink.rec")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert sink.stdout and sink.stdin
    assert sink.stdout.readline() == "ready\n"
    tx = _send(udpgen, tmp_path, port, 7, "send.rec")
    time.sleep(0.2)
    sink.stdin.close()
    assert sink.wait(timeout=10) == 0
    sent = [r for r in tx if r[0] == "tx"]
    rx = [r for r in (line.split() for line in (tmp_path / "sink.rec").read_text().splitlines()) if r[0] == "rx"]
    assert tx[-1] == ["end", str(len(sent))] and all(r[5] == "ok" and r[4] == "250" for r in sent)
    assert sorted(int(r[2]) for r in rx) == [int(r[3]) for r in sent]  # loopback loses nothing
    scheduled = [int(r[1]) for r in sent]
    gaps = [b - a for a, b in zip(scheduled, scheduled[1:], strict=False)]
    assert 700 < len(sent) < 1300  # 2000/s for 0.5 s
    assert stats.kstest(gaps, "expon", args=(0, 1e9 / 2000)).pvalue > 0.01
    # The same seed gives the same gaps, whatever the machine did meanwhile.
    again = [int(r[1]) for r in _send(udpgen, tmp_path, port, 7, "again.rec") if r[0] == "tx"]
    assert [b - a for a, b in zip(again, again[1:], strict=False)] == gaps


def test_every_64_bit_seed_is_taken(udpgen: Path, tmp_path: Path) -> None:
    """plan/traffic.py draws a flow's seed from 8 bytes of a hash: one above 1.8e19 (a real
    flow's, bgone of reproductions/003-background's first repetition) was refused before."""
    port = _free_port()
    sent = [r for r in _send(udpgen, tmp_path, port, 18032216791882665675, "big.rec") if r[0] == "tx"]
    assert 700 < len(sent) < 1300
    assert [r for r in _send(udpgen, tmp_path, port, 18446744073709551615, "max.rec") if r[0] == "tx"]  # 2⁶⁴ − 1 too
    r = subprocess.run([str(udpgen), "send", "--local", "127.0.0.1", "--port", "9", "--records", "/dev/null",
                        "--seed", "18446744073709551616"], capture_output=True, text=True)
    assert r.returncode == 2 and "bad --seed '18446744073709551616'" in r.stderr


def test_bad_options_are_refused_with_usage(udpgen: Path) -> None:
    r = subprocess.run([str(udpgen), "send", "--local", "127.0.0.1", "--port", "9", "--records", "/dev/null",
                        "--arrival", "saturate"], capture_output=True, text=True)
    assert r.returncode == 2 and "bad --arrival (periodic or poisson) 'saturate'" in r.stderr
    r = subprocess.run([str(udpgen), "send", "--local", "127.0.0.1", "--port", "9", "--records", "/dev/null"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "send needs" in r.stderr
