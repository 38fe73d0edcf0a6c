"""The engine's work inside a namespace without `ip netns exec`: the process a plan names is
the one started, sysctls are written and read as `sysctl` would, and a failure says which
setting and why in one line. (tests/guest runs it in namespaces for real.)"""

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
