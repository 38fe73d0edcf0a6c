"""The timer model the capture analysis checks against: the kernel's timer-wheel buckets."""

import json
import struct
from pathlib import Path

import pytest

from sctpbench.analysis import expiries, metrics
from sctpbench.collectors import captures
from sctpbench.model import spec
from sctpbench.outputs import summary_text
from sctpbench.plan import build as plan
from sctpbench.plan.data import Plan
from sctpbench.results.jsonfile import ResultsFileError
from sctpbench.results.summary import RunMetrics
from tests.support import packets

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("delta, bucket", [
    (1, 1), (62, 1), (63, 8), (200, 8), (503, 8), (504, 64), (800, 64), (1000, 64), (4031, 64), (4032, 512),
])
def test_wheel_bucket_by_level(delta: int, bucket: int) -> None:
    assert metrics.timer_wheel_bucket_jiffies(delta) == bucket


def test_a_one_second_timer_at_hz_1000_may_fire_64_ms_late() -> None:
    # PLATFORM.md: a 1 s RTO was seen to fire after 1024 ms on the project's kernel.
    expiry = expiries.Expiry(0, 0, 1_024_000_000, 1000.0, metrics.timer_wheel_bucket_jiffies(1000) * 1.0)
    assert expiry.within
    assert not expiries.Expiry(0, 0, 1_066_000_000, 1000.0, 64.0).within
    assert not expiries.Expiry(0, 0, 998_000_000, 1000.0, 64.0).within


def test_the_model_doubles_and_caps() -> None:
    assert metrics.rto_series(200, 800, 5) == [200, 400, 800, 800, 800]
    assert metrics.rto_series(1000, 60000, 3) == [1000, 2000, 4000]


def test_a_relaxed_back_off_grows_the_rto_by_its_percentage_in_whole_ms() -> None:
    # The project kernel's net.sctp.rto_backoff_pct: rto * pct / 100, truncated, capped at RTO.max.
    assert metrics.rto_series(1000, 60000, 4, 150) == [1000, 1500, 2250, 3375]
    assert metrics.rto_series(333, 60000, 3, 150) == [333, 499, 748]
    assert metrics.rto_series(1000, 60000, 3, 100) == [1000, 1000, 1000]
    assert metrics.rto_series(200, 800, 5, 200) == metrics.rto_series(200, 800, 5)
    model = metrics.DetectionModel(rto_ms=1000, rto_max_ms=60000, path_max_retrans=3, rtt_ms=20, sack_delay_ms=10,
                                   message_interval_ms=20, backoff_pct=150)
    assert model.model_ms == 1000 + 1500 + 2250 + 3375
    assert model.bound_ms == model.model_ms + 4 * (20 + 10 + 20 + 10) + 50


def test_the_back_off_is_read_back_from_the_clients_namespace() -> None:
    assert metrics.backoff_pct({"rto_backoff_pct": "150"}) == 150
    assert metrics.backoff_pct({"rto_backoff_pct": "0"}) == metrics.backoff_pct({}) == 200


def _model_dict(backoff_pct: int) -> dict[str, float]:
    """The summary's detection_model as store.py writes it, from the real model."""
    model = metrics.DetectionModel(rto_ms=100, rto_max_ms=60000, path_max_retrans=2, rtt_ms=20, sack_delay_ms=40,
                                   message_interval_ms=20, backoff_pct=backoff_pct)
    return {"rto_at_failure_ms": model.rto_ms, "rto_max_ms": model.rto_max_ms, "path_max_retrans": 2,
            "model_ms": model.model_ms, "bound_ms": model.bound_ms, "backoff_pct": model.backoff_pct, "pf_retrans": None}


def test_the_run_summary_names_the_back_off_its_model_follows_and_flags_a_detection_beyond_the_bound() -> None:
    # Seed 000 Paper II's relaxed back-off: the line must not call a 150 % model the RFC's.
    relaxed = _model_dict(150)
    [line] = summary_text.failure_lines(RunMetrics(detection_time_ms=400.0), relaxed)
    assert "timer model with back-off 150 % 475 ms from RTO 100 ms" in line and "RFC" not in line
    assert "BEYOND" not in line
    [late] = summary_text.failure_lines(RunMetrics(detection_time_ms=relaxed["bound_ms"] + 1), relaxed)
    assert late.endswith(", BEYOND THE BOUND)")
    [stock] = summary_text.failure_lines(RunMetrics(detection_time_ms=700.0), _model_dict(200))
    assert "(RFC timer model 700 ms from RTO 100 ms" in stock


def test_new_data_sent_in_a_timeouts_instant_on_another_path_is_not_marked_by_it() -> None:
    """usrsctp's timer thread retransmits on the alternate path and sends new data on the failed
    one in the same instant; each path's send time is its capture less its own egress-lag
    estimate, and with capture times read as float seconds the new data came out 256 ns
    *before* the retransmission (tests/guest/test_usrsctp_timers.py, 1 run in 30). Its own
    timeout is the next expiry."""
    ms = 1_000_000
    sent = [
        expiries._Sent(2520 * ms, "primary", [1]),
        expiries._Sent(2740 * ms, "secondary", [1]),  # expiry 1: 200 ms after the first send
        expiries._Sent(2760 * ms, "primary", [2]),
        expiries._Sent(3160 * ms, "primary", [3]),  # new data, in expiry 2's instant
        expiries._Sent(3160 * ms + 256, "secondary", [2]),  # expiry 2: 400 ms after [2]
        expiries._Sent(3960 * ms, "secondary", [3]),  # expiry 3: 800 ms after [3]
    ]
    bursts = expiries._expiry_bursts(sent, [], failed_ns=2500 * ms)
    assert [(b.t_ns // ms, b.earliest_tsn) for b in bursts] == [(2740, 1), (3160, 2), (3960, 3)]
    assert expiries._next_send(sent, "primary", bursts[1].t_ns) == 3160 * ms  # expiry 3's timer started with [3]


def test_chunks_outstanding_at_a_timeout_that_go_out_later_are_not_a_timeout() -> None:
    ms = 1_000_000
    sent = [
        expiries._Sent(2520 * ms, "primary", [1]),
        expiries._Sent(2539 * ms, "primary", [2]),  # outstanding at expiry 1
        expiries._Sent(2740 * ms, "secondary", [1]),  # expiry 1; the alternate's window holds one chunk
        expiries._Sent(2760 * ms, "secondary", [2]),  # marked at expiry 1, out with the next send
    ]
    bursts = expiries._expiry_bursts(sent, [], failed_ns=2500 * ms)
    assert [(b.t_ns // ms, b.earliest_tsn) for b in bursts] == [(2740, 1)]


def test_retransmissions_a_sack_let_out_are_not_a_timeout() -> None:
    """A SACK arriving after the failure (from before it, on the alternate path) opens the
    window: what the sender retransmits in that instant is no expiry; the same burst without
    the SACK is one, and so is a later burst no SACK explains."""
    ms = 1_000_000
    sent = [
        expiries._Sent(2490 * ms, "primary", [1]),
        expiries._Sent(2495 * ms, "primary", [2]),
        expiries._Sent(2600 * ms, "secondary", [1]),  # 300 µs after a SACK: released by it
        expiries._Sent(2700 * ms, "secondary", [2]),  # no SACK near: the timer's
    ]
    sack = 2600 * ms - 300_000
    assert [b.t_ns // ms for b in expiries._expiry_bursts(sent, [sack], failed_ns=2500 * ms)] == [2700]
    assert [b.t_ns // ms for b in expiries._expiry_bursts(sent, [], failed_ns=2500 * ms)] == [2600]
    # A SACK just after the retransmission explains nothing.
    assert [b.t_ns // ms for b in expiries._expiry_bursts(sent, [2600 * ms + 1], failed_ns=2500 * ms)] == [2600]


def test_the_first_timer_starts_at_the_last_sack_on_the_failed_path_before_the_failure() -> None:
    """A SACK restarts the running T3-rtx timer: the first expiry counts from the last SACK that
    reached the sender on the failed path before the failure, when later than the lost chunk's
    send; a SACK on the other path, or after the failure, does not count."""
    ms = 1_000_000
    sent = [expiries._Sent(2400 * ms, "primary", [1]), expiries._Sent(2800 * ms, "secondary", [1])]
    burst = expiries._Burst(2800 * ms, 1)
    sacks = [(2410 * ms, "primary"), (2450 * ms, "primary"), (2470 * ms, "secondary"), (2510 * ms, "primary")]
    assert expiries._first_start(sent, sacks, "primary", 2500 * ms, burst) == 2450 * ms
    assert expiries._first_start(sent, [(2300 * ms, "primary")], "primary", 2500 * ms, burst) == 2400 * ms
    assert expiries._first_start(sent, [], "primary", 2500 * ms, burst) == 2400 * ms


def test_the_burst_rules_at_their_edges() -> None:
    """Each rule of _expiry_bursts at the nanosecond where it turns (virtual time makes ties real)."""
    ms, us = 1_000_000, 1_000

    def times(sent: list[expiries._Sent], sacks: list[int] | None = None) -> list[float]:
        return [b.t_ns / ms for b in expiries._expiry_bursts(sent, sacks or [], failed_ns=2500 * ms)]

    first = [expiries._Sent(2400 * ms, "primary", [1]), expiries._Sent(2450 * ms, "primary", [2])]
    # Before the failure a retransmission is no expiry; at its very instant it is.
    assert times([*first, expiries._Sent(2499 * ms, "secondary", [1])]) == []
    assert times([*first, expiries._Sent(2500 * ms, "secondary", [1])]) == [2500]
    # A SACK in the same nanosecond releases; one a whole SAME_INSTANT_NS earlier does not.
    retransmit = [*first, expiries._Sent(2600 * ms, "secondary", [1])]
    assert times(retransmit, [2600 * ms]) == []
    assert times(retransmit, [2600 * ms - expiries.SAME_INSTANT_NS]) == [2600]
    # Within one instant of a burst, a retransmission of a chunk sent in that instant is the same
    # burst; SAME_INSTANT_NS later it is the next one.
    burst = [*first, expiries._Sent(2700 * ms - 5 * us, "primary", [3]), expiries._Sent(2700 * ms, "secondary", [1])]
    assert times([*burst, expiries._Sent(2700 * ms + 500 * us, "secondary", [3])]) == [2700]
    assert times([*burst, expiries._Sent(2701 * ms, "secondary", [3])]) == [2700, 2701]
    # Sent ACROSS_PATHS_NS before the burst is still sent in its instant (not marked by it).
    edge = [*first, expiries._Sent(2700 * ms - expiries.ACROSS_PATHS_NS, "primary", [3]),
            expiries._Sent(2700 * ms, "secondary", [1]), expiries._Sent(2900 * ms, "secondary", [3])]
    assert times(edge) == [2700, 2900]
    # A chunk marked by a timeout that goes out later is skipped, and the bursts after it still count.
    marked = [*first, expiries._Sent(2700 * ms, "secondary", [1]), expiries._Sent(2710 * ms, "secondary", [2]),
              expiries._Sent(2720 * ms, "primary", [4]), expiries._Sent(3120 * ms, "secondary", [4])]
    assert times(marked) == [2700, 3120]


def test_a_sack_at_the_failures_instant_and_a_send_at_the_edge_of_an_expiry() -> None:
    ms = 1_000_000
    sent = [expiries._Sent(2400 * ms, "primary", [1]), expiries._Sent(2800 * ms, "secondary", [1]),
            expiries._Sent(2800 * ms - expiries.ACROSS_PATHS_NS, "primary", [2])]
    burst = expiries._Burst(2800 * ms, 1)
    assert expiries._first_start(sent, [(2500 * ms, "primary")], "primary", 2500 * ms, burst) == 2400 * ms
    assert expiries._next_send(sorted(sent, key=lambda s: s.t_ns), "primary", 2800 * ms) == 2800 * ms - expiries.ACROSS_PATHS_NS


# analyse() on a whole run folder written here: plan.json, backend.json's clock anchor,
# kernel.json's HZ and back-off, the timeline, the client's records, and its two captures.
# Times below are ms after t0 on the agents' clock; a capture's time is the same instant on
# CLOCK_REALTIME (packets.T0 is t0 there).

T0_MONO_NS = 10_000_000_000
PRIMARY_LAG_MS, ALTERNATE_LAG_MS = 0.1, 2.0  # each path's egress qdisc delay before its capture


def _mono(t_ms: float) -> int:
    return T0_MONO_NS + round(t_ms * 1e6)


def _data(*chunks: tuple[int, float]) -> bytes:
    """DATA chunks (TSN, generation time in ms) with the agent's header (B and E bits)."""
    out = b""
    for tsn, gen_ms in chunks:
        out += struct.pack("!BBHIHHI", captures.CHUNK_DATA, 0x03, 32, tsn, 0, tsn & 0xFFFF, 0)
        out += struct.pack("!QQ", tsn, _mono(gen_ms))
    return packets.sctp(40000, 5000, out)


def _heartbeat_ack() -> bytes:
    return packets.sctp(5000, 40000, struct.pack("!BBHHH", 5, 0, 8, 1, 4))


def _run_folder(run: Path, experiment: str, overrides: list[str], association: str, failed: str, alternate: str,
                *, last_sack_ms: float = 4985.0, second_expiry: tuple[tuple[int, float], ...] = ((22, 5200.0),)) -> None:
    """A failover of `failed` at 5000 ms, as `association`'s client captured it.

    On `failed`: TSNs 9-11 sent at 4940, 4960, 4980; SACKs at 4950 and `last_sack_ms` (which
    acks 10, so the timer guarding 11 restarts then), a HEARTBEAT-ACK at 4990 (no SACK); new
    data 12-20 every 20 ms from 5005. On `alternate`: a SACK at 4992 and one at 5100 that
    releases a retransmission of 11 (sent 5100.2: no timeout); expiry 0 at 5185 retransmits
    11-20; new data there at 5186 and 5600. The failed path carries 22 at 5200 and 23 at 5510,
    each retransmitted on `alternate` by the next expiry, at 5500 (with `second_expiry`'s
    chunks) and 5960."""
    p = plan.build(spec.load(ROOT / "examples" / experiment, overrides), 1, "agent")
    owner = p.association(association)
    local = {a.path: a.client_address for a in reversed(owner.paths)}
    peer = {a.path: a.server_address for a in reversed(owner.paths)}
    run.mkdir(parents=True)
    (run / "plan.json").write_text(p.to_json())
    (run / "backend.json").write_text(json.dumps({"ok": True, "t0_ns": T0_MONO_NS, "t0_realtime_ns": packets.T0}))
    (run / "kernel.json").write_text(json.dumps({"hz": 250, "sysctl": {owner.client: {"rto_backoff_pct": "150"},
                                                                     owner.server: {"rto_backoff_pct": "0"}}}))
    events = [("delay", alternate, 3000), ("fail", failed, 5000), ("fail", alternate, 7000)]
    (run / "events.jsonl").write_text("".join(json.dumps(
        {"kind": kind, "target": target, "at_ns": ms * 1_000_000, "scheduled_ns": _mono(ms - 2),
         "issued_ns": _mono(ms - 1), "applied_ns": _mono(ms), "lag_ns": 2_000_000}) + "\n" for kind, target, ms in events))
    (run / "records").mkdir()
    fp, ap = peer[failed], peer[alternate]
    (run / owner.client_records).write_text("".join(line + "\n" for line in [
        "meta\trole\tclient", "param\t0\trto_max_ms\t800",
        f"path\t{_mono(4000)}\t{fp}\tACTIVE\t4380\t100\t300\t1500\t1",
        f"path\t{_mono(4990)}\t{fp}\tACTIVE\t4380\t100\t250\t1500\t1",
        f"path\t{_mono(4995)}\t{ap}\tACTIVE\t4380\t100\t999\t1500\t0",
        f"path\t{_mono(5000)}\t{fp}\tACTIVE\t4380\t100\t200\t1500\t1",  # at the failure's instant: the RTO then
        f"path\t{_mono(5100)}\t{fp}\tACTIVE\t4380\t100\t400\t1500\t1",
        f"addr\t{_mono(4500)}\t{fp}\tADDR_UNREACHABLE\t0",  # an outage before this failure
        f"addr\t{_mono(5500)}\t{fp}\tADDR_POTENTIALLY_FAILED\t0",
        f"addr\t{_mono(5700)}\t{ap}\tADDR_UNREACHABLE\t0",
        f"addr\t{_mono(5961)}\t{fp}\tADDR_UNREACHABLE\t0",
    ]))
    out_failed = [(9, 4940.0), (10, 4960.0), (11, 4980.0)] + [(12 + k, 5005.0 + 20 * k) for k in range(9)]
    on_failed = [(gen + PRIMARY_LAG_MS, local[failed], fp, _data((tsn, gen))) for tsn, gen in out_failed]
    on_failed += [(gen + PRIMARY_LAG_MS, local[failed], fp, _data((tsn, gen))) for tsn, gen in [(22, 5200.0), (23, 5510.0)]]
    on_failed += [(4950.0, fp, local[failed], packets.sctp(5000, 40000, packets.sack_chunk(8))),
                  (last_sack_ms, fp, local[failed], packets.sctp(5000, 40000, packets.sack_chunk(10))),
                  (4990.0, fp, local[failed], _heartbeat_ack())]
    on_alternate = [(4992.0, ap, local[alternate], packets.sctp(5000, 40000, packets.sack_chunk(10))),
                    (5100.0, ap, local[alternate], packets.sctp(5000, 40000, packets.sack_chunk(10))),
                    (5100.2 + ALTERNATE_LAG_MS, local[alternate], ap, _data((11, 4980.0))),
                    (5185.0 + ALTERNATE_LAG_MS, local[alternate], ap, _data(*out_failed[2:])),
                    (5186.0 + ALTERNATE_LAG_MS, local[alternate], ap, _data((21, 5186.0))),
                    (5500.0 + ALTERNATE_LAG_MS, local[alternate], ap, _data(*second_expiry)),
                    (5600.0 + ALTERNATE_LAG_MS, local[alternate], ap, _data((24, 5600.0))),
                    (5960.0 + ALTERNATE_LAG_MS, local[alternate], ap, _data((23, 5510.0)))]
    (run / "captures").mkdir()
    packets.write_pcap(run / "captures" / f"{failed}-{owner.client}.pcap", sorted(on_failed))
    packets.write_pcap(run / "captures" / f"{alternate}-{owner.client}.pcap", sorted(on_alternate))
    for other in set(local) - {failed, alternate}:  # a third path, idle
        packets.write_pcap(run / "captures" / f"{other}-{owner.client}.pcap", [])


def _figures(found: expiries.Expiries) -> list[tuple[int, float, float, float, float]]:
    """Each expiry as a user reads it: index, timer start and expiry (ms after t0), RTO, wheel bucket."""
    return [(e.index, (e.started_ns - T0_MONO_NS) / 1e6, (e.expired_ns - T0_MONO_NS) / 1e6, e.rto_ms, e.granularity_ms)
            for e in found.expiries]


# RTO 200 ms at the failure, the client's back-off 150 % (the server's is doubling), HZ 250:
# 200 ms is 50 jiffies (a bucket of one, 4 ms), 300 and 450 ms are 75 and 112 (8 jiffies, 32 ms).
EXPECTED = [(0, 4985.0, 5185.0, 200.0, 4.0), (1, 5200.0, 5500.0, 300.0, 32.0), (2, 5510.0, 5960.0, 450.0, 32.0)]


def test_a_runs_expiries_read_from_its_captures(tmp_path: Path) -> None:
    """The figures a user sees of a failover: three timeouts (the SACK-released retransmission
    at 5100 ms is none), the first counted from the last SACK on the failed path before the
    failure, the later ones from the next DATA sent on it; each send time is its capture less
    that path's own egress lag; the RTO at the failure and the back-off are the client's; the
    detection comes 1 ms after the last expiry."""
    _run_folder(tmp_path / "run", "failover.yaml", [], "main", "primary", "secondary")
    found = expiries.analyse(tmp_path / "run")
    assert (found.path, found.failed_ns, found.unreachable_ns) == ("primary", _mono(5000), _mono(5961))
    assert _figures(found) == EXPECTED
    assert [e.gap_ms for e in found.expiries] == [200.0, 300.0, 450.0] and all(e.within for e in found.expiries)
    assert found.detection_after_last_expiry_ms == 1.0
    assert _figures(expiries.analyse(tmp_path / "run", "main")) == EXPECTED


def test_the_first_timer_starts_at_the_lost_chunks_send_when_no_sack_came_after_it(tmp_path: Path) -> None:
    # The last SACK before the failure came before 11 was sent: the timer ran from 11's send.
    _run_folder(tmp_path / "run", "failover.yaml", [], "main", "primary", "secondary", last_sack_ms=4970.0)
    assert _figures(expiries.analyse(tmp_path / "run"))[0] == (0, 4980.0, 5185.0, 200.0, 4.0)


def test_a_later_timer_starts_with_the_failed_paths_next_data_whatever_the_burst_holds(tmp_path: Path) -> None:
    """Expiry 1 also retransmits 21, first sent on the other path at 5186 ms: its timer still
    started with the failed path's own next DATA, 22 at 5200 ms."""
    _run_folder(tmp_path / "run", "failover.yaml", [], "main", "primary", "secondary",
                second_expiry=((21, 5186.0), (22, 5200.0)))
    assert _figures(expiries.analyse(tmp_path / "run")) == EXPECTED


def test_without_the_clients_back_off_the_model_doubles_and_without_unreachable_no_detection(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _run_folder(run, "failover.yaml", [], "main", "primary", "secondary")
    (run / "kernel.json").write_text(json.dumps({"hz": 250, "sysctl": {}}))
    rec = run / "records" / "main.client.rec"
    rec.write_text(rec.read_text().replace(f"addr\t{_mono(5961)}\t198.18.0.2\tADDR_UNREACHABLE\t0\n", ""))
    found = expiries.analyse(run)
    # 400 and 800 ms are 100 and 200 jiffies at HZ 250: buckets of 8 (32 ms).
    assert [(e.rto_ms, e.granularity_ms) for e in found.expiries] == [(200.0, 4.0), (400.0, 32.0), (800.0, 32.0)]
    assert (found.unreachable_ns, found.detection_after_last_expiry_ms) == (None, None)
    # An ADDR_UNREACHABLE in the failure's very instant (virtual time makes ties real) is this failure's.
    rec.write_text(rec.read_text() + f"addr\t{_mono(5000)}\t198.18.0.2\tADDR_UNREACHABLE\t0\n")
    assert expiries.analyse(run).unreachable_ns == _mono(5000)


def test_the_association_whose_path_failed_is_the_one_read(tmp_path: Path) -> None:
    """Three associations: lab1's failure is sync's (client lab), the only one over lab1, unless
    another one is named; wan1's is ops's, the first of the two over it, or back's when named."""
    _run_folder(tmp_path / "sync", "associations.yaml", ["events.0={at: 5s, fail: lab1}"], "sync", "lab1", "lab2")
    assert _figures(expiries.analyse(tmp_path / "sync")) == EXPECTED
    _run_folder(tmp_path / "back", "associations.yaml", [], "back", "wan1", "wan2")
    assert _figures(expiries.analyse(tmp_path / "back", "back")) == EXPECTED
    with pytest.raises(captures.CaptureError, match=r"/wan[12]-hq\.pcap: No such file"):  # ops's client, hq, has no capture here
        expiries.analyse(tmp_path / "back")


def test_a_dual_stack_paths_rto_and_unreachable_address_are_its_ipv4_ones(tmp_path: Path) -> None:
    """The failed path is dual-stack (IPv4 and IPv6, one SCTP path each): its RTO and its
    ADDR_UNREACHABLE are those of its first, IPv4, address; the IPv6 one's say otherwise."""
    topology = ("topology={hosts: [client, server], paths: {primary: {between: [client, server], family: dual, "
                "delay: 10ms}, secondary: {between: [client, server], delay: 10ms}}}")
    run = tmp_path / "run"
    _run_folder(run, "failover.yaml", [topology], "main", "primary", "secondary")
    v6 = next(a.server_address for a in Plan.from_json((run / "plan.json").read_text()).associations[0].paths
              if a.family == "ipv6")
    with (run / "records" / "main.client.rec").open("a") as f:
        f.write(f"path\t{_mono(4999)}\t{v6}\tACTIVE\t4380\t100\t700\t1500\t0\naddr\t{_mono(5300)}\t{v6}\tADDR_UNREACHABLE\t0\n")
    found = expiries.analyse(run)
    assert _figures(found) == EXPECTED and found.unreachable_ns == _mono(5961)


@pytest.mark.parametrize("file, content, words", [
    ("backend.json", None, "backend.json: missing or without t0"),
    ("backend.json", {"ok": True, "t0_ns": T0_MONO_NS}, "backend.json: missing or without t0"),
    ("backend.json", {"ok": True, "t0_realtime_ns": packets.T0}, "backend.json: missing or without t0"),
    ("kernel.json", None, "kernel.json: missing or without hz"),
    ("kernel.json", {"sysctl": {}}, "kernel.json: missing or without hz"),
])
def test_a_run_without_its_clock_anchor_or_hz_is_refused_in_words(tmp_path: Path, file: str,
                                                                   content: dict[str, int] | None, words: str) -> None:
    run = tmp_path / "run"
    _run_folder(run, "failover.yaml", [], "main", "primary", "secondary")
    if content is None:
        (run / file).unlink()
    else:
        (run / file).write_text(json.dumps(content))
    with pytest.raises(ResultsFileError) as e:
        expiries.analyse(run)
    assert str(e.value) == f"{run}/{words}; allowed: the file as sctpbench wrote it"


def test_a_run_without_a_failure_or_an_rto_before_it_is_refused_in_words(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _run_folder(run, "failover.yaml", [], "main", "primary", "secondary")
    timeline = (run / "events.jsonl").read_text().splitlines()
    (run / "events.jsonl").write_text(timeline[0] + "\n")
    with pytest.raises(ValueError) as no_fail:
        expiries.analyse(run)
    assert str(no_fail.value) == f"{run}: no fail event on the timeline"
    (run / "events.jsonl").write_text("\n".join(timeline) + "\n")
    rec = run / "records" / "main.client.rec"
    rec.write_text("".join(line + "\n" for line in rec.read_text().splitlines() if "\t198.18.0.2\tACTIVE" not in line
                           or f"{_mono(5100)}" in line))
    with pytest.raises(ValueError) as no_rto:
        expiries.analyse(run)
    assert str(no_rto.value) == "no path samples of 198.18.0.2 before the failure"


def test_a_paths_egress_lag_is_the_least_of_its_first_transmissions() -> None:
    def sent(t_ms: float, *gens: float | None) -> captures.Packet:
        chunks = tuple(captures.Chunk(captures.CHUNK_DATA, 3, 1, 1, None if g is None else _mono(g)) for g in gens)
        t_ns = packets.T0 + round(t_ms * 1e6)
        return captures.Packet(0, t_ns / 1e9, "a", "b", 100, 0, 0, 0, chunks, b"", 1, 2, t_ns)

    to_mono = packets.T0 - T0_MONO_NS
    assert expiries._egress_lag_ns([sent(10.5, 10.0, 7.0), sent(20.3, None, 20.0), sent(30.0, None)], to_mono) == 300_000
    assert expiries._egress_lag_ns([sent(30.0, None)], to_mono) == 0
    assert expiries._mono(sent(1.25), to_mono) == _mono(1.25)
