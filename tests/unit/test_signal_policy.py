"""The `signal` policy's trace: read and checked by the spec (model/signaltrace.py), written by the
plan as the client's `--signal` file (plan/signal.py) in peer addresses and offsets from the
association's start, and read by the agent, which refuses a bad file before anything else."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sctpbench.model import experiment, signaltrace, spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "sctpbench/workloads/agent"
TOPOLOGY = """topology:
  hosts: [a, b]
  paths:
    one: {between: [a, b], delay: 10ms}
    two: {between: [a, b], delay: 10ms, family: dual}
"""
TRACE = """# time path dBm
0s   one -60
0    two -95.5
2.5  one -82   # bare numbers are seconds
3s   two -55
"""


def _load(tmp_path: Path, workload: str, trace: str = TRACE) -> spec.Experiment:
    (tmp_path / "walk.txt").write_text(trace)
    f = tmp_path / "x.yaml"
    f.write_text(TOPOLOGY + f"workload: {{client: a, server: b, duration: 5s{workload}}}\n")
    return spec.load(f, [])


def _client_argv(p: plan.Plan) -> list[str]:
    return next(proc.argv for proc in p.processes if proc.role == "client")


def test_the_trace_is_read_relative_to_the_experiment_and_checked(tmp_path: Path) -> None:
    e = _load(tmp_path, ", policy: signal, signal: walk.txt")
    assert e.workload is not None and isinstance(e.workload.signal, experiment.SignalTrace)
    assert e.workload.signal.points == [(0, "one", -60.0), (0, "two", -95.5), (2_500_000_000, "one", -82.0),
                                        (3_000_000_000, "two", -55.0)]


def test_the_plan_writes_peer_addresses_and_offsets_from_the_association_start(tmp_path: Path) -> None:
    p = plan.build(_load(tmp_path, ", start: 1s, policy: 'signal:prepare=-70', signal: walk.txt"), 1, "agent")
    argv = _client_argv(p)
    assert argv[argv.index("--policy") + 1] == "signal:prepare=-70"
    assert argv[argv.index("--signal") + 1] == "{run}/signals/main.sig"
    lines = [line.split("#")[0].split() for line in p.files["signals/main.sig"].splitlines() if not line.startswith("#")]
    server = {x.path + "/" + x.family: x.server_address for x in p.associations[0].paths}
    assert lines == [
        ["-1000000000", server["one/ipv4"], "-60"],
        # a dual-stack path is two SCTP paths, one per family: both get the value
        ["-1000000000", server["two/ipv4"], "-95.5"], ["-1000000000", server["two/ipv6"], "-95.5"],
        ["1500000000", server["one/ipv4"], "-82"],
        ["2000000000", server["two/ipv4"], "-55"], ["2000000000", server["two/ipv6"], "-55"],
    ]


def test_inline_points_equal_a_file_and_the_trace_is_part_of_the_run_id(tmp_path: Path) -> None:
    from_file = plan.build(_load(tmp_path, ", policy: signal, signal: walk.txt"), 1, "agent")
    inline = plan.build(_load(tmp_path, ", policy: signal, signal: {points: [[0s, one, -60], [0s, two, -95.5], "
                                        "[2500ms, one, -82], [3s, two, -55]]}"), 1, "agent")
    assert inline.files == from_file.files and inline.run_id == from_file.run_id
    other = plan.build(_load(tmp_path, ", policy: signal, signal: walk.txt", TRACE.replace("-82", "-83")), 1, "agent")
    assert other.run_id != from_file.run_id
    without = plan.build(_load(tmp_path, ""), 1, "agent")
    assert "--signal" not in _client_argv(without) and not without.files


@pytest.mark.parametrize("trace, expected", [
    ("0s one -60\n0s three -60\n", "walk.txt:2: workload.signal: unknown path 'three'; allowed: one, two"),
    ("0s one -60\n2s two -60\n1s one -90\n", "walk.txt:3: workload.signal: 1s is before the previous point's 2s"),
    ("0s one -60 extra\n", "walk.txt:1: workload.signal: '0s one -60 extra' has 4 fields; allowed: lines 'TIME PATH DBM'"),
    ("0s one 60mW\n", "walk.txt:1: workload.signal: '60mW' is not a signal strength; allowed: a number of dBm"),
    ("0s one -250\n", "'-250' is not a signal strength"),
    ("0s one nan\n", "'nan' is not a signal strength"),
    ("soon one -60\n", "walk.txt:1: workload.signal: 'soon' is not a duration"),
    ("# nothing\n", "walk.txt: workload.signal: no points"),
])
def test_a_bad_trace_gets_one_line_naming_its_file_and_line(tmp_path: Path, trace: str, expected: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, ", policy: signal, signal: walk.txt", trace)
    assert expected in str(e.value) and "\n" not in str(e.value), str(e.value)


@pytest.mark.parametrize("policy, expected", [
    ("signal:switch=-75,prepare=-80", "prepare=-80 is not above switch=-75"),
    ("signal:prepare=-85", "prepare=-85 is not above switch=-80"),
    ("signal:hysteresis=-1", "bad hysteresis '-1' (allowed: a number of dB from 0 to 250)"),
    ("signal:switch=loud", "bad switch 'loud'"),
    ("signal:threshold=3", "unknown parameter 'threshold' for signal"),
])
def test_bad_signal_parameters_are_refused_before_anything_is_built(tmp_path: Path, policy: str, expected: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, f", policy: '{policy}', signal: walk.txt")
    assert expected in str(e.value), str(e.value)


def test_the_inline_form_is_checked_alike() -> None:
    with pytest.raises(ValueError, match=r"x.yaml:7: workload.signal.points.1: 1s is before"):
        signaltrace.inline([(2_000_000_000, "one", -60.0), (1_000_000_000, "one", -70.0)],
                           lambda i: f"x.yaml:{6 + i}", "workload.signal.points", ["one"])


@pytest.fixture(scope="module")
def agent() -> Path:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)
    return AGENT_DIR / "build/sctpbench-agent"


def _agent_client(agent: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(agent), "client", "--local", "198.18.0.1", "--peer", "198.18.0.2,198.18.1.2", "--port", "5000",
                           "--records", str(tmp_path / "c.rec"), "--size", "200", "--rate", "50", "--arrival", "periodic",
                           "--seed", "1", "--duration", "1000", *extra], capture_output=True, text=True, timeout=30)


def test_the_agent_refuses_a_bad_signal_file_and_a_signal_policy_without_one(agent: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.sig"
    bad.write_text("0 198.18.0.2 -60\n-5 198.18.1.2 -60\n")
    r = _agent_client(agent, tmp_path, "--policy", "signal", "--signal", str(bad))
    assert r.returncode == 2 and f"{bad}:2: OFFSET_NS below the previous point's" in r.stderr, r.stderr
    r = _agent_client(agent, tmp_path, "--policy", "signal")
    assert r.returncode == 2 and "--policy signal needs --signal FILE" in r.stderr, r.stderr
    r = _agent_client(agent, tmp_path, "--signal", str(bad))
    assert r.returncode == 2 and "--signal goes with --policy signal only" in r.stderr, r.stderr


def test_the_agent_reads_the_file_the_plan_writes(agent: Path, tmp_path: Path) -> None:
    p = plan.build(_load(tmp_path, ", start: 1s, policy: signal, signal: walk.txt"), 1, "agent")
    sig = tmp_path / "main.sig"
    sig.write_text(p.files["signals/main.sig"])
    r = _agent_client(agent, tmp_path, "--policy", "signal", "--signal", str(sig))
    # Past the command line (a usage error is 2); the host may lack kernel SCTP, which fails later.
    assert r.returncode != 2, r.stderr
    if (tmp_path / "c.rec").exists():
        meta = dict(line.rstrip("\n").split("\t")[1:3] for line in (tmp_path / "c.rec").read_text().splitlines()
                    if line.startswith("meta\t"))
        assert meta["signal"] == str(sig) and meta["signal_points"] == "6"
