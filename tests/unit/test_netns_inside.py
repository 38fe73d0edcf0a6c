"""The engine's work inside a namespace without `ip netns exec`: the process a plan names is
the one started, sysctls are written and read as `sysctl` would, and a failure says which
setting and why in one line. (tests/guest runs it in namespaces for real.)"""

import os
import subprocess
from pathlib import Path

import pytest

from sctpbench.backends.netns import engine, inside
from sctpbench.model.errors import BackendError


def test_a_plan_process_runs_the_command_after_ip_netns_exec_in_that_namespace() -> None:
    argv = ["ip", "netns", "exec", "sb-1234abcd-client", "/agent", "client", "--port", "5000"]
    assert inside.split_exec(argv) == ("sb-1234abcd-client", ["/agent", "client", "--port", "5000"])
    assert inside.split_exec(["tcpdump", "-i", "x"]) == (None, ["tcpdump", "-i", "x"])
    assert inside.split_exec(["ip", "netns", "exec", "ns"]) == (None, ["ip", "netns", "exec", "ns"])


def test_sysctls_are_written_and_read_back_as_the_sysctl_tool_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inside, "SYSCTL_ROOT", tmp_path)
    (tmp_path / "net" / "sctp").mkdir(parents=True)
    (tmp_path / "net" / "sctp" / "rto_min").write_text("1000\n")
    (tmp_path / "net" / "sctp" / "sctp_rmem").write_text("0\n")
    inside.write_sysctls(["net.sctp.rto_min=200", "net.sctp.sctp_rmem=4096 87380 6291456"], "shown")
    assert (tmp_path / "net" / "sctp" / "rto_min").read_text() == "200\n"
    assert inside.read_sysctl("net.sctp.sctp_rmem") == "4096 87380 6291456"
    assert inside.read_sysctl("net.sctp.no_such") is None  # as `sysctl -e`: skipped


def test_a_sysctl_that_cannot_be_set_names_the_command_and_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inside, "SYSCTL_ROOT", tmp_path)
    with pytest.raises(BackendError) as raised:
        inside.write_sysctls(["net.sctp.pf_expose=2"], "ip netns exec sb-x-a sysctl -q -w net.sctp.pf_expose=2")
    assert str(raised.value).splitlines() == ["command failed: ip netns exec sb-x-a sysctl -q -w net.sctp.pf_expose=2",
                                             'sysctl: setting key "net.sctp.pf_expose": No such file or directory']


def test_a_namespace_that_does_not_exist_is_an_error_and_none_is_where_the_engine_is() -> None:
    with inside.namespace(None):
        pass
    with pytest.raises(BackendError, match="network namespace sb-no-such-namespace: No such file or directory"):
        with inside.namespace("sb-no-such-namespace"):
            pass


def test_modprobe_is_skipped_only_when_every_module_is_built_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = "6.1.0-test"
    monkeypatch.setattr(engine.os, "uname", lambda: type("U", (), {"release": release})())
    listing = tmp_path / "lib" / "modules" / release
    listing.mkdir(parents=True)
    (listing / "modules.builtin").write_text("kernel/net/sctp/sctp.ko\nkernel/net/sched/sch_netem.ko\n")
    assert engine._built_in(["-a", "sctp", "sch_netem"], str(tmp_path))
    assert not engine._built_in(["-a", "sctp", "sch-tbf"], str(tmp_path))
    assert not engine._built_in(["-a", "sctp"], str(tmp_path / "none"))


def _namespaces() -> set[str]:
    return {line.split()[0] for line in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.splitlines()}


@pytest.mark.skipif(os.geteuid() != 0, reason="making namespaces needs root")
def test_the_namespaces_are_made_in_one_batch_and_teardown_deletes_only_those_it_made(tmp_path: Path) -> None:
    """One `ip -batch` makes them all; one that another run owns stops it there, and teardown
    deletes the ones made before it, never the other run's."""
    tag = f"sb-t{os.getpid():x}"
    owned, made, never = f"{tag}-owned", f"{tag}-made", f"{tag}-never"
    subprocess.run(["ip", "netns", "add", owned], check=True)
    try:
        runner = engine.NetnsEngine(plan=None, run_dir=tmp_path, report=lambda _: None)  # type: ignore[arg-type]
        with pytest.raises(BackendError, match=f"ip netns add {owned}\n.*File exists"):
            runner.add_namespaces([made, owned, never])
        assert runner.created_ns == [made]
        assert {made, owned} <= _namespaces() and never not in _namespaces()
        runner.teardown()
        assert made not in _namespaces() and owned in _namespaces()
    finally:
        subprocess.run(["ip", "-force", "-batch", "-"], input=f"netns del {owned}\nnetns del {made}\n", capture_output=True, text=True)
