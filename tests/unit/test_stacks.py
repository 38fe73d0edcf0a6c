"""`stack:` on a workload (docs/stacks.md): linux by default and then out of the run id;
usrsctp runs the usrsctp agent with the sctp: keys it has as options, its own cmt and stream
scheduler after them, and refuses the others with one line naming where they were written."""

from pathlib import Path

import pytest

from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.orchestration import capabilities
from sctpbench.plan import build as plan

TOPOLOGY = """topology:
  hosts: [a, b]
  paths:
    one: {between: [a, b], delay: 10ms}
    two: {between: [a, b], delay: 10ms}
"""


def _load(tmp_path: Path, workload: str, sctp: str = "") -> spec.Experiment:
    f = tmp_path / "x.yaml"
    f.write_text(TOPOLOGY + (f"sctp: {{{sctp}}}\n" if sctp else "") +
                 f"workload: {{client: a, server: b, duration: 1s{workload}}}\n")
    return spec.load(f, [])


def _argv(e: spec.Experiment, role: str) -> list[str]:
    p = plan.build(e, 1, "/x/build/sctpbench-agent")
    return next(proc.argv for proc in p.processes if proc.role == role)


def test_linux_is_the_default_and_keeps_the_run_id(tmp_path: Path) -> None:
    ids = {plan.build(_load(tmp_path, extra), 1, "agent").run_id for extra in ("", ", stack: linux")}
    assert len(ids) == 1
    assert plan.build(_load(tmp_path, ", stack: usrsctp"), 1, "agent").run_id not in ids
    assert _argv(_load(tmp_path, ""), "client")[0] == "/x/build/sctpbench-agent"


def test_usrsctp_gets_its_agent_and_the_mapped_options(tmp_path: Path) -> None:
    e = _load(tmp_path, ", stack: usrsctp, usrsctp: {cmt: 2, stream_scheduler: priority}",
              "rto_min: 200ms, rto_max: 2s, rto_initial: 500ms, path_max_retrans: 2, hb_interval: 300ms, "
              "sack_delay: 20ms, max_burst: 0, nodelay: true, streams: 4")
    for role in ("client", "server"):
        argv = _argv(e, role)
        assert argv[0] == "/x/build/sctpbench-agent-usrsctp"
        tail = argv[argv.index("--sample-interval") + 2:]
        assert tail == ["--rto-initial", "500", "--rto-min", "200", "--rto-max", "2000", "--path-max-retrans", "2",
                        "--hb-interval", "300", "--sack-delay", "20", "--nodelay", "1", "--streams", "4",
                        "--max-burst", "0", "--cmt", "2", "--stream-scheduler", "priority"], tail
    # Its values are its own socket options: no net.sctp sysctl is written for them.
    assert not any("net.sctp.rto_min" in " ".join(c.args) for c in plan.build(e, 1, "agent").setup)


@pytest.mark.parametrize("workload, sctp, expected", [
    (", stack: usrsctp", "pf_retrans: 1", "x.yaml:6: sctp.pf_retrans: has no meaning on stack usrsctp; allowed: "
                                          "rto_initial, rto_min, rto_max"),
    (", stack: usrsctp, sctp: {sndbuf: 64KiB}", "", "x.yaml:6: workload.sctp.sndbuf: has no meaning on stack usrsctp"),
    (", usrsctp: {cmt: 1}", "", "workload.usrsctp: goes with stack: usrsctp only"),
    (", stack: usrsctp, policy: rtt-ratio", "", "workload.policy: stack: usrsctp runs signaling messages without path "
                                           "policies"),
    (", stack: usrsctp, scheduler: round-robin, usrsctp: {cmt: 1}", "",
     "workload.scheduler: has no meaning with usrsctp cmt: 1 (CMT chooses each chunk's path itself)"),
    (", stack: usrsctp, scheduler: 'dynamic-path:hz=250'", "", "workload.scheduler: hz has no meaning on stack usrsctp"),
    (", stack: usrsctp, scheduler: static-stream, usrsctp: {stream_scheduler: default}", "",
     "workload.usrsctp.stream_scheduler: default with a per-message scheduler: usrsctp 0.9.5.0 spins"),
    (", stack: usrsctp, usrsctp: {cmt: 5}", "", "cmt"),
])
def test_what_usrsctp_cannot_do_is_refused_in_one_line(tmp_path: Path, workload: str, sctp: str, expected: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, workload, sctp)
    assert expected in str(e.value) and "\n" not in str(e.value).strip(), str(e.value)


@pytest.mark.parametrize("scheduler", ["round-robin", "static-stream", "dynamic-path", "stream-aware:margin=5"])
def test_a_per_message_scheduler_runs_on_usrsctp_with_cmt_off(tmp_path: Path, scheduler: str) -> None:
    for own in ("", ", usrsctp: {cmt: 0, stream_scheduler: first-come}"):
        argv = _argv(_load(tmp_path, f", stack: usrsctp, scheduler: '{scheduler}'{own}"), "client")
        assert argv[0].endswith("sctpbench-agent-usrsctp")
        assert argv[argv.index("--scheduler") + 1] == scheduler


def test_a_mix_runs_on_usrsctp_as_a_schedule_file_without_lifetimes(tmp_path: Path) -> None:
    mix = ", type: mix, mix: [{size: 200B, gap: 10ms, stream: 1}]"
    argv = _argv(_load(tmp_path, ", stack: usrsctp, scheduler: round-robin" + mix), "client")
    assert argv[0].endswith("sctpbench-agent-usrsctp")
    assert argv[argv.index("--arrival") + 1] == "schedule" and "--schedule" in argv
    with pytest.raises(SpecError, match=r"workload\.mix\.0\.lifetime: has no meaning on stack usrsctp"):
        _load(tmp_path, ", stack: usrsctp, type: mix, mix: [{size: 200B, gap: 10ms, lifetime: 50ms}]")


def test_a_usrsctp_run_needs_the_usrsctp_agent_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = tmp_path / "build" / "sctpbench-agent"
    agent.parent.mkdir()
    agent.write_text("#!/bin/sh\n")
    agent.chmod(0o755)
    monkeypatch.setenv("SCTPBENCH_AGENT", str(agent))
    linux, usrsctp = _load(tmp_path, ""), _load(tmp_path, ", stack: usrsctp")
    capabilities.check_stack_variants(linux, "uml", "x.yaml")  # nothing asked of the second stack
    with pytest.raises(SpecError, match=r"^x\.yaml: association main: stack: usrsctp needs .*sctpbench-agent-usrsctp "
                                        r"not built \(make -C sctpbench/workloads/agent usrsctp\)$"):
        capabilities.check_stack_variants(usrsctp, "uml", "x.yaml")
    (agent.parent / "sctpbench-agent-usrsctp").write_bytes(agent.read_bytes())
    (agent.parent / "sctpbench-agent-usrsctp").chmod(0o755)
    capabilities.check_stack_variants(usrsctp, "uml", "x.yaml")
