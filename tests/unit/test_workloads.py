"""Workload types beyond fixed messages: video traces, signaling mixes, many sources (no kernel)."""

from pathlib import Path

import pytest

from sctpbench.analysis import frames, load
from sctpbench.model import spec, videotrace
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan
from sctpbench.plan import schedule
from sctpbench.plan.data import Plan

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "sctpbench" / "workloads" / "video" / "testsrc2-cif-1M.trace"
MS = 1_000_000
TOPOLOGY = """topology:
  hosts: [a, b]
  paths:
    wan: {between: [a, b], delay: 10ms, rate: 1mbit}
"""


def _load(tmp_path: Path, text: str, overrides: list[str] | None = None) -> spec.Experiment:
    f = tmp_path / "x.yaml"
    f.write_text(TOPOLOGY + text)
    return spec.load(f, overrides or [])


def _messages(p: Plan, name: str = "main") -> list[schedule.Message]:
    assoc = p.association(name)
    assert assoc.schedule is not None
    return schedule.parse(p.files[assoc.schedule])


def test_a_video_workload_replays_the_trace_frame_by_frame(tmp_path: Path) -> None:
    e = _load(tmp_path, "workload: {type: video, client: a, server: b, video: {trace: testsrc2-cif-1M, fragment: 1000B}, "
                        "duration: 4s}\n")
    p = plan.build(e, 1, "agent")
    trace = videotrace.parse(TRACE.read_text(), str(TRACE))
    messages = _messages(p)
    for f in trace:
        pieces = [m for m in messages if m.frame == f.number]
        assert sum(m.size for m in pieces) == f.size and all(m.size <= 1000 for m in pieces)
        assert {m.offset_ns for m in pieces} == {f.time_ns} and {m.frame_type for m in pieces} == {f.type}
    client = next(x for x in p.processes if x.role == "client")
    assert client.argv[client.argv.index("--arrival") + 1] == "schedule" and "--rate" not in client.argv
    assert client.argv[client.argv.index("--schedule") + 1] == "{run}/schedules/main.sched"
    w = p.association("main").workload
    assert w["type"] == "video" and w["frames"] == len(trace) and w["deadline_ns"] == 150 * MS


def test_a_video_shorter_than_the_duration_loops_with_frames_numbered_on(tmp_path: Path) -> None:
    e = _load(tmp_path, "workload: {type: video, client: a, server: b, video: {trace: testsrc2-cif-384k}, duration: 10s}\n")
    messages = _messages(plan.build(e, 1, "agent"))
    assert len(messages) == 250 and messages[-1].frame == 249  # 25 fps, one message a frame
    assert messages[100].offset_ns == 4 * 1000 * MS and messages[-1].offset_ns < 10_000 * MS
    once = _load(tmp_path, "workload: {type: video, client: a, server: b, video: {trace: testsrc2-cif-384k, loop: false}, "
                           "duration: 10s}\n")
    assert len(_messages(plan.build(once, 1, "agent"))) == 100


def test_a_trace_file_of_ones_own_with_its_column_order(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("# time type size frame\n0 I 5000 0\n40 P 800 1\n80.5 B 300 2\n")
    e = _load(tmp_path, "workload: {type: video, client: a, server: b, duration: 1s, "
                        "video: {trace: t.txt, columns: [time, type, size, number], loop: false}}\n")
    messages = _messages(plan.build(e, 1, "agent"))
    assert [(m.offset_ns, m.size, m.frame_type) for m in messages] == [(0, 5000, "I"), (40 * MS, 800, "P"), (80_500_000, 300, "B")]


def test_a_mix_compiles_each_streams_distributions_seeded(tmp_path: Path) -> None:
    text = ("sctp: {streams: 3}\nworkload:\n  type: mix\n  client: a\n  server: b\n  duration: 20s\n  mix:\n"
            "    - {size: {exponential: 200B}, gap: {exponential: 10ms}}\n"
            "    - {size: {uniform: [100B, 1KiB]}, gap: 100ms, stream: 1, ordered: false, lifetime: 50ms}\n"
            "    - {size: 64B, gap: 5ms, stream: 2, burst: 200ms, pause: 800ms}\n")
    e = _load(tmp_path, text)
    messages = _messages(plan.build(e, 1, "agent"))
    by_stream = {s: [m for m in messages if m.stream == s] for s in (0, 1, 2)}
    assert 1700 < len(by_stream[0]) < 2300  # 20 s at a mean gap of 10 ms
    assert len(by_stream[1]) == 200 and all(m.unordered and m.lifetime_ms == 50 and 100 <= m.size <= 1024 for m in by_stream[1])
    # On/off: a fifth of the time on, at one message every 5 ms.
    assert 600 < len(by_stream[2]) < 1000 and {m.size for m in by_stream[2]} == {64}
    assert [m.offset_ns for m in messages] == sorted(m.offset_ns for m in messages)
    assert _messages(plan.build(e, 1, "agent")) == messages and _messages(plan.build(e, 2, "agent")) != messages


def test_an_empirical_distribution_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "sizes.txt").write_text("# size weight\n100B 3\n1000B 1\n")
    e = _load(tmp_path, "workload: {type: mix, client: a, server: b, duration: 10s, "
                        "mix: [{size: {empirical: {file: sizes.txt}}, gap: 1ms}]}\n")
    sizes = [m.size for m in _messages(plan.build(e, 1, "agent"))]
    assert set(sizes) == {100, 1000} and 0.7 < sizes.count(100) / len(sizes) < 0.8


def test_count_makes_named_sources_with_their_own_ports_and_seeded_starts(tmp_path: Path) -> None:
    e = _load(tmp_path, "workloads:\n  - {name: src, count: 6, client: a, server: b, size: 250B, rate: 100/s, "
                        "arrival: poisson, duration: 5s, start_window: 1s, port: 6000}\n")
    assert [a.name for a in e.associations] == [f"src{i}" for i in range(1, 7)]
    assert [a.port for a in e.associations] == list(range(6000, 6006))
    p = plan.build(e, 1, "agent")
    starts = [a.workload["start_ns"] for a in p.associations]
    assert len(set(starts)) == 6 and all(0 <= s < 1000 * MS for s in starts)
    assert p.variation["start_window_ns"] == {a.name: a.workload["start_ns"] for a in p.associations}
    assert [a.workload["start_ns"] for a in plan.build(e, 1, "agent").associations] == starts
    assert [a.workload["start_ns"] for a in plan.build(e, 2, "agent").associations] != starts
    seeds = {x.argv[x.argv.index("--seed") + 1] for x in p.processes if x.role == "client"}
    assert len(seeds) == 6  # each source its own Poisson draws


def test_new_keys_left_at_their_defaults_keep_run_ids() -> None:
    e = spec.load(ROOT / "examples" / "failover.yaml")
    assert plan.build(e, 1, "agent").run_id == "e1f71b26ccb1"


@pytest.mark.parametrize("text, expected", [
    ("workload: {type: video, client: a, server: b, duration: 1s}", "workload: type: video needs video:"),
    ("workload: {type: video, client: a, server: b, duration: 1s, rate: 5/s, video: {trace: testsrc2-cif-1M}}",
     "rate: only for type: signaling"),
    ("workload: {client: a, server: b, duration: 1s, mix: [{size: 1B, gap: 1ms}]}", "mix: is for type: mix"),
    ("workload: {type: video, client: a, server: b, duration: 1s, video: {trace: nosuch}}",
     "workload.video.trace: no trace file 'nosuch'; allowed: a file relative to the experiment or one of testsrc2-cif-1M"),
    ("workload: {type: mix, client: a, server: b, duration: 1s, mix: [{size: {gauss: 1}, gap: 1ms}]}",
     "is not a distribution; allowed: a value, or one of {constant: V}"),
    ("workload: {type: mix, client: a, server: b, duration: 1s, mix: [{size: {pareto: {shape: 1, mean: 1KiB}}, gap: 1ms}]}",
     "pareto shape 1; allowed: a number above 1"),
    ("workload: {type: mix, client: a, server: b, duration: 1s, mix: [{size: 100B, gap: 1ms, burst: 1s}]}",
     "burst: and pause: go together"),
    ("workload: {type: mix, client: a, server: b, duration: 1s, mix: [{size: 100B, gap: 1ms, stream: 12}]}",
     "workload.mix: stream 12 is beyond the 10 outbound streams"),
    ("workloads: [{name: sourcesabc, count: 12, client: a, server: b, duration: 1s}]",
     "workloads.0.name: 'sourcesabc' with count 12 makes names up to sourcesabc12"),
    ("workloads: [{name: s, count: 3, client: a, server: b, duration: 1s, port: 65534}]",
     "workloads.0.port: count 3 from port 65534 goes beyond 65535"),
])
def test_bad_workloads_get_one_message(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, text + "\n")
    assert expected in str(e.value), str(e.value)
    assert str(e.value).startswith(f"{tmp_path}/x.yaml:")


def test_frames_are_delivered_late_or_lost_from_their_pieces() -> None:
    messages = schedule.video([videotrace.Frame(0, 0, "I", 2500), videotrace.Frame(1, 40 * MS, "P", 500),
                               videotrace.Frame(2, 80 * MS, "B", 400)], fragment=1000)
    t0 = 1000 * MS
    sent = [frames.Sent(0, t0, t0 + 20 * MS), frames.Sent(1, t0, t0 + 25 * MS), frames.Sent(2, t0, t0 + 30 * MS),
            frames.Sent(3, t0 + 40 * MS, t0 + 240 * MS), frames.Sent(4, t0 + 80 * MS, None)]
    rows = frames.frame_rows(messages, sent, 150 * MS, "v", t0)
    assert [(r["frame"], r["messages"], r["delivered"], r["mtt_ns"], r["late"]) for r in rows] == [
        (0, 3, 3, 30 * MS, False), (1, 1, 1, 200 * MS, True), (2, 1, 0, None, True)]
    m = frames.frame_metrics(rows, 150 * MS)
    assert (m["frames"], m["delivered"], m["late"]) == (3, 2, 2) and m["by_type"]["I"]["late"] == 0


def test_offered_load_is_summed_per_path_and_direction_over_its_capacity() -> None:
    e = spec.load(ROOT / "examples" / "failover.yaml")
    links = plan.build(e, 1, "agent").links
    rows = load.per_path(links, [load.Offered("x", "primary", "forward", 30e6), load.Offered("y", "primary", "forward", 20e6),
                                 load.Offered("z", "secondary", "reverse", 1e6)])
    assert [(r["path"], r["direction"], r["utilisation"], r["sources"]) for r in rows] == [
        ("primary", "forward", 0.5, ["x", "y"]), ("secondary", "reverse", 0.01, ["z"])]
    assert schedule.wire_bytes(250) == 312 and schedule.wire_bytes(3000) == 3000 + 3 * 62
