"""End to end in the guest: a video trace replayed exactly, Poisson arrivals that are
Poisson, and six sources at once, each with its own series, telemetry tag and report line.

All on the virtual clock, so the send times compared with the trace and the gaps tested
are the guest kernel's own, whatever the load of the machine running the tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from scipy import stats

from sctpbench.collectors import records
from sctpbench.model import videotrace
from sctpbench.plan import schedule
from sctpbench.telemetry import influx, server
from tests.support.telemetry import EXAMPLES, local_influxd

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "sctpbench" / "workloads" / "video" / "testsrc2-cif-1M.trace"
MS = 1_000_000
ONE_PATH = """topology:
  hosts: [a, b]
  paths:
    wan: {between: [a, b], delay: 10ms, rate: 20mbit, queue: 1000}
sctp: {nodelay: true}
"""


def _run(experiment: Path, out: Path, *extra: str) -> dict[str, Any]:
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--json", "--out", str(out), *extra],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    run: dict[str, Any] = json.loads(r.stdout)["runs"][0]
    run["dir"] = Path(run["directory"])
    run["summary"] = json.loads((run["dir"] / "summary.json").read_text())
    assert run["status"] == "ok", run["error"]
    return run


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("video")
    (folder / "video.yaml").write_text(ONE_PATH + "workload: {type: video, client: a, server: b, duration: 4s, "
                                       "video: {trace: testsrc2-cif-1M, fragment: 1200B, loop: false}}\n")
    return _run(folder / "video.yaml", folder)


def test_every_frame_goes_out_with_the_traces_size_at_the_traces_time(video: dict[str, Any]) -> None:
    trace = videotrace.parse(TRACE.read_text(), str(TRACE))
    client = records.read(video["dir"] / "records" / "main.client.rec")
    t0 = next(int(args) for _, name, args in client.events if name == "start")
    sent = schedule.parse((video["dir"] / "schedules" / "main.sched").read_text())
    assert len(client.tx) == len(sent)
    by_frame: dict[int, list[records.Tx]] = {}
    for tx in client.tx:
        assert tx.size == sent[tx.seq].size
        by_frame.setdefault(int(sent[tx.seq].frame or 0), []).append(tx)
    assert sorted(by_frame) == [f.number for f in trace]
    for f in trace:
        pieces = by_frame[f.number]
        assert sum(tx.size for tx in pieces) == f.size, f
        assert {tx.t_sched_ns - t0 for tx in pieces} == {f.time_ns}, f
        # Handed to the kernel at the frame's time: within 1 ms on the guest's own clock.
        assert all(0 <= tx.t_gen_ns - t0 - f.time_ns < 1 * MS for tx in pieces), f


def test_every_frame_arrives_in_time_and_is_counted_by_type(video: dict[str, Any]) -> None:
    v = video["summary"]["associations"]["main"]["video"]
    assert v["frames"] == v["delivered"] == 100 and v["late"] == 0
    assert {t: f["frames"] for t, f in v["by_type"].items()} == {"I": 4, "P": 37, "B": 59}
    rows = pq.read_table(video["dir"] / "frames.parquet").to_pylist()
    assert len(rows) == 100 and all(10 * MS <= r["mtt_ns"] < 150 * MS for r in rows)
    # An I frame is nine or ten messages and waits for its last one: slower than a B frame.
    assert v["by_type"]["I"]["mtt_p50_ms"] > v["by_type"]["B"]["mtt_p50_ms"] >= 10.0


def test_poisson_arrivals_pass_a_goodness_of_fit_test(tmp_path: Path) -> None:
    (tmp_path / "poisson.yaml").write_text(ONE_PATH + "workload: {client: a, server: b, size: 100B, rate: 200/s, "
                                           "arrival: poisson, duration: 10s}\n")
    run = _run(tmp_path / "poisson.yaml", tmp_path)
    client = records.read(run["dir"] / "records" / "main.client.rec")
    sent = sorted(tx.t_gen_ns for tx in client.tx)
    gaps = [(b - a) / 1e9 for a, b in zip(sent, sent[1:], strict=False)]
    assert 1800 < len(sent) < 2200
    # The gaps the guest actually sent with, against an exponential of the configured mean.
    assert stats.kstest(gaps, "expon", args=(0, 1 / 200)).pvalue > 0.01
    # And not merely any spread: a periodic sender's gaps fail the same test.
    assert stats.kstest([1 / 200] * len(gaps), "expon", args=(0, 1 / 200)).pvalue < 1e-6


@pytest.fixture(scope="module")
def influxd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path_factory.mktemp("influxd"))


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory, influxd: server.LocalServer) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("sources")
    return _run(EXAMPLES / "sources.yaml", out, "--set", "workloads.0.duration=4s",
                "--influx", influxd.url, "--influx-dir", str(influxd.directory))


NAMES = [f"src{i}" for i in range(1, 7)]


def test_six_sources_run_at_once_from_their_own_starts(sources: dict[str, Any]) -> None:
    per = sources["summary"]["associations"]
    assert list(per) == NAMES
    plan = json.loads((sources["dir"] / "plan.json").read_text())
    starts = [a["workload"]["start_ns"] for a in plan["associations"]]
    assert len(set(starts)) == 6 and all(0 <= s < 1000 * MS for s in starts)
    messages = pq.read_table(sources["dir"] / "messages.parquet").to_pylist()
    for name, start in zip(NAMES, starts, strict=True):
        m = per[name]["metrics"]
        assert m["messages_sent"] == m["messages_delivered"] > 100, name
        assert 10.0 <= m["mtt_p50_ms"] < 20.0, name
        mine = [r for r in messages if r["association"] == name]
        assert len(mine) == m["messages_sent"] and min(r["t_rel_ns"] for r in mine) >= start, name
    (row,) = sources["summary"]["load"]
    assert row["path"] == "one" and row["sources"] == NAMES and 0.6 < row["utilisation"] < 0.95


def test_six_sources_have_their_own_telemetry_tag_and_report_line(sources: dict[str, Any], influxd: server.LocalServer,
                                                                  tmp_path: Path) -> None:
    target, run_id, campaign = influxd.target(), sources["params"]["run_id"], sources["dir"].parent.name
    series = influx.query(target, f"SELECT count(\"seq\") FROM \"sctp_message\" WHERE \"run\" = '{run_id}' "
                                  f"AND \"campaign\" = '{campaign}' GROUP BY \"association\"")
    sent = {n: a["metrics"]["messages_sent"] for n, a in sources["summary"]["associations"].items()}
    assert {s["tags"]["association"]: s["values"][0][1] for s in series} == sent
    page = tmp_path / "report.html"
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "report", str(sources["dir"]), "--out", str(page)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    assert all(f"<td>{name}</td><td>a → b</td>" in html for name in NAMES)
    assert "<h2>Offered load per path</h2>" in html


def test_sources_dealt_first_paths_start_and_stay_on_them(tmp_path: Path) -> None:
    """`first_path: [one, two]` deals the six sources out over the two paths: each one's INIT,
    primary and every message on its own (no policy moves them), and the load split per path."""
    run = _run(EXAMPLES / "sources.yaml", tmp_path, "--set", "workloads.0.duration=2s", "--set", "workloads.0.first_path=[one, two]")
    messages = pq.read_table(run["dir"] / "messages.parquet").to_pylist()
    paths = {name: {m["path"] for m in messages if m["association"] == name} for name in NAMES}
    assert paths == {name: {("one", "two")[i % 2]} for i, name in enumerate(NAMES)}, paths
    load = {row["path"]: row["sources"] for row in run["summary"]["load"]}
    assert load == {"one": NAMES[0::2], "two": NAMES[1::2]}, load
