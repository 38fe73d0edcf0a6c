"""The ansible backend's pure parts: the inventory, each machine's share of a plan, the bundle,
and merging what the machines sent back. No machine, no kernel: the guest test with a lab
of guests (tests/lab/test_ansible.py) runs the playbooks for real."""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from sctpbench.backends.ansible import backend as ansible
from sctpbench.backends.ansible import dummynet, inventory
from sctpbench.backends.ansible import share as machine_share
from sctpbench.backends.netns import render as netns_render
from sctpbench.model import spec
from sctpbench.model.errors import BackendError, SpecError
from sctpbench.plan import build as planning
from sctpbench.plan.data import Plan

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "sctpbench/workloads/agent/build/sctpbench-agent"

INVENTORY = """\
machines:
  client: {address: 198.19.255.2, interfaces: {primary: eth1, secondary: eth2}}
  server: {address: 198.19.255.6, port: 2222, identity: /k, interfaces: {primary: eth1, secondary: eth2}}
  emu:
    address: 198.19.255.10
    ssh_args: -o ProxyCommand="ip netns exec lab socat STDIO TCP:%h:%p"
    interfaces: {primary-a: eth1, primary-b: eth2, secondary-a: eth3, secondary-b: eth4}
clock: {bound: 2ms}
start_margin: 15s
"""


def _plan(*overrides: str) -> Plan:
    return planning.build(spec.load(ROOT / "examples/failover.yaml", list(overrides)), 1, "/opt/sctpbench-agent")


def _inventory(tmp_path: Path, text: str = INVENTORY) -> inventory.Inventory:
    path = tmp_path / "inventory.yaml"
    path.write_text(text)
    return inventory.load(path)


def test_the_inventory_is_read_with_its_defaults(tmp_path: Path) -> None:
    inv = _inventory(tmp_path)
    assert inv.clock_bound_ns == 2_000_000 and inv.start_margin_ns == 15_000_000_000
    assert inv.workdir == inventory.DEFAULT_WORKDIR
    server = inv.machine("server")
    assert server.ssh_command() == ["ssh", "-p", "2222", "-o", "BatchMode=yes", "-o", "ControlPath=none", "-i", "/k",
                                    "root@198.19.255.6"]
    assert inv.machine("emu").ssh_command()[-3:] == ["-o", "ProxyCommand=ip netns exec lab socat STDIO TCP:%h:%p",
                                                     "root@198.19.255.10"]


@pytest.mark.parametrize(("text", "message"), [
    ("machines: {}\n", "inventory.yaml:1: machines: a mapping of the experiment's host names to machines is required"),
    ("machines:\n  client: {address: a, interfaces: {}, colour: red}\n",
     "inventory.yaml:2: machines.client.colour: unknown key; allowed: address, identity"),
    ("machines:\n  client:\n    address: a\n    port: 70000\n", "inventory.yaml:4: machines.client.port: a port number 1-65535"),
    ("machines:\n  client: {interfaces: {}}\n", "machines.client.address: a non-empty string is required"),
    ("machines:\n  client: {address: a}\nclock: {bound: 5}\n", "inventory.yaml:3: clock.bound: a duration like 5ms"),
    ("machines:\n  client: {address: a}\nclock: {shared: virtual}\n", "inventory.yaml:3: clock.shared: allowed: paced"),
    ("machines:\n  client: {address: a}\nclock: {shared: paced, epochs: {client: soon}}\n",
     "inventory.yaml:3: clock.epochs: a mapping of host names to integers (ns)"),
])
def test_a_bad_inventory_gets_one_message_with_file_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SpecError) as e:
        _inventory(tmp_path, text)
    assert message in str(e.value)


def test_a_host_without_a_machine_is_named(tmp_path: Path) -> None:
    inv = _inventory(tmp_path, "machines:\n  client: {address: a, interfaces: {}}\n")
    with pytest.raises(SpecError, match="no machine for the experiment's host 'server'; the inventory has client"):
        ansible.parts(_plan(), inv, "b")


def test_a_machine_builds_only_its_hosts_and_adopts_its_interfaces(tmp_path: Path) -> None:
    plan = _plan()
    part = ansible.parts(plan, _inventory(tmp_path), "b")["client"]
    commands = machine_share.local_setup(plan, part)
    rendered = [c.render() for c in commands]
    ns = netns_render.namespace(plan, "client")
    assert rendered[0].startswith("modprobe")  # kernel-wide: every machine loads what it needs
    assert rendered[1] == f"ip netns add {ns}"
    assert not any("sb-" in r and "-server" in r for r in rendered)  # nothing of the server's
    assert not any("type veth" in r for r in rendered)
    # eth1 carries primary: moved in, renamed, given the plan's MAC; its own name kept in its alias.
    assert rendered[2:6] == ["ip link set dev eth1 down", "ip link set dev eth1 alias sctpbench:eth1",
                             f"ip link set dev eth1 netns {ns}",
                             f"ip -n {ns} link set dev eth1 name primary address 02:5b:c6:12:00:01"]
    assert f"ip -n {ns} addr add 198.18.0.1/24 dev primary" in rendered


def test_a_missing_interface_is_named_with_its_inventory_key(tmp_path: Path) -> None:
    inv = _inventory(tmp_path, "machines:\n  client: {address: a, interfaces: {primary: eth1}}\n  server: {address: b}\n")
    part = ansible.parts(_plan(), inv, "b")["client"]
    with pytest.raises(BackendError, match="no interface for client's 'secondary' \\(machines.client.interfaces\\)"):
        machine_share.local_setup(_plan(), part)


def test_each_machine_applies_only_its_part_of_the_timeline() -> None:
    plan = _plan()
    client = machine_share.local_timeline(plan, ["client"], {"main.client"})
    server = machine_share.local_timeline(plan, ["server"], {"main.server"})
    assert [a.kind for a in client] == ["start", "fail"]
    assert [a.kind for a in server] == ["fail"]  # the server's agent is told nothing
    assert {c.host for c in client[1].commands} == {"client"} and client[1].confirm == [["client", "primary"]]


def test_through_the_emulator_the_emulator_machine_shapes(tmp_path: Path) -> None:
    plan = _plan("topology.emulator=true")
    inv = _inventory(tmp_path)
    emu = [c.render() for c in machine_share.local_setup(plan, ansible.parts(plan, inv, "b")["emu"])]
    client = [c.render() for c in machine_share.local_setup(plan, ansible.parts(plan, inv, "b")["client"])]
    assert any("netem delay 10ms" in r for r in emu) and not any("netem delay" in r for r in client)
    assert any("ip_forward=1" in r for r in emu)
    assert machine_share.local_timeline(plan, ["client"], {"main.client"})[1:] == []  # the fail is the emulator's
    assert [a.kind for a in machine_share.local_timeline(plan, ["emu"], set())] == ["fail"]


def test_the_agent_is_the_bundles_and_stamps_the_time_of_day(tmp_path: Path) -> None:
    plan = _plan()
    part = ansible.parts(plan, _inventory(tmp_path), "abc")["server"]
    share = machine_share.MachineShare(part)
    argv = share.process_argv(plan, next(p for p in plan.processes if p.role == "server"), tmp_path)
    at = argv.index("/var/tmp/sctpbench/bundles/abc/bin/sctpbench-agent")
    assert argv[:at] == ["ip", "netns", "exec", netns_render.namespace(plan, "server")]
    assert argv[at + 1:at + 4] == ["server", "--clock", "realtime"]


def test_the_bundle_holds_what_a_machine_runs_and_is_named_by_its_content(tmp_path: Path) -> None:
    if not AGENT.exists():
        pytest.skip("the agent is not built")
    path, bundle_id = ansible.bundle(AGENT, tmp_path)
    again, same = ansible.bundle(AGENT, tmp_path)
    assert same == bundle_id and again == path
    with tarfile.open(path) as tar:
        names = set(tar.getnames())
    for needed in ("bin/sctpbench-agent", "sctpbench/backends/ansible/share.py", "sctpbench/backends/ansible/clean.py",
                   "sctpbench/plan/data.py", "sctpbench/model/sctp_params.py"):
        assert f"{bundle_id}/{needed}" in names
    assert not any("__pycache__" in n or "/analysis/" in n for n in names)


def test_the_bundles_machine_side_runs_on_the_standard_library_alone(tmp_path: Path) -> None:
    # A machine has Debian's python3 and nothing else of ours: every module share.py and
    # clean.py import must be in the bundle, and none may need a package from PyPI (-S).
    if not AGENT.exists():
        pytest.skip("the agent is not built")
    path, bundle_id = ansible.bundle(AGENT, tmp_path)
    with tarfile.open(path) as tar:
        tar.extractall(tmp_path / "machine")  # our own tarball, just made
    for module in ("sctpbench.backends.ansible.share", "sctpbench.backends.ansible.clean"):
        r = subprocess.run(["/usr/bin/python3", "-S", "-c", f"import {module}"], cwd=tmp_path / "machine" / bundle_id,
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{module}: {r.stderr[-600:]}"


def _share(results: Path, host: str, files: dict[str, object]) -> None:
    folder = results / host
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    with tarfile.open(results / f"{host}.tar.gz", "w:gz") as tar:
        tar.add(folder, arcname=".")


def _event(kind: str, issued: int, applied: int) -> str:
    return json.dumps({"kind": kind, "target": "primary", "detail": "", "direction": None, "at_ns": 5,
                       "scheduled_ns": 100, "issued_ns": issued, "applied_ns": applied, "lag_ns": applied - 100}) + "\n"


def test_the_machines_results_merge_into_one_run_folder(tmp_path: Path) -> None:
    plan = _plan()
    results = tmp_path / "results"
    ok = {"ok": True, "error": None, "t0_ns": 42, "t0_realtime_ns": 42}
    _share(results, "client", {"records/main.client.rec": "c", "events.jsonl": _event("fail", 101, 103), "backend.json": ok,
                               "kernel.json": {"sysctl": {"client": {"rto_min": "200"}}, "hz": 1000},
                               "versions.json": {"agent": "a"}, "plan.json": "{}"})
    _share(results, "server", {"records/main.server.rec": "s", "events.jsonl": _event("fail", 102, 104), "backend.json": ok,
                               "kernel.json": {"sysctl": {"server": {"rto_min": "200"}}, "hz": 1000},
                               "versions.json": {"agent": "a"}})
    run = tmp_path / "run"
    run.mkdir()
    status = ansible.merge(run, results, plan)
    assert status["ok"] is True and status["t0_ns"] == 42
    assert (run / "records/main.client.rec").read_text() == "c" and (run / "records/main.server.rec").read_text() == "s"
    assert not (run / "plan.json").exists()  # the orchestrator's own stays the one
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert len(events) == 1 and events[0]["issued_ns"] == 101 and events[0]["applied_ns"] == 104 and events[0]["lag_ns"] == 4
    kernel = json.loads((run / "kernel.json").read_text())
    assert kernel["sysctl"] == {"client": {"rto_min": "200"}, "server": {"rto_min": "200"}} and kernel["hz"] == 1000


def test_a_machine_that_failed_or_sent_nothing_fails_the_run(tmp_path: Path) -> None:
    plan = _plan()
    results = tmp_path / "results"
    _share(results, "client", {"backend.json": {"ok": False, "error": "main.client did not print 'ready'", "t0_ns": 1}})
    run = tmp_path / "run"
    run.mkdir()
    status = ansible.merge(run, results, plan)
    assert status["ok"] is False
    assert status["error"] == "client: main.client did not print 'ready'; server: no results came back"


def test_a_freebsd_emulator_gets_dummynet_pipes_printed_and_is_not_run(tmp_path: Path) -> None:
    plan = _plan("topology.emulator=true")
    lines = dummynet.render(plan, {"primary-a": "em1", "primary-b": "em2", "secondary-a": "em3", "secondary-b": "em4"})
    assert "UNTESTED" in lines[0]
    # forward (client → server) leaves the emulator toward the server: primary-b
    assert "ipfw pipe 1 config bw 100000000bit/s delay 10ms queue 1000" in lines
    assert "ipfw add 1001 pipe 1 ip from any to any out xmit em2" in lines
    assert "ipfw add 500 deny ip from any to any in recv em1" in lines and "ipfw add 500 deny ip from any to any in recv em2" in lines
    inv = _inventory(tmp_path, INVENTORY.replace("  emu:\n", "  emu:\n    system: freebsd\n"))
    with pytest.raises(BackendError, match="emu: a FreeBSD emulator's ipfw/Dummynet commands are printed"):
        ansible.run_plan(plan, tmp_path, print, inv, AGENT)


def test_dummynet_lists_what_it_cannot_express() -> None:
    shaping = {"rate": 6_000_000, "delay": 150_400_000, "loss": 1.5, "queue": 50, "jitter": 2_000_000, "duplicate": 0.0}
    assert dummynet.pipe_config(3, shaping) == "ipfw pipe 3 config bw 6000000bit/s delay 150ms plr 0.015 queue 50"
    assert dummynet.unsupported(shaping) == ["jitter"]


def test_only_the_emulator_may_be_freebsd(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="inventory.yaml:2: machines.client.system: linux, or freebsd for the emulator"):
        _inventory(tmp_path, "machines:\n  client: {address: a, system: freebsd}\n")


def test_on_one_virtual_time_the_start_falls_on_the_first_hosts_timer_tick(tmp_path: Path) -> None:
    shared = _inventory(tmp_path, INVENTORY.replace("clock: {bound: 2ms}",
                                                    "clock: {bound: 2ms, shared: paced, epochs: {client: 1234567, server: 0}}"))
    now = 1_800_000_000_123_456_789
    start = ansible.start_moment(shared, "client", now)
    assert 0 <= start - (now + 15_000_000_000) < 1_000_000
    assert (start - 1234567) % 1_000_000 == 0
    # Machines with clocks of their own: the margin alone.
    assert ansible.start_moment(_inventory(tmp_path), "client", now) == now + 15_000_000_000


def test_on_one_virtual_time_the_preflight_names_a_machine_whose_clock_was_set(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from sctpbench.backends.ansible import clocksync

    shared = _inventory(tmp_path, INVENTORY.replace(
        "clock: {bound: 2ms}", "clock: {bound: 2ms, shared: paced, epochs: {client: 100, server: 100, emu: 137}}"))
    now = {"client": 100, "server": 100 + 2_000_000_000, "emu": 137}
    monkeypatch.setattr(clocksync, "epoch", lambda machine: now[machine.host])
    with pytest.raises(BackendError, match=r"server's clock is 2000\.000 ms ahead of the machines' shared virtual time"):
        clocksync.check(shared, ["client", "server", "emu"])
    now["server"] = 100
    facts = clocksync.check(shared, ["client", "server", "emu"])
    assert {h: o["offset_ns"] for h, o in facts["machines"].items()} == {"client": 0, "server": 0, "emu": 0}  # type: ignore[attr-defined]


def test_the_playbooks_run_on_the_installed_mitogen_strategy() -> None:
    strategies = ansible.mitogen_strategies()
    assert (strategies / "mitogen_linear.py").is_file()  # what ANSIBLE_STRATEGY=mitogen_linear loads
    assert [c.ok for c in ansible.AnsibleBackend().checks() if c.name == "Mitogen for Ansible"] == [True]


def test_without_mitogen_the_backend_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ansible.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(BackendError, match=r"needs Mitogen for Ansible: not installed \(pip: mitogen; scripts/install\)"):
        ansible.mitogen_strategies()
    [check] = [c for c in ansible.AnsibleBackend().checks() if c.name == "Mitogen for Ansible"]
    assert not check.ok and check.detail == ansible.MITOGEN_MISSING
