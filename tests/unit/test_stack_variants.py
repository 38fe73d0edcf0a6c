"""Stack variants of the project's kernel (initial cwnd, cwnd carried to a new primary):
their keys, the sysctls the plan writes, and the refusal on a kernel without them."""

import subprocess
import sys
from pathlib import Path

import pytest

from sctpbench.backends.uml import kernel as uml_kernel
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.orchestration import capabilities
from sctpbench.plan import build as plan

ROOT = Path(__file__).resolve().parents[2]
FAILOVER = ROOT / "examples" / "failover.yaml"
VARIANTS = ("initial_cwnd_mtus", "primary_cwnd_carry")


def _sysctls(p: plan.Plan, host: str) -> list[str]:
    return [a for c in p.setup if c.tool == "sysctl" and c.host == host for a in c.args if a.startswith("net.sctp.")]


def _plan(*overrides: str) -> plan.Plan:
    return plan.build(spec.load(FAILOVER, list(overrides)), 1, "/opt/sctpbench-agent")


def test_unset_variants_write_nothing_so_the_kernel_keeps_stock_behaviour() -> None:
    written = _sysctls(_plan(), "client") + _sysctls(_plan(), "server")
    assert not [w for w in written if w.split("=")[0].removeprefix("net.sctp.") in (*VARIANTS, "max_burst")]


@pytest.mark.parametrize("value, written", [("10", "10"), ("unrestricted", "65535")])
def test_initial_cwnd_is_written_in_mtus_on_both_hosts(value: str, written: str) -> None:
    p = _plan(f"sctp.initial_cwnd={value}", "sctp.max_burst=0", "sctp.primary_cwnd_carry=true")
    for host in ("client", "server"):
        assert {f"net.sctp.initial_cwnd_mtus={written}", "net.sctp.max_burst=0",
                "net.sctp.primary_cwnd_carry=1"} <= set(_sysctls(p, host))


def test_requested_values_are_reported_as_written() -> None:
    p = _plan("sctp.initial_cwnd=unrestricted", "sctp.primary_cwnd_carry=false")
    requested = plan.requested_sctp(spec.load(FAILOVER, ["sctp.initial_cwnd=unrestricted",
                                                         "sctp.primary_cwnd_carry=false"]).sctp)
    assert requested["initial_cwnd"] == "unrestricted" and requested["primary_cwnd_carry"] is False
    assert "net.sctp.primary_cwnd_carry=0" in _sysctls(p, "client")


def test_two_associations_on_one_host_must_agree_on_a_variant(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text(
        "topology:\n  hosts: [c, s]\n  paths:\n    a: {between: [c, s]}\nworkloads:\n"
        "  - {name: one, client: c, server: s, duration: 1s, sctp: {initial_cwnd: 20}}\n"
        "  - {name: two, client: c, server: s, port: 5001, duration: 1s, sctp: {initial_cwnd: 3}}\n")
    with pytest.raises(SpecError, match=r"x.yaml:7: workloads.1.sctp.initial_cwnd: 3 but association one asks for 20 "
                                        r"on host c \(a sysctl\); allowed: the same value"):
        spec.load(tmp_path / "x.yaml")


def _kernel_folder(tmp_path: Path, with_variants: bool) -> Path:
    """A cache entry as scripts/build-kernel leaves it, its `linux` holding (or not) the
    sysctl names as the kernel's code holds them: NUL-terminated strings."""
    names = [b"max_burst", *([n.encode() for n in VARIANTS] if with_variants else [])]
    (tmp_path / "linux").write_bytes(b"\x7fELF\0" + b"\0".join(names) + b"\0rest")
    (tmp_path / "linux").chmod(0o755)
    (tmp_path / "release").write_text("6.1.192\n")
    (tmp_path / "build.txt").write_text("source=linux-source-6.1 test\n")
    return tmp_path


def test_the_kernel_image_tells_which_sysctls_it_has(tmp_path: Path) -> None:
    old = uml_kernel.Kernel(tmp_path / "linux", "6.1", "project", True, tmp_path, None, "")
    _kernel_folder(tmp_path, with_variants=False)
    assert uml_kernel.missing_sysctls(old, ["max_burst", *VARIANTS]) == list(VARIANTS)
    _kernel_folder(tmp_path, with_variants=True)
    assert uml_kernel.missing_sysctls(old, ["max_burst", *VARIANTS]) == []
    # A longer name that ends in a variant's is not the variant.
    (tmp_path / "linux").write_bytes(b"\0xprimary_cwnd_carry\0")
    assert uml_kernel.missing_sysctls(old, ["primary_cwnd_carry"]) == ["primary_cwnd_carry"]


def test_debians_kernel_is_judged_by_its_sctp_module(tmp_path: Path) -> None:
    ko = tmp_path / "kernel" / "net" / "sctp" / "sctp.ko"
    ko.parent.mkdir(parents=True)
    ko.write_bytes(b"\0max_burst\0pf_expose\0")
    debian = uml_kernel.Kernel(Path("/usr/bin/linux.uml"), "6.1.0", "debian", False, tmp_path, None, "")
    assert uml_kernel.missing_sysctls(debian, ["max_burst", "initial_cwnd_mtus"]) == ["initial_cwnd_mtus"]


def test_a_variant_on_a_kernel_without_it_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCTPBENCH_UML_KERNEL", str(_kernel_folder(tmp_path, with_variants=False)))
    experiment = spec.load(FAILOVER, ["sctp.primary_cwnd_carry=true"])
    with pytest.raises(SpecError, match=r"^failover.yaml: sctp.primary_cwnd_carry: needs net.sctp.primary_cwnd_carry, "
                                        r"which the project guest kernel 6.1.192 lacks .*allowed: "):
        capabilities.check_stack_variants(experiment, "uml", "failover.yaml")
    capabilities.check_stack_variants(spec.load(FAILOVER), "uml", "failover.yaml")  # nothing asked: no refusal


def test_a_variant_on_a_kernel_with_it_goes_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCTPBENCH_UML_KERNEL", str(_kernel_folder(tmp_path, with_variants=True)))
    experiment = spec.load(FAILOVER, ["sctp.initial_cwnd=20", "sctp.primary_cwnd_carry=true"])
    capabilities.check_stack_variants(experiment, "uml", "failover.yaml")


def test_the_netns_backend_looks_at_its_hosts_proc_sys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from sctpbench.backends.netns import backend as netns

    (tmp_path / "max_burst").write_text("4\n")
    monkeypatch.setattr(netns, "SCTP_SYSCTLS", tmp_path)
    missing, kernel = netns.NetnsBackend().missing_sysctls(["max_burst", "initial_cwnd_mtus"], "real")
    assert missing == ["initial_cwnd_mtus"] and "this host's kernel" in kernel


def test_the_run_command_refuses_it_with_one_line_and_exit_2_before_building(tmp_path: Path) -> None:
    (tmp_path / "kernel").mkdir()
    kernel = _kernel_folder(tmp_path / "kernel", with_variants=False)
    out = tmp_path / "results"
    # /bin/true stands in for the agent: the refusal comes before any agent would start.
    env = {"SCTPBENCH_UML_KERNEL": str(kernel), "SCTPBENCH_AGENT": "/bin/true", "PATH": "/usr/sbin:/usr/bin:/bin",
           "HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(FAILOVER), "--backend", "uml",
                        "--set", "sctp.initial_cwnd=10", "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "sctp.initial_cwnd: needs net.sctp.initial_cwnd_mtus" in r.stderr
    assert not out.exists()  # no run was started, and no results folder made for it


# Issue 26's variants: seed 004's α-scaled congestion state and buffer retransmission, and
# seed 000 Paper II's relaxed RTO back-off.
NEW_VARIANTS = {"primary_cwnd_alpha_permille": "primary_cwnd_alpha", "buffer_retransmit": "buffer_retransmit",
                "rto_backoff_percent": "rto_backoff_pct", "primary_cwnd_alpha_estimate": "primary_cwnd_alpha_estimate"}
BOOL_VARIANTS = ("buffer_retransmit", "primary_cwnd_alpha_estimate")


def test_unset_new_variants_write_nothing_and_keep_plans_as_they_were() -> None:
    p = _plan()
    written = _sysctls(p, "client") + _sysctls(p, "server")
    assert not [w for w in written if w.split("=")[0].removeprefix("net.sctp.") in NEW_VARIANTS.values()]
    # Not even a null in the requested values: plans of before keep their bytes.
    assert not set(NEW_VARIANTS) & set(plan.requested_sctp(spec.load(FAILOVER).sctp))


def test_the_new_variants_are_written_on_both_hosts_and_reported() -> None:
    sets = ["sctp.primary_cwnd_alpha_permille=28646", "sctp.buffer_retransmit=true", "sctp.rto_backoff_percent=150"]
    p = _plan(*sets)
    for host in ("client", "server"):
        assert {"net.sctp.primary_cwnd_alpha=28646", "net.sctp.buffer_retransmit=1",
                "net.sctp.rto_backoff_pct=150"} <= set(_sysctls(p, host))
    requested = plan.requested_sctp(spec.load(FAILOVER, sets).sctp)
    assert (requested["primary_cwnd_alpha_permille"], requested["buffer_retransmit"], requested["rto_backoff_percent"]) \
        == (28646, True, 150)


@pytest.mark.parametrize("setting", ["sctp.rto_backoff_percent=99", "sctp.rto_backoff_percent=201",
                                     "sctp.primary_cwnd_alpha_permille=0"])
def test_out_of_range_variant_values_are_refused(setting: str) -> None:
    with pytest.raises(SpecError):
        spec.load(FAILOVER, [setting])


@pytest.mark.parametrize("key, name", NEW_VARIANTS.items())
def test_each_new_variant_is_refused_on_a_kernel_without_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           key: str, name: str) -> None:
    monkeypatch.setenv("SCTPBENCH_UML_KERNEL", str(_kernel_folder(tmp_path, with_variants=True)))  # 0002's only
    value = "true" if key in BOOL_VARIANTS else "150"
    with pytest.raises(SpecError, match=rf"^failover.yaml: sctp.{key}: needs net.sctp.{name}, which the project guest "):
        capabilities.check_stack_variants(spec.load(FAILOVER, [f"sctp.{key}={value}"]), "uml", "failover.yaml")


# Issue 26, item 1: seed 004's α estimated in the stack (kernel/patches/0004).
def test_the_alpha_estimate_is_written_on_both_hosts_and_reported() -> None:
    p = _plan("sctp.primary_cwnd_alpha_estimate=true", "sctp.buffer_retransmit=true")
    for host in ("client", "server"):
        assert {"net.sctp.primary_cwnd_alpha_estimate=1", "net.sctp.buffer_retransmit=1"} <= set(_sysctls(p, host))
        assert not [w for w in _sysctls(p, host) if w.startswith("net.sctp.primary_cwnd_alpha=")]
    assert plan.requested_sctp(spec.load(FAILOVER, ["sctp.primary_cwnd_alpha_estimate=true"]).sctp)[
        "primary_cwnd_alpha_estimate"] is True


def test_the_alpha_estimate_and_a_fixed_alpha_are_refused_together_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"^[^\n]*sctp.primary_cwnd_alpha_estimate: primary_cwnd_alpha_permille is set "
                                        r"too, [^\n]*allowed: one of them$"):
        spec.load(FAILOVER, ["sctp.primary_cwnd_alpha_estimate=true", "sctp.primary_cwnd_alpha_permille=4000"])
    # also when one comes from the experiment's sctp: and the other from an association's own
    (tmp_path / "x.yaml").write_text(
        "topology:\n  hosts: [c, s]\n  paths:\n    a: {between: [c, s]}\nsctp: {primary_cwnd_alpha_permille: 4000}\n"
        "workloads:\n  - {name: one, client: c, server: s, duration: 1s, sctp: {primary_cwnd_alpha_estimate: true}}\n")
    with pytest.raises(SpecError, match=r"workloads.0.sctp.primary_cwnd_alpha_estimate: "):
        spec.load(tmp_path / "x.yaml")
    # false is stock behaviour, which a fixed α does not contradict
    spec.load(FAILOVER, ["sctp.primary_cwnd_alpha_estimate=false", "sctp.primary_cwnd_alpha_permille=4000"])
