"""`sctpbench verify` without a kernel: matching, statistics and checks on synthetic packets,
chunk decoding, and the whole command on pcap files written here."""

import json
import math
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sctpbench.analysis import verify
from sctpbench.collectors import captures
from sctpbench.collectors.captures import Chunk, Packet

ROOT = Path(__file__).resolve().parents[2]
MS = 1e-3


def pkt(t: float, ident: str, length: int = 262, kind: str = "DATA", tsn: int | None = None) -> Packet:
    chunk = Chunk(0 if kind == "DATA" else 3, 3, tsn)
    return Packet(0, t, "198.18.0.1", "198.18.1.2", length, 0, 1, 0, (chunk,), ident.encode())


def shaping(**values: Any) -> dict[str, Any]:
    return {"delay": 20_000_000, "jitter": 0, "loss": 0.0, "rate": None, "queue": None} | values


def direction(sent: list[Packet], received: list[Packet], holes: list[verify.Blackhole] | None = None,
              receiver_last: float | None = None, **conf: Any) -> verify.DirectionResult:
    last = lambda packets: max((p.time for p in packets), default=0.0)  # noqa: E731
    return verify.verify_direction(verify.DirectionInput(
        path="primary", direction="forward", sender="client", receiver="server", configured=shaping(**conf),
        sent=sent, received=received, sender_last=last(sent),
        receiver_last=last(received) if receiver_last is None else receiver_last,
        blackholes=holes or [], burst_bytes=3028 if conf.get("rate") else None,
    ))


def check(result: verify.DirectionResult, name: str) -> verify.Check:
    return next(c for c in result.checks if c.name == name)


# ---------------------------------------------------------------------------- matching


def test_drops_are_found_exactly_and_the_delay_is_measured() -> None:
    sent = [pkt(i * 10 * MS, f"p{i}", tsn=100 + i) for i in range(100)]
    received = [pkt(p.time + 20 * MS + (i % 3) * 0.1 * MS, f"p{i}") for i, p in enumerate(sent) if i not in (3, 57)]
    r = direction(sent, received, loss=2.0)
    assert [(d.index, d.tsns, d.cause) for d in r.drops] == [(3, [103], "loss"), (57, [157], "loss")]
    assert (r.sent, r.received, r.dropped, r.unexpected) == (100, 98, 2, 0)
    assert r.delay is not None and r.delay.n == 98
    assert r.delay.min_ms == pytest.approx(20.0) and r.delay.max_ms == pytest.approx(20.2)
    assert r.delay.median_ms == pytest.approx(20.1)
    assert check(r, "delay").ok and check(r, "loss").ok


def test_identical_copies_are_told_apart_by_time() -> None:
    unique = [pkt(i * 10 * MS, f"u{i}") for i in range(20)]
    # The original of "x" is dropped and its byte-identical retransmission 200 ms later arrives.
    original, retransmission = pkt(50.5 * MS, "x"), pkt(250.5 * MS, "x")
    sent = sorted(unique + [original, retransmission], key=lambda p: p.time)
    received = [pkt(p.time + 20 * MS, p.key.decode()) for p in unique] + [pkt(270.5 * MS, "x")]
    m = verify.match(sent, received)
    assert [sent[i].time for i, j in m.pairs if received[j].key == b"x"] == [retransmission.time]
    r = direction(sent, received, loss=5.0)
    assert [d.time for d in r.drops] == [original.time]
    assert r.delay is not None and r.delay.max_ms == pytest.approx(20.0)


def test_a_received_packet_that_was_never_sent_is_unexpected() -> None:
    sent = [pkt(0.0, "a"), pkt(50 * MS, "b")]
    r = direction(sent, [pkt(20 * MS, "a"), pkt(21 * MS, "corrupted"), pkt(70 * MS, "b")])
    assert r.unexpected == 1 and not check(r, "unexpected").ok
    twice = [pkt(20 * MS, "a"), pkt(21 * MS, "a"), pkt(70 * MS, "b")]
    assert check(direction(sent, twice, duplicate=1.0), "unexpected").ok


def test_packets_the_other_capture_ended_before_are_neither_drops_nor_unexpected() -> None:
    sent = [pkt(i * 10 * MS, f"p{i}") for i in range(10)]
    received = [pkt(p.time + 20 * MS, f"p{i}") for i, p in enumerate(sent[:8])]
    # The receiver's capture stopped right after the 8th arrival: the last two may have arrived after.
    r = direction(sent, received, receiver_last=received[-1].time)
    assert (r.dropped, r.unresolved_sent, r.sent) == (0, 2, 8)
    assert check(r, "loss").ok
    late = direction(sent[:8], received + [pkt(200 * MS, "after the sender's capture")])
    assert (late.unexpected, late.unresolved_received) == (0, 1)


# ---------------------------------------------------------------------------- checks


def test_delay_check_allows_five_percent_or_one_ms_plus_serialization() -> None:
    sent = [pkt(i * 10 * MS, f"p{i}") for i in range(50)]
    ok = direction(sent, [pkt(p.time + 20.9 * MS, f"p{i}") for i, p in enumerate(sent)])
    slow = direction(sent, [pkt(p.time + 21.1 * MS, f"p{i}") for i, p in enumerate(sent)])
    assert check(ok, "delay").ok and not check(slow, "delay").ok
    # At 1 Mbit/s a 262-byte frame takes 2.096 ms to serialize, which may come on top.
    shaped = direction(sent, [pkt(p.time + 23 * MS, f"p{i}") for i, p in enumerate(sent)], rate=1_000_000)
    assert check(shaped, "delay").ok


def test_a_delay_is_judged_only_on_enough_packets() -> None:
    sent = [pkt(i * 10 * MS, f"p{i}") for i in range(verify.MIN_DELAY_SAMPLES - 1)]
    few = direction(sent, [pkt(p.time + 40 * MS, f"p{i}") for i, p in enumerate(sent)])
    assert check(few, "delay").ok and check(few, "delay").detail.startswith("not judged: 9 packet(s)")
    sent = [pkt(i * 10 * MS, f"p{i}") for i in range(verify.MIN_DELAY_SAMPLES)]
    enough = direction(sent, [pkt(p.time + 40 * MS, f"p{i}") for i, p in enumerate(sent)])
    assert not check(enough, "delay").ok


def test_delay_statistics_percentiles() -> None:
    stats = verify._delay_stats([i * MS for i in range(1, 102)])
    assert stats is not None and (stats.n, stats.min_ms, stats.max_ms) == (101, 1.0, 101.0)
    assert stats.median_ms == pytest.approx(51.0)
    assert stats.p1_ms == pytest.approx(2.0) and stats.p99_ms == pytest.approx(100.0)


@pytest.mark.parametrize("dropped, ok", [(50, True), (38, True), (80, False), (20, False)])
def test_loss_is_checked_with_a_binomial_test(dropped: int, ok: bool) -> None:
    sent = [pkt(i * MS, f"p{i}") for i in range(1000)]
    gone = set(range(0, 1000, 1000 // dropped))
    r = direction(sent, [pkt(p.time + 20 * MS, f"p{i}") for i, p in enumerate(sent) if i not in gone], loss=5.0)
    assert r.loss_drops == len(gone) and check(r, "loss").ok is ok


def test_no_drop_is_allowed_without_loss_or_blackhole() -> None:
    sent = [pkt(i * MS, f"p{i}") for i in range(100)]
    r = direction(sent, [pkt(p.time + 20 * MS, f"p{i}") for i, p in enumerate(sent) if i != 10])
    assert not check(r, "loss").ok


def test_a_blackhole_accounts_for_its_drops_and_must_let_nothing_through() -> None:
    sent = [pkt(i * 10 * MS, f"p{i}") for i in range(100)]
    hole = verify.Blackhole(certain=(0.405, 0.6), possible=(0.399, 0.61), fail_at=0.402, restore_at=0.605)
    crossing = [i for i, p in enumerate(sent) if not 0.399 <= p.time <= 0.61]
    r = direction(sent, [pkt(sent[i].time + 20 * MS, f"p{i}") for i in crossing], [hole])
    assert {d.cause for d in r.drops} == {"blackhole"} and r.dropped == 22
    assert check(r, "loss").ok and check(r, "blackhole 1").ok
    b = r.blackholes[0]
    assert (b.sent_inside, b.crossed_inside, b.dropped) == (20, 0, 22)
    assert b.last_before_ms == pytest.approx(12.0) and b.first_after_ms == pytest.approx(15.0)
    leaky = direction(sent, [pkt(sent[i].time + 20 * MS, f"p{i}") for i in crossing + [50]], [hole])
    assert not check(leaky, "blackhole 1").ok and leaky.blackholes[0].crossed_inside == 1


def test_blackhole_windows_come_from_the_events_and_the_clock() -> None:
    clock = verify.ClockRelation(low=100.0, high=100.0002, chunks=1, deliveries=1)
    events = [
        {"kind": "start", "target": "workload", "issued_ns": 0, "applied_ns": 0},
        {"kind": "fail", "target": "primary", "issued_ns": 4_000_000_000, "applied_ns": 4_010_000_000},
        {"kind": "restore", "target": "primary", "issued_ns": 6_000_000_000, "applied_ns": 6_003_000_000},
        {"kind": "fail", "target": "secondary", "issued_ns": 7_000_000_000, "applied_ns": 7_001_000_000},
    ]
    (hole,) = verify.blackholes(events, "primary", clock)
    assert hole.certain == pytest.approx((104.0102, 106.0 - verify.CUT_POINT_SLACK_S))
    assert hole.possible == pytest.approx((104.0 - verify.CUT_POINT_SLACK_S, 106.0032))
    (open_ended,) = verify.blackholes(events, "secondary", clock)
    assert open_ended.certain[1] == math.inf and open_ended.restore_at is None


def test_a_link_down_accounts_for_in_flight_drops_without_a_crossing_check() -> None:
    clock = verify.ClockRelation(low=100.0, high=100.0, chunks=1, deliveries=1)
    events = [
        {"kind": "down", "target": "primary", "issued_ns": 1_000_000_000, "applied_ns": 1_001_000_000},
        {"kind": "up", "target": "primary", "issued_ns": 2_000_000_000, "applied_ns": 2_001_000_000},
    ]
    (down,) = verify.blackholes(events, "primary", clock)
    assert down.kind == "down" and down.possible[0] == pytest.approx(101.0 - verify.CUT_POINT_SLACK_S)
    sent = [pkt(100.5 + i * 10 * MS, f"p{i}") for i in range(200)]  # 100.5 s … 102.49 s
    # What was sent up to one delay (20 ms) before the link went down was still in flight.
    lost = [i for i, p in enumerate(sent) if 100.98 <= p.time <= 102.0]
    r = direction(sent, [pkt(p.time + 20 * MS, f"p{i}") for i, p in enumerate(sent) if i not in lost], [down])
    assert {d.cause for d in r.drops} == {"link down"} and check(r, "loss").ok
    assert r.blackholes[0].dropped == len(lost)
    assert not any(c.name.startswith("blackhole") for c in r.checks)


def test_a_degrade_limits_the_checks_to_packets_sent_before_it() -> None:
    clock = verify.ClockRelation(low=100.0, high=100.0, chunks=1, deliveries=1)
    events = [{"kind": "degrade", "target": "primary", "detail": "forward delay 80ms", "direction": "forward", "issued_ns": 1_000_000_000,
               "applied_ns": 1_002_000_000}]
    until = verify.shaping_changes(events, "primary", "forward", clock)
    assert until == pytest.approx(101.0 - verify.CUT_POINT_SLACK_S)
    assert verify.shaping_changes(events, "primary", "reverse", clock) == math.inf
    assert verify.shaping_changes(events, "primary", "forward", None) == -math.inf
    sent = [pkt(100.5 + i * 10 * MS, f"p{i}") for i in range(100)]
    received = [pkt(p.time + (20 if p.time < 101.0 else 80) * MS, f"p{i}") for i, p in enumerate(sent)]
    r = verify.verify_direction(verify.DirectionInput(
        "primary", "forward", "client", "server", shaping(), sent, received, sent[-1].time, received[-1].time,
        checked_until=until,
    ))
    assert r.delay is not None and r.delay.n == 50 and r.delay.max_ms == pytest.approx(20.0)
    assert check(r, "delay").ok and r.checked_until == until


def test_the_rate_check_is_a_token_bucket_at_the_configured_rate() -> None:
    # 6 Mbit/s: a 750-byte frame every 1 ms is exactly the rate.
    paced = [pkt(i * MS, f"p{i}", length=750) for i in range(20)]
    assert verify._burst_needed(paced, 6_000_000) == 750
    burst = [pkt(0.0, "a", length=750), pkt(0.0, "b", length=750), pkt(0.0, "c", length=750)]
    assert verify._burst_needed(burst, 6_000_000) == 2250
    too_fast = [pkt(i * 0.1 * MS, f"p{i}", length=750) for i in range(20)]
    sent = [pkt(p.time - 20 * MS, p.key.decode(), length=750) for p in too_fast]
    assert not check(direction(sent, too_fast, rate=6_000_000), "rate").ok
    sent = [pkt(p.time - 20 * MS, p.key.decode(), length=750) for p in paced]
    assert check(direction(sent, paced, rate=6_000_000), "rate").ok


def test_clock_relation_brackets_the_offset() -> None:
    offset = 1_700_000_000.0
    data = lambda t, seq, gen_ns: Packet(0, t, "c", "s", 262, 0, 1, 0, (Chunk(0, 3, 1, seq, gen_ns),), b"")  # noqa: E731
    sent = [data(offset + 1.0001, 0, 1_000_000_000), data(offset + 1.0105, 1, 1_010_000_000)]
    arrived = [data(offset + 1.0201, 0, 1_000_000_000), data(offset + 1.0302, 1, 1_010_000_000)]
    clock = verify.clock_relation(sent + arrived, arrived, {0: 1_020_300_000, 1: 1_030_250_000})
    assert clock is not None and (clock.chunks, clock.deliveries) == (4, 2)
    assert clock.high == pytest.approx(offset + 0.0001) and clock.low == pytest.approx(offset - 0.0002)
    assert clock.low <= offset <= clock.high


# ---------------------------------------------------------------------------- chunks


def sctp_data(tsn: int, seq: int, t_gen_ns: int, size: int = 200) -> bytes:
    common = struct.pack("!HHII", 40000, 5000, 0xABCD, 0)
    chunk = struct.pack("!BBHIHHI", 0, 3, 16 + size, tsn, 0, seq & 0xFFFF, 0)
    return common + chunk + struct.pack("!QQ", seq, t_gen_ns) + bytes(size - 16)


def test_chunks_are_decoded_from_truncated_packets() -> None:
    raw = sctp_data(77, 5, 123_456_789)
    sack = struct.pack("!BBHIIHH", 3, 0, 16, 76, 65536, 0, 0)
    (chunk,) = captures.decode_chunks(raw[:222])
    assert (chunk.name, chunk.tsn, chunk.seq, chunk.t_gen_ns) == ("DATA", 77, 5, 123_456_789)
    bundled = captures.decode_chunks(raw[:12] + sack + raw[12:])
    assert [c.name for c in bundled] == ["SACK", "DATA"]
    assert captures.decode_chunks(raw[:30])[0].seq is None  # the payload header was not captured


# ---------------------------------------------------------------------------- the command


def sctpbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", *args], capture_output=True, text=True, cwd=ROOT)


def write_plan(run: Path, *overrides: str) -> dict[str, Any]:
    sets = [a for o in overrides for a in ("--set", o)]
    r = sctpbench("plan", str(ROOT / "examples/verify-shaping.yaml"), "--json", *sets)
    assert r.returncode == 0, r.stderr
    run.mkdir(parents=True)
    (run / "plan.json").write_text(r.stdout)
    return json.loads(r.stdout)


def test_without_captures_verify_says_how_to_get_them(tmp_path: Path) -> None:
    write_plan(tmp_path / "s" / "run-001")
    r = sctpbench("verify", str(tmp_path / "s"))
    assert r.returncode == 2
    assert "measure.capture: true" in r.stderr and "topology.emulator: true" in r.stderr
    r = sctpbench("verify", str(tmp_path))
    assert r.returncode == 2 and "neither a run folder" in r.stderr


def test_direct_links_are_refused_with_the_reason(tmp_path: Path) -> None:
    run = tmp_path / "run-001"
    plan = write_plan(run, "topology.emulator=false")
    (run / "captures").mkdir()
    for link in plan["links"]:
        for end in ("a", "b"):
            (run / "captures" / f"{link['path']}-{link[end]['host']}.pcap").write_bytes(b"")
    r = sctpbench("verify", str(run))
    assert r.returncode == 2 and "direct links" in r.stderr and "topology.emulator: true" in r.stderr


# A whole run on pcap files written here, read back through tshark.

OFFSET_S = 1_795_000_000.0  # the guest's CLOCK_REALTIME − CLOCK_MONOTONIC in this made-up run


def frame(src: str, dst: str, ip_id: int, sctp: bytes) -> bytes:
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 2, 20 + len(sctp), ip_id, 0x4000, 64, 132, 0,
                     bytes(map(int, src.split("."))), bytes(map(int, dst.split("."))))
    return bytes(6) + bytes(6) + b"\x08\x00" + ip + sctp


def write_pcap(path: Path, packets: list[tuple[float, bytes]], snaplen: int = 256) -> None:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1)]
    for t, data in sorted(packets):
        sec, usec = int(t), round((t - int(t)) * 1e6)
        out.append(struct.pack("<IIII", sec, usec, min(len(data), snaplen), len(data)) + data[:snaplen])
    path.write_bytes(b"".join(out))


def sack(cum_tsn: int) -> bytes:
    return struct.pack("!HHII", 5000, 40000, 0x1234, 0) + struct.pack("!BBHIIHH", 3, 0, 16, cum_tsn, 65536, 0, 0)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_verify_a_run_from_pcap_files(tmp_path: Path) -> None:
    run = tmp_path / "session" / "run-001"
    plan = write_plan(run)
    link = {x["path"]: x for x in plan["links"]}["primary"]
    client, server = link["a"]["address"], link["b"]["address"]
    (run / "captures").mkdir()
    (run / "records").mkdir()
    t0_ns = 10_000_000_000
    # 300 messages every 10 ms from t0; a 20 ms path; the primary is blackholed 1.0 s … 1.5 s.
    fail_ns, restore_ns = t0_ns + 1_000_000_000, t0_ns + 1_500_000_000
    events = [
        {"kind": "fail", "target": "primary", "at_ns": 1_000_000_000, "scheduled_ns": fail_ns, "issued_ns": fail_ns,
         "applied_ns": fail_ns + 2_000_000, "lag_ns": 2_000_000},
        {"kind": "restore", "target": "primary", "at_ns": 1_500_000_000, "scheduled_ns": restore_ns,
         "issued_ns": restore_ns, "applied_ns": restore_ns + 2_000_000, "lag_ns": 2_000_000},
    ]
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (run / "backend.json").write_text(json.dumps({"ok": True, "t0_ns": t0_ns}))
    lost = {37, 220}  # random losses outside the blackhole
    tx_client, rx_server, tx_server, rx_client, records = [], [], [], [], ["#sctpbench-records\n"]
    for seq in range(300):
        gen_ns = t0_ns + seq * 10_000_000
        sent = gen_ns / 1e9 + OFFSET_S + 50e-6
        tx_client.append((sent, frame(client, server, seq + 1, sctp_data(1000 + seq, seq, gen_ns))))
        blackholed = fail_ns <= gen_ns <= restore_ns + 2_000_000
        if seq in lost or blackholed:
            continue
        arrived = sent + 20e-3 + (seq % 5) * 10e-6
        rx_server.append((arrived, tx_client[-1][1]))
        records.append(f"rx\t{round((arrived - OFFSET_S) * 1e9) + 80_000}\t{seq}\t0\t200\t{gen_ns}\t{server}\n")
        tx_server.append((arrived + 1e-3, frame(server, client, 0, sack(1000 + seq))))
        if not fail_ns <= (arrived + 1e-3 - OFFSET_S) * 1e9 <= restore_ns + 2_000_000:
            rx_client.append((arrived + 21e-3, tx_server[-1][1]))
    write_pcap(run / "captures" / f"primary-{link['a']['host']}.pcap", tx_client + rx_client)
    write_pcap(run / "captures" / f"primary-{link['b']['host']}.pcap", rx_server + tx_server)
    (run / plan["associations"][0]["server_records"]).write_text("".join(records))

    r = sctpbench("verify", str(run.parent), "--json")
    assert r.returncode == 1, r.stderr  # the 5 % forward loss is not what the two drops show
    (report,) = json.loads(r.stdout)["runs"]
    assert report["clock"]["low"] <= OFFSET_S <= report["clock"]["high"]
    forward, reverse = (d for d in report["directions"] if d["path"] == "primary")
    assert (forward["sent"], forward["received"], forward["unexpected"]) == (300, 247, 0)
    assert sorted(d["index"] for d in forward["drops"] if d["cause"] == "loss") == sorted(lost)
    assert forward["delay"]["median_ms"] == pytest.approx(20.02, abs=0.01)
    (hole,) = forward["blackholes"]
    assert hole["crossed_inside"] == 0 and hole["sent_inside"] >= 49 and hole["first_after_ms"] is not None
    failed = {c["name"] for c in forward["checks"] if not c["ok"]}
    assert failed == {"loss"}, forward["checks"]
    assert reverse["loss_drops"] == 0 and all(c["ok"] for c in reverse["checks"]), reverse["checks"]
    text = sctpbench("verify", str(run))
    assert text.returncode == 1 and "primary forward (client → server)" in text.stdout
    assert "FAILED  loss" in text.stdout and "blackhole 1: 0 of" in text.stdout


def test_packet_driven_drops_are_found_in_the_plan() -> None:
    from sctpbench.plan.data import Plan

    r = sctpbench("plan", str(ROOT / "examples/drop-pattern.yaml"), "--json")
    assert r.returncode == 0, r.stderr
    patterns = verify._drop_patterns(Plan.from_json(r.stdout))
    assert list(patterns) == [("primary", "forward")]
    assert patterns["primary", "forward"]["positions"] == [5, 10, 11, 12, 40]


def test_expected_positions_repeat_every_period() -> None:
    pattern = {"positions": [2, 5], "every": 10, "data_only": True, "direction": "forward"}
    assert verify.expected_positions(pattern, 26) == [2, 5, 12, 15, 22, 25]
    assert verify.expected_positions(pattern | {"every": None}, 4) == [2]
