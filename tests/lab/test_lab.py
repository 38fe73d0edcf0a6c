"""A real lab for examples/link-faults.yaml (client, server and the emulator emu, each its own
UML kernel), on both clocks (virtual: one calendar and the vswitch; real: uml_switch per
wire): SSH through the inventory, wires that join the interfaces it names, Ansible, a second
`up` refused, a failed `up` that leaves nothing, and `down` that leaves nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sctpbench import lab as labs
from sctpbench.lab import guests, lifecycle, network, processes
from sctpbench.lab.inventory import Inventory, MachineEntry

NEEDED = ("uml_switch", "socat", "ssh", "/usr/sbin/sshd")
pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the lab's network namespace and taps need root"),
    pytest.mark.skipif(not all(shutil.which(n) for n in NEEDED), reason=f"the lab needs {', '.join(NEEDED)}"),
]

ROOT = Path(__file__).resolve().parents[2]
LINK_FAULTS = ROOT / "examples" / "link-faults.yaml"
ANSIBLE = "/usr/bin/ansible"

# ICMP echo with a raw socket (the host has no `ping`): three echoes, each answered within 2 s, or exit 1.
ECHO = r"""
import socket, struct, sys, time
def checksum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b)); s = (s >> 16) + (s & 0xffff); s += s >> 16
    return ~s & 0xffff
dst = sys.argv[1]
sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
sock.settimeout(2.0)
for seq in range(3):
    body = b"sctpbench-lab!"
    head = struct.pack("!BBHHH", 8, 0, 0, 0x5B, seq)
    sock.sendto(struct.pack("!BBHHH", 8, 0, checksum(head + body), 0x5B, seq) + body, (dst, 0))
    while True:
        try:
            data, (src, _) = sock.recvfrom(2048)
        except TimeoutError:
            print(f"no reply from {dst}"); sys.exit(1)
        kind, _, _, ident, rseq = struct.unpack("!BBHHH", data[(data[0] & 15) * 4:][:8])
        if src == dst and kind == 0 and ident == 0x5B and rseq == seq:
            print(f"reply from {src}"); break
"""


@pytest.fixture(scope="module", params=["virtual", "real"])
def lab(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[labs.Lab]:
    folder = tmp_path_factory.mktemp("lab")
    started = time.monotonic()
    running = labs.up(LINK_FAULTS, folder, clock=request.param)
    assert running.state.clock == request.param
    print(f"lab up ({request.param} clock): {time.monotonic() - started:.1f} s wall for {len(running.state.guests)} guests")
    yield running
    labs.down(folder)


def ssh(machine: MachineEntry, command: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # Never the test's own stdin: ssh makes its stdin non-blocking, and one killed at its timeout
    # leaves it so for every later process that shares it (Ansible then refuses to start). The
    # timeout is a deadline for a guest starved beside the lab test's busy loops, not a bound.
    where: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(machine.ssh_argv(command), capture_output=True, text=True, timeout=180, **where)


def test_every_guest_answers_ssh_with_its_host_name(lab: labs.Lab) -> None:
    written = labs.read_inventory(lab.inventory_path)
    assert [m.host for m in written.machines] == ["client", "server", "emu"]
    for m in written.machines:
        r = ssh(m, "hostname; cat /proc/sys/net/ipv4/ip_forward; ip route show default; uname -r")
        assert r.returncode == 0, r.stderr
        hostname, forward, *rest = r.stdout.splitlines()
        assert hostname == m.host
        assert forward == "0"  # the run's to set
        assert rest == [_release(lab)]  # no default route (`ip route show default` prints nothing); the project's kernel


def _release(lab: labs.Lab) -> str:
    return (Path(lab.state.kernel).parent / "release").read_text().strip()


def test_the_guests_have_the_plans_macs_and_a_writable_workdir(lab: labs.Lab) -> None:
    written = labs.read_inventory(lab.inventory_path)
    plan = lifecycle.plan_of(LINK_FAULTS)
    for wire in (c.args for c in plan.setup if c.tool == "wire"):
        for host, ifname, mac in (wire[0:3], wire[3:6]):
            m = written.machine(host)
            r = ssh(m, f"cat /sys/class/net/{m.interfaces[ifname]}/address")
            assert r.stdout.strip() == mac
    r = ssh(written.machine("emu"), f"mkdir -p {written.workdir} && touch {written.workdir}/x && ls /dev/shm -d")
    assert r.returncode == 0, r.stderr


def wire_ends(inv: Inventory) -> list[tuple[str, str, str, str, str]]:
    """(host, NIC, host, NIC, MAC of the second end) per wire of the plan, NICs as the inventory maps them."""
    plan = lifecycle.plan_of(LINK_FAULTS)
    return [(w[0], inv.machine(w[0]).interfaces[w[1]], w[3], inv.machine(w[3]).interfaces[w[4]], w[5])
            for w in (c.args for c in plan.setup if c.tool == "wire")]


def give(m: MachineEntry, nic: str, address: str) -> None:
    r = ssh(m, f"ip addr add {address}/24 dev {nic} && ip link set {nic} up")
    assert r.returncode == 0, r.stderr


def forget(m: MachineEntry, nic: str) -> None:
    ssh(m, f"ip addr flush dev {nic} && ip link set {nic} down")


def test_each_wire_joins_the_interfaces_the_inventory_names(lab: labs.Lab) -> None:
    inv = labs.read_inventory(lab.inventory_path)
    wires = wire_ends(inv)
    assert len(wires) == 4
    # One /24 per wire, its .1 on one end and .2 on the other. An echo alone would not do: a
    # machine answers ARP for any of its addresses on any NIC, so the answer must also come
    # from the MAC of the wire's other end.
    setup: dict[str, list[str]] = {}
    for n, (ha, na, hb, nb, _) in enumerate(wires):
        setup.setdefault(ha, []).append(f"ip addr add 198.18.{200 + n}.1/24 dev {na} && ip link set {na} up")
        setup.setdefault(hb, []).append(f"ip addr add 198.18.{200 + n}.2/24 dev {nb} && ip link set {nb} up")
    try:
        for host, commands in setup.items():
            r = ssh(inv.machine(host), " && ".join(commands))
            assert r.returncode == 0, r.stderr
        for n, (ha, na, hb, nb, mac) in enumerate(wires):
            far = f"198.18.{200 + n}.2"
            r = ssh(inv.machine(ha), f"python3 - {far} && ip -j neigh show to {far} dev {na}", stdin=ECHO)
            assert r.returncode == 0 and r.stdout.count("reply from") == 3, (ha, na, hb, nb, r.stdout, r.stderr)
            neighbours = json.loads(r.stdout.splitlines()[-1])
            assert [e["lladdr"] for e in neighbours] == [mac], (ha, na, hb, nb)
    finally:
        for m in inv.machines:
            ssh(m, "; ".join(f"ip addr flush dev {nic}; ip link set {nic} down" for nic in m.interfaces.values()))


def test_interfaces_on_different_wires_do_not_reach_each_other(lab: labs.Lab) -> None:
    # The client's primary and the emulator's secondary side: the same subnet, no wire between them.
    inv = labs.read_inventory(lab.inventory_path)
    client, emu = inv.machine("client"), inv.machine("emu")
    give(client, client.interfaces["primary"], "198.18.250.1")
    give(emu, emu.interfaces["secondary-a"], "198.18.250.2")
    try:
        r = ssh(client, "python3 - 198.18.250.2", stdin=ECHO)
        assert r.returncode == 1 and "no reply" in r.stdout
    finally:
        forget(client, client.interfaces["primary"])
        forget(emu, emu.interfaces["secondary-a"])


def ini_inventory(inv: Inventory, path: Path) -> Path:
    lines = ["[lab]"] + [
        f"{m.host} ansible_host={m.address} ansible_port={m.port} ansible_user={m.user} "
        f"ansible_ssh_private_key_file={m.identity} ansible_python_interpreter={m.python} "
        f"ansible_ssh_common_args='{m.ssh_args}'"
        for m in inv.machines
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.skipif(not os.access(ANSIBLE, os.X_OK), reason=f"{ANSIBLE} (Debian's ansible-core) is not installed")
def test_ansible_pings_every_machine(lab: labs.Lab, tmp_path: Path) -> None:
    hosts = ini_inventory(labs.read_inventory(lab.inventory_path), tmp_path / "hosts.ini")
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(tmp_path), "ANSIBLE_PIPELINING": "True",
           "ANSIBLE_HOST_KEY_CHECKING": "False", "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible")}
    started = time.monotonic()
    r = subprocess.run([ANSIBLE, "-i", str(hosts), "all", "-m", "ping", "-o"], capture_output=True, text=True,
                       env=env, timeout=300)
    print(f"ansible ping: {time.monotonic() - started:.1f} s wall")
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(line.split(" | ")[0] for line in r.stdout.splitlines() if "SUCCESS" in line) == ["client", "emu", "server"]
    # Ansible's shared connections live in the lab's folder, not in a ~/.ansible/cp that
    # every lab's identical addresses would share.
    assert sorted(p.name for p in lab.directory.glob("cm-*")) == ["cm-198.19.255.10", "cm-198.19.255.2", "cm-198.19.255.6"]
    assert not list((tmp_path / ".ansible").glob("cp/*"))


def test_a_second_up_is_refused(lab: labs.Lab) -> None:
    with pytest.raises(labs.LabRunning):
        labs.up(LINK_FAULTS, lab.directory)
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "lab", "up", str(LINK_FAULTS), "--dir", str(lab.directory)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "a lab runs in" in r.stderr
    assert labs.status(lab.directory).running  # still up and untouched


def leftovers(lab_state: lifecycle.LabState) -> list[str]:
    found = [f"process {pid} of {g.host}" for g in lab_state.guests for pid in processes.marked(processes.word(f"umid={g.umid}"))]
    found += [f"switch {pid}" for s in lab_state.switches for pid in processes.marked(processes.word(s.ctl))]
    found += [f"namespace {lab_state.netns}"] if network.exists(lab_state.netns) else []
    found += [f"socket {s.ctl}" for s in lab_state.switches if Path(s.ctl).exists()]
    found += [f"socket {p}" for p in Path(lab_state.directory).glob("*.sock")]
    return found


def test_down_leaves_nothing(lab: labs.Lab) -> None:
    # The last test of the module: the lab is ended here, the fixture's down finds nothing.
    before = lab.state
    assert not [g for g in labs.status(lab.directory).guests if not g.running]
    started = time.monotonic()
    assert labs.down(lab.directory) is True
    print(f"lab down: {time.monotonic() - started:.2f} s wall")
    assert leftovers(before) == []
    assert not processes.marked(f"{lab.directory}/cm-")  # Ansible's SSH masters were told to exit
    assert labs.down(lab.directory) is False
    assert not (lab.directory / "inventory.yaml").exists()


FAILED_ID = "fa11ed00"
FAILING_INIT = """#!/bin/sh
# A guest whose server cannot start: every other guest waits, never ready.
if [ "$SB_LAB_HOST" = server ]; then echo "SB-LAB-ERROR no sshd here"; fi
while :; do sleep 1; done
"""


def test_a_failed_up_says_which_guest_and_leaves_nothing(tmp_path_factory: pytest.TempPathFactory,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # A short folder: the lab's unix sockets must fit (state.SOCKET_PATH_MAX), also under a test runner's worker folder.
    tmp_path = tmp_path_factory.mktemp("lab")
    init = tmp_path / "init.sh"
    init.write_text(FAILING_INIT)
    init.chmod(0o755)
    monkeypatch.setattr(guests, "INIT", init)
    monkeypatch.setattr(lifecycle.secrets, "token_hex", lambda _: FAILED_ID)
    folder = tmp_path / "lab"
    with pytest.raises(labs.LabError) as failed:
        labs.up(LINK_FAULTS, folder, timeout_s=60)
    message = str(failed.value)
    assert message.startswith("lab guest server failed: no sshd here\n")
    assert f"the end of its console log ({folder}/logs/server.console)" in message
    assert "SB-LAB-ERROR no sshd here" in message
    assert labs.status(folder).state is None
    umids = [processes.word(f"umid={guests.umid(FAILED_ID, host)}") for host in ("client", "server", "emu")]
    assert not [pid for mark in umids for pid in processes.marked(mark)]
    assert not processes.marked(processes.word(str(folder / "vswitch.json")))
    assert not list(folder.glob("*.sock"))
    assert not network.exists(network.netns_name(FAILED_ID))
