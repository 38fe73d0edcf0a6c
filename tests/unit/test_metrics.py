"""Metrics on hand-made records: MTT statistics, detection, failover, affected, CI."""

import math

import numpy as np
import pytest
from scipy import stats

from sctpbench.analysis import metrics
from sctpbench.analysis.metrics import DetectionModel, Failure, Message
from sctpbench.collectors import records

MS = 1_000_000


def _messages() -> list[Message]:
    # 100 messages every 20 ms over "primary" at 10 ms MTT; the failure at t=1000 ms
    # holds messages 50..74 until they arrive on "secondary" at t=1500 ms; 75.. are 10 ms again.
    out = []
    for seq in range(100):
        t = seq * 20 * MS
        if seq < 50:
            out.append(Message(seq, t, t + 10 * MS, "primary"))
        elif seq < 75:
            out.append(Message(seq, t, 1500 * MS, "secondary"))
        else:
            out.append(Message(seq, t, t + 10 * MS, "secondary"))
    return out


FAILURE = Failure("primary", 1000 * MS, "198.18.0.2")


def exact(value: float) -> object:
    """Equal but for float rounding: tighter than pytest.approx's 1e-6, which a unit off by one
    in a million (ns / 1000001) would pass."""
    return pytest.approx(value, rel=1e-12)


def test_mtt_statistics() -> None:
    s = metrics.mtt_stats(_messages())
    assert s["mtt_p50_ms"] == pytest.approx(10.0)
    assert s["mmtt_ms"] == pytest.approx(500.0)  # seq 50 generated at 1000 ms, delivered at 1500 ms
    assert s["mtt_mean_ms"] == pytest.approx((75 * 10 + sum(1500 - 20 * k for k in range(50, 75))) / 100)


def test_the_mtt_p50_is_the_median_of_distinct_times() -> None:
    # MTTs of 1..10 ms, so no two percentiles near the middle are equal: the median 5.5 ms, the
    # p99 9.91 ms (rank 8.91 between 9 and 10), the mean 5.5 ms and the MMTT 10 ms.
    msgs = [Message(k, k * 100 * MS, k * 100 * MS + (k + 1) * MS, "primary") for k in range(10)]
    s = metrics.mtt_stats([*msgs, Message(10, 2000 * MS, None, None)])  # an undelivered message has no MTT
    assert s == {"mtt_mean_ms": exact(5.5), "mtt_p50_ms": exact(5.5), "mtt_p99_ms": exact(9.91), "mmtt_ms": exact(10.0)}


def test_failover_is_first_delivery_on_another_path_after_the_failure() -> None:
    assert metrics.failover_ns(FAILURE, _messages()) == 500 * MS


def test_detection_uses_the_first_unreachable_or_pf_report_for_the_failed_peer_after_the_failure() -> None:
    changes = [
        (900 * MS, "198.18.0.2", "ADDR_UNREACHABLE"),   # before the failure: ignored
        (1700 * MS, "198.18.1.2", "ADDR_UNREACHABLE"),  # other peer: ignored
        (2400 * MS, "198.18.0.2", "ADDR_UNREACHABLE"),
        (2600 * MS, "198.18.0.2", "ADDR_AVAILABLE"),
    ]
    assert metrics.detection_ns(FAILURE, changes) == 1400 * MS
    assert metrics.detection_ns(FAILURE, changes[:2]) is None


def test_a_potentially_failed_report_detects_before_the_unreachable_one() -> None:
    """With PF on, the path is first reported potentially failed: detection is that report;
    unreachable_time_ms (states=ADDR_UNREACHABLE) keeps the later one."""
    changes = [
        (2100 * MS, "198.18.1.2", "ADDR_POTENTIALLY_FAILED"),  # other peer: ignored
        (2200 * MS, "198.18.0.2", "ADDR_POTENTIALLY_FAILED"),
        (2900 * MS, "198.18.0.2", "ADDR_UNREACHABLE"),
    ]
    assert metrics.detection_ns(FAILURE, changes) == 1200 * MS
    assert metrics.detection_ns(FAILURE, changes, ("ADDR_UNREACHABLE",)) == 1900 * MS
    assert metrics.detection_ns(FAILURE, changes[:2]) == 1200 * MS  # PF alone is a detection


def test_affected_counts_messages_above_the_pre_failure_p99() -> None:
    count, p99 = metrics.affected(FAILURE, _messages())
    assert p99 == pytest.approx(10.0)
    assert count == 25
    assert metrics.affected(None, _messages()) == (None, None)


def test_affected_needs_more_than_a_millisecond_above_the_p99() -> None:
    """A near-constant series: after the failure, messages 0.4 ms above the pre-failure p99
    (a clock read's worth) are not affected; 1.5 ms above are."""
    msgs = [Message(seq, seq * 20 * MS, seq * 20 * MS + 10 * MS + (seq % 3) * 100_000, "primary") for seq in range(50)]
    msgs += [Message(50 + k, (1000 + 20 * k) * MS, (1010 + 20 * k) * MS + 600_000, "primary") for k in range(10)]
    msgs += [Message(60 + k, (1200 + 20 * k) * MS, (1210 + 20 * k) * MS + 1_700_000, "secondary") for k in range(5)]
    count, p99 = metrics.affected(FAILURE, msgs)
    assert p99 == pytest.approx(10.2)
    assert count == 5


def test_lost_messages_count_as_sent_not_delivered() -> None:
    msgs = _messages()[:10] + [Message(10, 200 * MS, None, None)]
    m = metrics.run_metrics(msgs, 11, None, [])
    assert (m["messages_sent"], m["messages_delivered"]) == (11, 10)
    assert m["detection_time_ms"] is None and m["failover_time_ms"] is None


def test_detection_model_follows_the_rfc_timers() -> None:
    model = DetectionModel(rto_ms=200, rto_max_ms=800, path_max_retrans=2, rtt_ms=20, sack_delay_ms=10, message_interval_ms=20)
    assert model.model_ms == 200 + 400 + 800
    assert model.bound_ms == 1400 + 3 * (20 + 10 + 20 + 10) + 50
    capped = DetectionModel(rto_ms=1000, rto_max_ms=60000, path_max_retrans=5, rtt_ms=20, sack_delay_ms=200, message_interval_ms=20)
    assert capped.model_ms == 1000 + 2000 + 4000 + 8000 + 16000 + 32000


def test_confidence_interval_uses_students_t() -> None:
    s = metrics.mean_ci95([10.0, 12.0, 14.0])
    assert s["mean"] == pytest.approx(12.0)
    assert s["ci95"] == pytest.approx(4.302652729911275 * 2.0 / math.sqrt(3))
    assert metrics.mean_ci95([5.0]) == {"mean": 5.0, "ci95": None, "n": 1}
    assert metrics.mean_ci95([None, None])["mean"] is None


def test_record_parser_reads_every_kind_and_stops_at_a_torn_last_line() -> None:
    lines = [
        "#sctpbench-records\tv1\tclock=CLOCK_MONOTONIC\tunit=ns\n",
        "meta\trole\tclient\n",
        "param\t5\trto_min_ms\t200\n",
        "peer\t5\t198.18.0.2\n",
        "tx\t100\t0\t0\t200\t150\n",
        "addr\t300\t198.18.0.2\tADDR_UNREACHABLE\t0\n",
        "path\t400\t198.18.0.2\tINACTIVE\t4380\t2\t800\t1500\t0\n",
        "cc\t450\t198.18.1.2\t8760\t65536\t2904\t1452\n",
        "end\t500\t1\n",
        "tx\t600\t1\t0\t2",
    ]
    r = records.parse(lines)
    assert r.role == "client" and r.params == {"rto_min_ms": "200"} and r.peers == ["198.18.0.2"]
    assert r.tx == [records.Tx(100, 0, 0, 200, 150)]
    assert r.addr[0].state == "ADDR_UNREACHABLE"
    assert r.path[0] == records.PathSample(400, "198.18.0.2", "INACTIVE", 4380, 2, 800, 1500, False)
    assert r.cc == [records.CongestionSample(450, "198.18.1.2", 8760, 65536, 2904, 1452)]
    assert r.end == (500, 1)
    with pytest.raises(ValueError, match="bad 'tx' record"):
        records.parse(["tx\tx\t0\t0\t200\t150\n"])


def test_pf_model_and_bounds() -> None:
    from sctpbench.analysis.metrics import DetectionModel

    off = DetectionModel(rto_ms=300, rto_max_ms=2000, path_max_retrans=3, rtt_ms=20, sack_delay_ms=10, message_interval_ms=20)
    assert off.pf_model_ms is None and off.pf_bound_ms is None
    assert off.model_ms == 300 + 600 + 1200 + 2000 and off.bound_ms == 4100 + 4 * 60 + 50
    on = DetectionModel(rto_ms=300, rto_max_ms=2000, path_max_retrans=3, rtt_ms=20, sack_delay_ms=10, message_interval_ms=20,
                        pf_retrans=1)
    assert on.pf_model_ms == 900 and on.pf_bound_ms == 900 + 2 * 60 + 50
    # after PF, heartbeats every RTO/2 + [0, RTO): up to 1.5 RTO and a wheel bucket (64 ms) each;
    # the first interval only sends a heartbeat, each later one is a strike
    assert on.pf_bound_ms is not None
    assert on.bound_ms == on.pf_bound_ms + 2 * (1.5 * 1200 + 64 + 10) + (1.5 * 2000 + 64 + 10)
    assert on.model_ms == off.model_ms


def test_run_metrics_gives_every_figure_of_a_run_with_pf() -> None:
    """One association's figures, each computed here by hand from _messages() (see there)."""
    changes = [(2200 * MS, "198.18.0.2", "ADDR_POTENTIALLY_FAILED"), (2900 * MS, "198.18.0.2", "ADDR_UNREACHABLE")]
    mtts = [10.0] * 75 + [1500 - 20.0 * k for k in range(50, 75)]
    got = metrics.run_metrics(_messages() + [Message(100, 2000 * MS, None, None)], 101, FAILURE, changes)
    assert got == {
        "mtt_mean_ms": exact(sum(mtts) / 100), "mtt_p50_ms": exact(10.0),
        "mtt_p99_ms": exact(float(np.percentile(mtts, 99))), "mmtt_ms": exact(500.0),
        "detection_time_ms": exact(1200.0), "pf_detection_time_ms": exact(1200.0),
        "unreachable_time_ms": exact(1900.0), "failover_time_ms": exact(500.0),
        "messages_sent": 101, "messages_delivered": 100, "messages_affected": 25, "pre_failure_p99_ms": exact(10.0),
    }
    calm = metrics.run_metrics([], 0, None, changes)
    assert calm == {"mtt_mean_ms": None, "mtt_p50_ms": None, "mtt_p99_ms": None, "mmtt_ms": None, "detection_time_ms": None,
                    "pf_detection_time_ms": None, "unreachable_time_ms": None, "failover_time_ms": None, "messages_sent": 0,
                    "messages_delivered": 0, "messages_affected": None, "pre_failure_p99_ms": None}


def test_a_report_at_the_failures_instant_counts_and_a_delivery_before_it_does_not() -> None:
    assert metrics.detection_ns(FAILURE, [(1000 * MS, "198.18.0.2", "ADDR_UNREACHABLE")]) == 0
    early = [Message(0, 900 * MS, 950 * MS, "secondary"), Message(1, 1000 * MS, 1100 * MS, "primary"),
             Message(2, 1000 * MS, None, None), Message(3, 1000 * MS, 1300 * MS, "secondary")]
    assert metrics.failover_ns(FAILURE, early) == 300 * MS
    assert metrics.failover_ns(FAILURE, early[:3]) is None


def test_affected_needs_messages_before_the_failure_and_counts_from_one() -> None:
    one = [Message(0, 900 * MS, 910 * MS, "primary"), Message(1, 1000 * MS, 1500 * MS, "secondary")]
    assert metrics.affected(FAILURE, one) == (1, pytest.approx(10.0))
    assert metrics.affected(FAILURE, one[1:]) == (None, None)


def test_mean_ci95_is_students_half_width_over_the_present_values() -> None:
    assert metrics.mean_ci95([]) == {"mean": None, "ci95": None, "n": 0}
    assert metrics.mean_ci95([float("nan")]) == {"mean": None, "ci95": None, "n": 0}
    assert metrics.mean_ci95([4.0, None]) == {"mean": 4.0, "ci95": None, "n": 1}  # type: ignore[list-item]
    values = [100.0, 104.0, 102.0, 107.0]
    half = float(stats.t.ppf(0.975, 3)) * float(np.std(values, ddof=1)) / 2
    assert metrics.mean_ci95([*values, float("nan")]) == {"mean": pytest.approx(103.25), "ci95": pytest.approx(half), "n": 4}
    assert metrics.summarize([{"x": 1.0}, {"x": 3.0}], ["x"]) == {"x": metrics.mean_ci95([1.0, 3.0])}


def test_the_back_off_is_doubling_unless_the_kernel_says_a_percentage() -> None:
    assert metrics.backoff_pct({}) == metrics.DOUBLING_PCT == 200
    assert metrics.backoff_pct({"rto_backoff_pct": "0"}) == 200
    assert metrics.backoff_pct({"rto_backoff_pct": "150"}) == 150
    assert metrics.backoff_pct({"rto_backoff_pct": "x"}) == 200
    assert metrics.rto_series(0.75, 60000, 3) == [0.75, 1.5, 3.0]  # doubling keeps fractions; a percentage whole ms


def test_the_wheel_bucket_in_ms_scales_with_hz() -> None:
    assert metrics.timer_wheel_bucket_ms(4032, 1000) == 512.0
    assert metrics.timer_wheel_bucket_ms(1000, 250) == 32.0  # 250 jiffies: a bucket of 8 jiffies of 4 ms
    assert metrics.timer_wheel_bucket_ms(10, 1000) == 1.0


def test_affected_is_strictly_above_the_p99_plus_the_margin_and_the_p99_is_not_the_maximum() -> None:
    # Before the failure: 99 messages at 10 ms and one at 30 ms: the p99 is 10.2 ms (rank 98.01), not 30.
    before = [Message(k, k * MS, k * MS + (30 if k == 99 else 10) * MS, "primary") for k in range(100)]
    edge = 10 * MS + int(0.01 * 20 * MS) + metrics.AFFECTED_MARGIN_NS
    after = [Message(200, 1000 * MS, 1000 * MS + edge, "secondary"), Message(201, 1001 * MS, 1001 * MS + edge + 1, "secondary")]
    count, p99 = metrics.affected(FAILURE, before + after)
    assert p99 == exact(10.2)
    assert count == 2  # the one at 30 ms before the failure, and the one a ns past the line; not the one on it
    assert metrics.failover_ns(FAILURE, [Message(0, 990 * MS, 1000 * MS, "secondary")]) == 0
    # A constant 10 ms before: the line is at exactly 11 ms, and a message on it is not affected.
    flat = [Message(k, k * MS, k * MS + 10 * MS, "primary") for k in range(100)]
    on_line = [Message(200, 1000 * MS, 1000 * MS + 10 * MS + metrics.AFFECTED_MARGIN_NS, "secondary")]
    assert metrics.affected(FAILURE, flat + on_line) == (0, 10.0)


def test_across_associations_keeps_the_utilisation_given_and_no_counts_as_none() -> None:
    one = {"messages_sent": None, "messages_delivered": None, "messages_affected": None, "frames_late": None, "utilisation": 0.1}
    run = metrics.across_associations({"a": one, "b": dict(one)}, [], 0.7)
    assert run == {"messages_sent": None, "messages_delivered": None, "messages_affected": None, "frames_late": None,
                   "utilisation": 0.7}
    assert metrics.across_associations({}, [], 0.7)["utilisation"] == 0.7
