"""The second SCTP stack (usrsctp, docs/stacks.md) in real runs (guest): an association on
it carries messages over UDP encapsulation on both paths with the one-way delay of its
primary, its parameters are read back as requested, and the CMT defect: with CMT on, a
path marked unreachable keeps getting new data for the whole outage.

Paths `a` and `b`, 10 ms each way; 200-byte messages every 20 ms.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sctpbench.collectors import records
from sctpbench.results import summary
from tests.support.guest_run import run_experiment

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
AGENT = AGENT_DIR / "build/sctpbench-agent"
ENCAPS_PORT = 9899  # the usrsctp agent's default UDP encapsulation port
CLIENT = {"a": "198.18.0.1", "b": "198.18.1.1"}
SERVER = {"a": "198.18.0.2", "b": "198.18.1.2"}

EXPERIMENT = """\
name: NAME
topology:
  hosts: [client, server]
  paths:
    a: {between: [client, server], delay: 10ms, rate: 100mbit}
    b: {between: [client, server], delay: 10ms, rate: 100mbit}
sctp: {nodelay: true, rto_initial: 200ms, rto_min: 200ms, rto_max: 400ms, path_max_retrans: 1, hb_interval: 200ms,
       sack_delay: 10ms, max_burst: 0, streams: 2}
workload: {client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: DURATION, streams: 2,
           stack: usrsctp, usrsctp: USRSCTP}
measure: {capture: true}
"""


@pytest.fixture
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all", "usrsctp"], check=True, capture_output=True, text=True)


def _run(tmp_path: Path, name: str, usrsctp: str, duration: str, extra: str = "") -> Path:
    text = EXPERIMENT.replace("NAME", name).replace("USRSCTP", usrsctp).replace("DURATION", duration) + extra
    return run_experiment(tmp_path, text, name, os.environ | {"SCTPBENCH_AGENT": str(AGENT)})


def _data_sent(run_dir: Path) -> list[tuple[float, str, int]]:
    """(capture time s, destination, TSN) of each DATA chunk the client sent, on either path,
    decoded as SCTP over UDP; in time order. The raw TSN: tshark's `sctp.data_tsn` counts
    from each capture file's first one, so two files' would not compare."""
    sent = []
    for path in ("a", "b"):
        out = subprocess.run(
            ["tshark", "-r", str(run_dir / "captures" / f"{path}-client.pcap"), "-d", f"udp.port=={ENCAPS_PORT},sctp",
             "-Y", f"ip.src=={CLIENT[path]} && sctp.data_tsn", "-T", "fields", "-e", "frame.time_epoch", "-e", "ip.dst",
             "-e", "sctp.data_tsn_raw"], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            t, dst, tsns = line.split("\t")
            sent += [(float(t), dst, int(tsn)) for tsn in tsns.split(",")]
    return sorted(sent)


def test_usrsctp_association_carries_messages_and_reads_back_its_parameters(built: None, tmp_path: Path) -> None:
    run_dir = _run(tmp_path, "usrsctp", "{stream_scheduler: round-robin}", "2s")
    client = records.read(run_dir / "records" / "main.client.rec")
    params = client.params
    assert params["stack"] == "usrsctp"
    assert {k: params[k] for k in ("rto_initial_ms", "rto_min_ms", "rto_max_ms", "path_max_retrans", "hb_interval_ms",
                                   "sack_delay_ms", "nodelay", "max_burst", "cmt", "stream_scheduler", "streams_out")} == {
        "rto_initial_ms": "200", "rto_min_ms": "200", "rto_max_ms": "400", "path_max_retrans": "1",
        "hb_interval_ms": "200", "sack_delay_ms": "10", "nodelay": "1", "max_burst": "0", "cmt": "0",
        "stream_scheduler": "round-robin", "streams_out": "2"}
    m = summary.read(run_dir)
    assert m is not None
    metrics = m.metrics
    assert metrics.messages_sent == metrics.messages_delivered == 100
    # Everything on the primary (CMT off): one way 10 ms, plus at most the guest's scheduling.
    assert metrics.mtt_p50_ms is not None and metrics.mtt_p99_ms is not None
    assert 10.0 <= metrics.mtt_p50_ms <= 10.5 and metrics.mtt_p99_ms <= 11.0, metrics
    # Both paths carry SCTP inside UDP from the right source address: DATA on a, heartbeats on b.
    sent = _data_sent(run_dir)
    assert {dst for _, dst, _ in sent} == {SERVER["a"]}
    heartbeats = subprocess.run(
        ["tshark", "-r", str(run_dir / "captures" / "b-client.pcap"), "-d", f"udp.port=={ENCAPS_PORT},sctp",
         "-Y", "sctp.chunk_type == 4", "-T", "fields", "-e", "ip.src"], check=True, capture_output=True, text=True).stdout
    assert CLIENT["b"] in heartbeats.split()


def test_cmt_keeps_sending_new_data_to_an_unreachable_path(built: None, tmp_path: Path) -> None:
    """The defect: with CMT on (SCTP_CMT_ON_OFF 1) path b fails at 1 s; usrsctp marks it
    unreachable (the client's `addr` record) yet keeps sending new TSNs to it, each stalled
    an RTO before it is retransmitted on a."""
    run_dir = _run(tmp_path, "cmt", "{cmt: 1}", "4s", "events:\n  - {at: 1s, fail: b}\n")
    client = records.read(run_dir / "records" / "main.client.rec")
    assert client.params["cmt"] == "1"
    unreachable = [a for a in client.addr if a.state == "ADDR_UNREACHABLE"]
    assert [a.addr for a in unreachable] == [SERVER["b"]]
    sent = _data_sent(run_dir)
    first_sent: dict[int, tuple[float, str]] = {}
    for t, dst, tsn in sent:
        first_sent.setdefault(tsn, (t, dst))
    # The last 2 s of sending start 1 s after the failure, past its detection
    # (RTO 200 + 400 ms with path_max_retrans 1).
    end = sent[-1][0]
    late = [dst for t, dst in first_sent.values() if t >= end - 2.0]
    to_b = late.count(SERVER["b"])
    assert to_b >= 10, f"{to_b} new TSNs to the unreachable path in the last 2 s"
    # Each went out again on a: after the failure, a carries retransmissions.
    again_on_a = [t for t, dst, tsn in sent if dst == SERVER["a"] and first_sent[tsn] != (t, dst) and t >= end - 2.0]
    assert len(again_on_a) >= to_b // 2, (len(again_on_a), to_b)
    m = summary.read(run_dir)
    assert m is not None
    metrics = m.metrics
    assert metrics.messages_sent == metrics.messages_delivered == 200
    # Each of them waited an RTO: the mean one-way time is far above the 10 ms of path a.
    assert metrics.mtt_p99_ms is not None and metrics.mtt_p99_ms >= 200, metrics
