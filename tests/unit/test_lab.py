"""The lab without a kernel: the wire → switch assignment, the inventory, lab.json, the
folder checks, the processes it ends, and the command's exit statuses."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from sctpbench.backends.ansible import inventory as backend_inventory
from sctpbench.lab import guests, inventory, layout, lifecycle, network, processes, state
from sctpbench.lab.state import GuestState, LabRunning, LabState, SwitchState

ROOT = Path(__file__).resolve().parents[2]
LINK_FAULTS = ROOT / "examples" / "link-faults.yaml"  # client, server and the emulator emu
FAILOVER = ROOT / "examples" / "failover.yaml"  # client and server wired directly


def wires(plan_path: Path) -> list[list[str]]:
    return [c.args for c in lifecycle.plan_of(plan_path).setup if c.tool == "wire"]


def test_one_machine_per_host_with_its_own_management_30() -> None:
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    assert [(m.host, m.gateway, m.address, m.tap) for m in lab.machines] == [
        ("client", "198.19.255.1", "198.19.255.2", "tap0"),
        ("server", "198.19.255.5", "198.19.255.6", "tap1"),
        ("emu", "198.19.255.9", "198.19.255.10", "tap2"),
    ]
    assert lab.machine("emu").address_with_prefix == "198.19.255.10/30"


def test_each_wire_is_one_switch_joining_exactly_its_two_ends() -> None:
    plan_wires = wires(LINK_FAULTS)
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    assert len(lab.switches) == len(plan_wires) == 4
    for switch, wire in zip(lab.switches, plan_wires, strict=True):
        ends = [(p.host, p.plan_ifname, p.mac) for p in switch.ports]
        assert ends == [tuple(wire[0:3]), tuple(wire[3:6])]
    # The NICs are the machine's ethN in the order of its ends; eth0 is management's.
    assert lab.machine("client").nics == {"primary": "eth1", "secondary": "eth2"}
    assert lab.machine("server").nics == {"primary": "eth1", "secondary": "eth2"}
    assert lab.machine("emu").nics == {"primary-a": "eth1", "primary-b": "eth2", "secondary-a": "eth3", "secondary-b": "eth4"}
    # The client's primary and the emulator's side of it share a switch, and no other NIC does.
    first = lab.switches[0]
    assert {(p.host, p.nic) for p in first.ports} == {("client", "eth1"), ("emu", "eth1")}


def test_direct_wires_join_the_two_hosts() -> None:
    lab = layout.from_plan(lifecycle.plan_of(FAILOVER))
    assert [m.host for m in lab.machines] == ["client", "server"]
    assert [{(p.host, p.plan_ifname, p.nic) for p in s.ports} for s in lab.switches] == [
        {("client", "primary", "eth1"), ("server", "primary", "eth1")},
        {("client", "secondary", "eth2"), ("server", "secondary", "eth2")},
    ]


def test_a_guest_gets_its_tap_and_one_daemon_nic_per_wire_end_with_the_plans_mac(tmp_path: Path) -> None:
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    words = guests.nic_words(lab.machine("emu"), lab, tmp_path)
    mac = wires(LINK_FAULTS)[1][5]  # the emulator's end of the server's primary wire
    assert words[0] == "eth0=tuntap,tap2"
    assert words[2] == f"eth2=daemon,{mac},unix,{tmp_path}/sw-1.ctl"
    assert len(words) == 5


def test_too_many_hosts_for_the_management_network() -> None:
    plan = lifecycle.plan_of(FAILOVER)
    crowded = dataclasses.replace(plan, hosts=[f"h{i}" for i in range(layout.MAX_MACHINES + 1)], setup=[])
    with pytest.raises(layout.LayoutError, match="at most 64 machines"):
        layout.from_plan(crowded)


def test_the_guest_command_line_runs_in_the_labs_namespace_on_the_real_clock(tmp_path: Path) -> None:
    from sctpbench.backends.uml import kernel as uml_kernel

    kernel = uml_kernel.Kernel(binary=Path("/k/linux"), release="6.1", origin="project", time_travel=True,
                               modules=Path("/k"), config_sha256=None, detail="")
    lab = layout.from_plan(lifecycle.plan_of(FAILOVER))
    argv = guests.argv(kernel, "0123abcd", "sblab-0123abcd", lab.machine("server"), lab, tmp_path, Path("/root"))
    assert argv[:5] == ["ip", "netns", "exec", "sblab-0123abcd", "/k/linux"]
    assert "umid=sblab-0123abcd-server" in argv and "mem=256M" in argv
    assert "SB_LAB_HOST=server" in argv and "SB_LAB_ADDRESS=198.19.255.6/30" in argv
    assert not [w for w in argv if w.startswith("time-travel")]


def test_on_virtual_time_every_nic_is_a_vswitch_port_and_the_guest_a_calendar_client(tmp_path: Path) -> None:
    from sctpbench.backends.uml import kernel as uml_kernel

    kernel = uml_kernel.Kernel(binary=Path("/k/linux"), release="6.1", origin="project", time_travel=True,
                               modules=Path("/k"), config_sha256=None, detail="")
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    emu = lab.machine("emu")
    argv = guests.argv(kernel, "0123abcd", "sblab-0123abcd", emu, lab, tmp_path, Path("/root"), clock="virtual")
    assert f"time-travel=ext:2:{tmp_path}/calendar.sock" in argv
    devices = [w.removeprefix("virtio_uml.device=") for w in argv if w.startswith("virtio_uml.device=")]
    assert devices == [f"{tmp_path}/vu2-{n}.sock:1" for n in range(5)]
    assert not [w for w in argv if w.startswith(("eth0=", "eth1="))]  # no UML NICs
    names = dict(pair.split("=", 1) for pair in next(w for w in argv if w.startswith("SB_LAB_NICS="))[12:].split(","))
    assert names["eth0"] == network.management_mac(emu) and names["eth2"] == wires(LINK_FAULTS)[1][5]


def test_the_vswitch_joins_each_wires_two_ends_and_each_guest_to_its_tap(tmp_path: Path) -> None:
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    config = network.vswitch_config(lab, tmp_path)
    ports = config["ports"]
    assert isinstance(ports, list)
    taps = {p["name"]: p["tap"] for p in ports if p["tap"]}
    assert taps == {"client/eth0": "tap0", "server/eth0": "tap1", "emu/eth0": "tap2"}
    segments: dict[object, list[object]] = {}
    for p in ports:
        segments.setdefault(p["segment"], []).append(p["name"])
    wired = sorted(sorted(names) for seg, names in segments.items() if str(seg).startswith("sw-"))
    assert wired == [["client/eth1", "emu/eth1"], ["client/eth2", "emu/eth3"], ["emu/eth2", "server/eth1"],
                     ["emu/eth4", "server/eth2"]]
    assert {p["guest"] for p in ports if str(p["name"]).startswith("emu/")} == {2}
    assert config["calendar"] == str(tmp_path / "calendar.sock")


def test_a_lab_on_virtual_time_writes_a_shared_clock_the_ansible_backend_reads(tmp_path: Path) -> None:
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    machines = inventory.from_layout(lab, "sblab-0123abcd", Path("/lab/id_ed25519"), shared="paced")
    machines.clock_epochs = {"client": 1_795_000_000_000_000_001, "server": 7, "emu": -3}
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory.render(machines, tmp_path, "x"))
    assert "clock: {bound: 5ms, shared: paced, epochs: {client: 1795000000000000001, server: 7, emu: -3}}\n" in path.read_text()
    read = backend_inventory.load(path)
    assert read.clock_shared == "paced" and read.clock_epochs == machines.clock_epochs
    assert inventory.read(path) == machines


EXPECTED_CLIENT = (
    "  client:\n"
    "    address: 198.19.255.2\n"
    "    port: 22\n"
    "    user: root\n"
    "    identity: /lab/id_ed25519\n"
    '    ssh_args: -o ProxyCommand="ip netns exec sblab-0123abcd socat STDIO TCP:%h:%p" -o ControlPath=/lab/cm-%h'
    " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null\n"
    "    python: /usr/bin/python3\n"
    "    modprobe_root: /run/modroot\n"
    "    interfaces: {primary: eth1, secondary: eth2}\n"
)


def test_inventory_is_rendered_in_the_shape_the_ansible_backend_reads() -> None:
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    machines = inventory.from_layout(lab, "sblab-0123abcd", Path("/lab/id_ed25519"))
    text = inventory.render(machines, Path("/lab"), "examples/link-faults.yaml")
    assert text.startswith("# written by `sctpbench lab up`: the machines of lab /lab, one per host of "
                           "examples/link-faults.yaml\nmachines:\n" + EXPECTED_CLIENT)
    assert text.endswith("clock: {bound: 5ms}\nworkdir: /var/tmp/sctpbench\n")
    d = yaml.safe_load(text)
    assert list(d["machines"]) == ["client", "server", "emu"]
    assert d["machines"]["emu"]["interfaces"] == {"primary-a": "eth1", "primary-b": "eth2",
                                                  "secondary-a": "eth3", "secondary-b": "eth4"}
    assert d["machines"]["emu"]["address"] == "198.19.255.10" and d["machines"]["emu"]["port"] == 22
    assert inventory.parse(text) == machines


def test_the_ansible_backend_reads_the_labs_inventory(tmp_path: Path) -> None:
    lab = layout.from_plan(lifecycle.plan_of(LINK_FAULTS))
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory.render(inventory.from_layout(lab, "sblab-0123abcd", Path("/lab/id_ed25519")), tmp_path, "x"))
    read = backend_inventory.load(path)
    assert sorted(read.machines) == ["client", "emu", "server"]
    assert read.machine("emu").interfaces["secondary-b"] == "eth4" and read.machine("client").modprobe_root == "/run/modroot"
    assert read.clock_bound_ns == 5_000_000 and read.workdir == "/var/tmp/sctpbench"


def test_the_inventorys_ssh_goes_through_the_labs_namespace() -> None:
    entry = inventory.MachineEntry(host="client", address="198.19.255.2", identity="/lab/id_ed25519",
                                   ssh_args=inventory.ssh_args("sblab-0123abcd", Path("/lab")))
    argv = entry.ssh_argv("hostname")
    assert argv[:5] == ["ssh", "-i", "/lab/id_ed25519", "-p", "22"]
    assert "ProxyCommand=ip netns exec sblab-0123abcd socat STDIO TCP:%h:%p" in argv
    assert "ControlPath=/lab/cm-%h" in argv  # connections shared only within the lab
    assert argv[-2:] == ["root@198.19.255.2", "hostname"]


def sample_state(directory: Path) -> LabState:
    return LabState(
        id="0123abcd", directory=str(directory), experiment=str(LINK_FAULTS), netns="sblab-0123abcd",
        kernel="/k/linux", started_at="2026-11-25T10:00:00+00:00",
        guests=[GuestState(host="client", umid="sblab-0123abcd-client", tap="tap0", address="198.19.255.2",
                           gateway="198.19.255.1", console=str(directory / "logs/client.console"),
                           nics={"primary": "eth1"}, pid=4242)],
        switches=[SwitchState(name="sw-0", ctl=str(directory / "sw-0.ctl"), log=str(directory / "logs/sw-0.log"),
                              ports=[["client", "primary", "eth1"], ["emu", "primary-a", "eth1"]], pid=4243)],
    )


def test_lab_json_round_trip(tmp_path: Path) -> None:
    original = sample_state(tmp_path)
    state.write(tmp_path, original)
    assert state.read(tmp_path) == original
    assert not list(tmp_path.glob("*.tmp"))
    state.forget(tmp_path)
    assert state.read(tmp_path) is None


@pytest.mark.parametrize(("directory", "says"), [
    ("/srv/my,lab", "commas"), ("/srv/my lab", "spaces"), ("/run/lab", "outside /run"), ("/srv/" + "x" * 80, "too long"),
])
def test_folders_the_guests_cannot_use_are_refused(directory: str, says: str) -> None:
    with pytest.raises(state.BadLabFolder, match=says):
        state.check_directory(Path(directory))


def test_console_says_ready_or_why_not() -> None:
    assert guests.console_outcome("boot\r\nSB-LAB-READY client\r\n") == (True, None)
    assert guests.console_outcome("SB-LAB-ERROR cannot configure eth0\r\n") == (False, "cannot configure eth0")
    assert guests.console_outcome("booting") == (False, None)


def test_management_batch_gives_each_guest_its_tap_and_gateway() -> None:
    lab = layout.from_plan(lifecycle.plan_of(FAILOVER))
    assert network.management_batch(lab).splitlines() == [
        "link set lo up",
        "tuntap add dev tap0 mode tap", "addr add 198.19.255.1/30 dev tap0", "link set tap0 up",
        "tuntap add dev tap1 mode tap", "addr add 198.19.255.5/30 dev tap1", "link set tap1 up",
    ]


def start_marked(tmp_path: Path, mark: str) -> int:
    # sh carries the mark as its $0; its child sleep does not, but is in its process group.
    return processes.start_detached(["sh", "-c", "sleep 60 & wait", mark], tmp_path / f"{mark}.log")


def test_end_groups_ends_the_whole_group_and_only_what_carries_the_mark(tmp_path: Path) -> None:
    pid = start_marked(tmp_path, "sblab-test-mark")
    other = start_marked(tmp_path, "sblab-test-mark2")
    time.sleep(0.2)
    group = [p for p in Path("/proc").iterdir() if p.name.isdigit() and processes._process_group(int(p.name)) == pid]
    assert len(group) == 2  # sh and its sleep
    mark = processes.word("sblab-test-mark")
    assert processes.is_ours(pid, mark) and not processes.is_ours(other, mark)
    processes.end_groups([(pid, mark), (None, mark)])
    assert not processes.marked(mark)
    assert not [p for p in group if Path(f"/proc/{p.name}/cmdline").exists() and
                Path(f"/proc/{p.name}/cmdline").read_bytes()]
    assert processes.is_ours(other, processes.word("sblab-test-mark2"))  # not ended: another word
    processes.end_groups([(other, processes.word("sblab-test-mark2"))])
    assert not processes.marked(processes.word("sblab-test-mark2"))


def test_a_pid_that_is_no_longer_ours_is_left_alone(tmp_path: Path) -> None:
    pid = start_marked(tmp_path, "sblab-test-someone-else")
    processes.end_groups([(pid, processes.word("sblab-test-not-this"))])
    assert processes.is_ours(pid, processes.word("sblab-test-someone-else"))
    processes.end_groups([(pid, processes.word("sblab-test-someone-else"))])


def test_no_lab_in_a_folder(tmp_path: Path) -> None:
    assert lifecycle.down(tmp_path) is False
    current = lifecycle.status(tmp_path)
    assert not current.running and current.render() == f"no lab in {tmp_path}\n"


def test_up_refuses_a_folder_whose_lab_runs_before_building_anything(tmp_path_factory: pytest.TempPathFactory) -> None:
    # A short folder: the lab's unix sockets must fit (state.SOCKET_PATH_MAX), also under a test runner's worker folder.
    tmp_path = tmp_path_factory.mktemp("lab")
    guest = start_marked(tmp_path, "umid=sblab-0123abcd-client")  # stands in for a running guest
    try:
        running = sample_state(tmp_path)
        running.guests[0].pid = guest
        running.switches[0].pid = None
        state.write(tmp_path, running)
        with pytest.raises(LabRunning, match=f"a lab runs in {tmp_path}"):
            lifecycle.up(LINK_FAULTS, tmp_path)
        r = sctpbench("lab", "up", str(LINK_FAULTS), "--dir", str(tmp_path))
        assert r.returncode == 2 and "a lab runs in" in r.stderr and r.stdout == ""
        assert state.read(tmp_path) == running  # untouched
        r = sctpbench("lab", "status", "--dir", str(tmp_path))
        assert r.returncode == 0 and "client     running" in r.stdout
    finally:
        processes.end_groups([(guest, processes.word("umid=sblab-0123abcd-client"))])


def test_down_ends_a_half_made_lab_and_is_safe_twice(tmp_path: Path) -> None:
    guest = start_marked(tmp_path, "umid=sblab-0123abcd-client")
    start_marked(tmp_path, "umid=sblab-0123abcd-server")  # started, but `up` died before writing its pid down
    half = sample_state(tmp_path)
    half.guests[0].pid = guest
    half.guests.append(dataclasses.replace(half.guests[0], host="server", umid="sblab-0123abcd-server", pid=None))
    half.switches[0].pid = None  # up died before starting it
    (tmp_path / "sw-0.ctl").write_text("")
    state.write(tmp_path, half)
    r = sctpbench("lab", "down", "--dir", str(tmp_path))
    assert r.returncode == 0 and "ended" in r.stdout
    assert not processes.marked(processes.word("umid=sblab-0123abcd-client"))
    assert not processes.marked(processes.word("umid=sblab-0123abcd-server"))
    assert not (tmp_path / "sw-0.ctl").exists() and state.read(tmp_path) is None
    r = sctpbench("lab", "down", "--dir", str(tmp_path))
    assert r.returncode == 0 and r.stdout.strip() == f"no lab in {tmp_path}"
    assert sctpbench("lab", "status", "--dir", str(tmp_path)).returncode == 1


def test_a_bad_experiment_exits_2_before_anything_is_made(tmp_path: Path) -> None:
    r = sctpbench("lab", "up", str(ROOT / "tests/data/spec_errors/unknown-key.yaml"), "--dir", str(tmp_path / "lab"))
    assert r.returncode == 2 and "unknown-key.yaml:5: sctp.rto_mni: unknown key" in r.stderr
    assert not (tmp_path / "lab").exists()


def sctpbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_a_folder_too_long_for_its_sockets_exits_2_before_anything_is_made(tmp_path: Path) -> None:
    folder = tmp_path / ("x" * 80)
    r = sctpbench("lab", "up", str(FAILOVER), "--dir", str(folder))
    assert r.returncode == 2 and "too long for the unix sockets kept in it" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not folder.exists()
