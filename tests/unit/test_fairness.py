"""The competing TCP flows' throughput and Jain's fairness index (analysis/fairness.py), on real
recorded data: iperf3's JSON with two connections, and a recorded run with a TCP flow beside an
association, collected again from its records."""

import json
import shutil
from pathlib import Path

import pytest

from sctpbench.analysis import fairness, store
from sctpbench.analysis import traffic as flows
from sctpbench.collectors import records
from sctpbench.collectors import traffic as tcp_records
from sctpbench.results import summary as results_summary

DATA = Path(__file__).resolve().parents[1] / "data"
# `iperf3 -s -1 -B 127.0.0.1` and `iperf3 -c 127.0.0.1 -t 2 -i 0.5 -P 2 -C reno -b 20M -J` (iperf 3.12).
PARALLEL_JSON = DATA / "fixtures" / "iperf3-loopback-parallel2.json"
# A recorded run (UML guest, virtual time): association `main` beside the cubic TCP flow `bulk`.
RUN = next((DATA / "live-view").glob("live-view-panels-*")) / "run-001"


def test_jain_index_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() -> None:
    assert fairness.jain_index([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert fairness.jain_index([6.0, 0.0, 0.0]) == pytest.approx(1 / 3)
    assert fairness.jain_index([4.0, 1.0]) == pytest.approx(25 / 34)
    assert fairness.jain_index([]) is None and fairness.jain_index([0.0, 0.0]) is None


def test_each_connection_of_a_parallel_flow_counts_and_they_add_up_to_the_flow() -> None:
    result = tcp_records.read_iperf3(PARALLEL_JSON)
    doc = json.loads(PARALLEL_JSON.read_text())
    assert [len(i.stream_bytes) for i in result.intervals] == [len(i["streams"]) for i in doc["intervals"]] == [2] * 4
    per = flows.connection_throughputs_bps(result)
    assert len(per) == 2
    # Each connection with what its receiver got; together the flow's.
    assert sum(per) == pytest.approx(flows.mean_throughput_bps(result))
    assert per[0] == doc["end"]["streams"][0]["receiver"]["bits_per_second"]


def test_a_recorded_run_collected_again_has_the_tcp_throughput_and_the_index(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    got = store.collect(run)
    tcp = tcp_records.read_iperf3(run / "traffic" / "bulk.json")
    tcp_bps = flows.mean_throughput_bps(tcp)
    assert tcp_bps is not None and got["metrics"]["competing_tcp_mbps"] == pytest.approx(tcp_bps / 1e6)
    # The association's goodput: the payload its server received over its workload's 3 s.
    received = records.read(run / "records" / "main.server.rec").rx
    plan = json.loads((run / "plan.json").read_text())
    duration_s = plan["associations"][0]["workload"]["duration_ns"] / 1e9
    goodput = sum(r.size for r in received) * 8 / duration_s
    assert got["associations"]["main"]["goodput_bps"] == pytest.approx(goodput)
    jain = (tcp_bps + goodput) ** 2 / (2 * (tcp_bps**2 + goodput**2))
    assert got["metrics"]["jain_fairness"] == pytest.approx(jain)
    assert 0.5 < jain < 0.52  # a 80 kbit/s association beside an 11 Mbit/s flow: nearly one flow's whole share
    written = results_summary.read(run)
    assert written is not None and written.metrics.jain_fairness == pytest.approx(jain)


def test_without_competing_tcp_both_are_none() -> None:
    assert fairness.competing_metrics({}, [1e6]) == {"competing_tcp_mbps": None, "jain_fairness": None}
    udp_only = {"bg": {"kind": "udp", "achieved_bps": 2e6}}
    assert fairness.competing_metrics(udp_only, [1e6]) == {"competing_tcp_mbps": None, "jain_fairness": None}
