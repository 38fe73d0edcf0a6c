"""IPv6 and dual stack: addresses, the plan's IPv6 commands, the association's paths per
family, primary addresses, header sizes, and captures of IPv6 packets."""

import ipaddress
import shutil
import struct
from pathlib import Path

import pytest

from sctpbench.analysis import selfcheck
from sctpbench.collectors import captures
from sctpbench.model import addressing, spec
from sctpbench.model.errors import SpecError
from sctpbench.orchestration import calibrate
from sctpbench.plan import build as plan

ROOT = Path(__file__).resolve().parents[2]
BENCH6 = ipaddress.ip_network("2001:2::/48")


def _plan(name: str, overrides: list[str] = ()) -> plan.Plan:
    return plan.build(spec.load(ROOT / "examples" / name, list(overrides)), 1, "/opt/sctpbench-agent")


def _cross(*overrides: str) -> plan.Plan:
    return _plan("failover-cross-family.yaml", list(overrides))


# ------------------------------------------------------------------ addressing


def test_ipv6_addresses_mirror_the_ipv4_subnets_in_the_benchmarking_range() -> None:
    assert addressing.subnet6_address(0, 1) == "2001:2::1"
    assert addressing.subnet6_address(3, 254) == "2001:2:0:3::fe"
    assert addressing.subnet6(499) == "2001:2:0:1f3::/64"
    for n in (0, 1, 255, 256, 499):
        assert ipaddress.ip_address(addressing.subnet6_address(n, 2)) in BENCH6
        # canonical (RFC 5952), as the agent's inet_ntop and tshark print it
        assert addressing.subnet6_address(n, 2) == str(ipaddress.ip_address(addressing.subnet6_address(n, 2)))
    assert addressing.endpoint_addresses(1, 1, False, "dual") == ["198.18.1.2", "2001:2:0:1::2"]
    assert addressing.endpoint_addresses(1, 1, True, "ipv6") == ["2001:2:0:3::2"]
    assert addressing.endpoint_addresses(1, 0, True, "ipv4") == ["198.18.2.1"]


def test_macs_come_from_the_slot_so_ipv4_paths_keep_theirs() -> None:
    assert addressing.slot_mac(0, 1) == addressing.mac_address("198.18.0.1") == "02:5b:c6:12:00:01"
    assert addressing.slot_mac(257, 254) == "02:5b:c6:13:01:fe"


def test_addresses_compare_in_any_written_form() -> None:
    assert addressing.same_address("2001:2:0:0::2", "2001:2::2")
    assert not addressing.same_address("2001:2::2", "198.18.0.2")
    assert not addressing.same_address("primary", "2001:2::2")


# ------------------------------------------------------------------ the plan


def test_a_default_family_leaves_the_run_id_alone_and_another_changes_it() -> None:
    base = _plan("failover.yaml")
    assert _plan("failover.yaml", ["topology.paths.primary.family=ipv4"]).run_id == base.run_id
    assert _plan("failover.yaml", ["topology.paths.primary.family=ipv6"]).run_id != base.run_id


def test_every_address_comes_from_a_benchmarking_range_one_subnet_per_end_with_the_emulator() -> None:
    p = _cross("topology.emulator=true", "topology.paths.lte.family=dual")
    bench4 = ipaddress.ip_network("198.18.0.0/15")
    for link in p.links:
        for end in [link.a, link.b, *link.emulator]:
            for a in end.addresses:
                assert ipaddress.ip_address(a) in (BENCH6 if ":" in a else bench4)
    wifi = p.links[1]
    assert (wifi.family, wifi.a.address, wifi.a.prefix, wifi.a.address6) == ("ipv6", "2001:2:0:2::1", 64, None)
    assert [e.address for e in wifi.emulator] == ["2001:2:0:2::fe", "2001:2:0:3::fe"]
    lte = p.links[0]
    assert (lte.a.address, lte.a.prefix, lte.a.address6) == ("198.18.0.1", 24, "2001:2::1")


def test_an_association_over_a_dual_stack_path_has_two_sctp_paths_ipv4_first() -> None:
    p = _plan("failover.yaml", ["topology.paths.secondary.family=dual"])
    assert [(a.path, a.family, a.client_address, a.server_address) for a in p.associations[0].paths] == [
        ("primary", "ipv4", "198.18.0.1", "198.18.0.2"),
        ("secondary", "ipv4", "198.18.1.1", "198.18.1.2"),
        ("secondary", "ipv6", "2001:2:0:1::1", "2001:2:0:1::2"),
    ]
    client = next(x for x in p.processes if x.name == "main.client").argv
    assert client[client.index("--local") + 1] == "198.18.0.1,198.18.1.1,2001:2:0:1::1"
    assert client[client.index("--peer") + 1] == "198.18.0.2,198.18.1.2,2001:2:0:1::2"


def test_ipv6_is_on_only_where_used_and_quiet() -> None:
    p = _plan("failover.yaml", ["topology.paths.secondary.family=ipv6"])
    sysctls = {c.host: c.args for c in p.setup if c.tool == "sysctl" and "net.ipv6.conf.all.disable_ipv6=1" in c.args}
    quiet = {"net.ipv6.conf.default.accept_ra=0", "net.ipv6.conf.default.addr_gen_mode=1",
             "net.ipv6.conf.default.accept_dad=0", "net.ipv6.conf.default.router_solicitations=0"}
    assert quiet <= set(sysctls["client"]) and quiet <= set(sysctls["server"])
    enabled = [(c.host, c.args) for c in p.setup if c.tool == "sysctl" and any("disable_ipv6=0" in a for a in c.args)]
    assert enabled == [("client", ["net.ipv6.conf.secondary.disable_ipv6=0"]),
                       ("server", ["net.ipv6.conf.secondary.disable_ipv6=0"])]
    adds = [c.args for c in p.setup if c.tool == "ip" and c.args[:2] == ["addr", "add"] and c.host == "client"]
    assert adds == [["addr", "add", "198.18.0.1/24", "dev", "primary"],
                    ["addr", "add", "2001:2:0:1::1/64", "dev", "secondary", "nodad"]]
    assert ["neigh", "replace", "2001:2:0:1::2", "lladdr", "02:5b:c6:12:01:02", "dev", "secondary", "nud", "permanent"] in [
        c.args for c in p.setup if c.host == "client"]
    mld = [c for c in p.setup if c.tool == "ip6tables"]
    assert [c.host for c in mld] == ["client", "server"] and "--icmpv6-type 143" in " ".join(mld[0].args)
    # IPv4 only: as before, and no ip6tables anywhere
    v4 = _plan("failover.yaml")
    assert [c.args for c in v4.setup if c.tool == "sysctl" and c.host == "client"][0] == [
        "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
    assert not [c for c in v4.setup if c.tool == "ip6tables"]


def test_the_emulator_forwards_and_routes_ipv6_by_source() -> None:
    p = _cross("topology.emulator=true")
    client = [c.args for c in p.setup if c.tool == "ip" and c.host == "client"]
    assert ["-6", "rule", "add", "from", "2001:2:0:2::1", "table", "101"] in client
    assert ["route", "replace", "2001:2:0:3::/64", "via", "2001:2:0:2::fe", "dev", "wifi"] in client
    assert ["route", "replace", "::/0", "via", "2001:2:0:2::fe", "dev", "wifi", "table", "101"] in client
    forward = next(c for c in p.setup if c.tool == "sysctl" and c.host == "emu" and "net.ipv4.ip_forward=1" in c.args)
    assert "net.ipv6.conf.all.forwarding=1" in forward.args
    # `up` puts back the neighbours and routes of both families
    wifi = p.links[1]
    assert any(c.args[:2] == ["neigh", "replace"] and c.args[2] == "2001:2:0:2::fe" for c in wifi.routes)


def test_drop_patterns_use_ip6tables_for_ipv6_and_both_for_dual() -> None:
    for family, tools in (("ipv4", ["iptables"]), ("ipv6", ["ip6tables"]), ("dual", ["iptables", "ip6tables"])):
        p = _plan("drop-pattern.yaml", [f"topology.paths.primary.family={family}"])
        drops = [c for c in p.setup if c.tool in ("iptables", "ip6tables") and any("FORWARD" in a for a in c.args)]
        assert [c.tool for c in drops] == tools
        assert all("-A FORWARD -i primary-a -j sb-primary-for" in c.args for c in drops)


# ------------------------------------------------------------------ primary addresses


def test_primary_takes_an_ipv6_peer_address_in_any_form_and_a_path_name_its_first_family(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology: {use: dual-homed, paths: {secondary: {family: dual}}}\n"
        "workload: {client: client, server: server, duration: 5s}\n"
        "events:\n  - {at: 1s, primary: '2001:2:0:1:0::2'}\n  - {at: 2s, primary: secondary}\n"
    )
    p = plan.build(spec.load(f), 1, "agent")
    assert [t.control for t in p.timeline if t.kind == "primary"] == ["primary 2001:2:0:1::2", "primary 198.18.1.2"]


def test_primary_with_an_ipv6_address_that_is_not_a_peer_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology: {use: dual-homed, paths: {secondary: {family: ipv6}}}\n"
        "workload: {client: client, server: server, duration: 5s}\nevents:\n  - {at: 1s, primary: '2001:2:0:1::1'}\n"
    )
    with pytest.raises(SpecError, match=r"x.yaml:4: events.0.primary: '2001:2:0:1::1' is not a peer address.*"
                                        r"allowed: primary \(198.18.0.2\), secondary \(2001:2:0:1::2\)"):
        spec.load(f)


# ------------------------------------------------------------------ header sizes


def test_header_sizes_follow_the_family() -> None:
    assert selfcheck.header_bytes("ipv4") == selfcheck.HEADER_BYTES == 62
    assert selfcheck.header_bytes("ipv6") == 82 and selfcheck.header_bytes("dual") == 62
    assert selfcheck.payload_per_packet("ipv6") == 1500 - 40 - 12 - 16
    assert selfcheck.serialisation_ns(1000, 8_000_000, "ipv6") == pytest.approx((1000 + 82) * 1000)
    assert calibrate.payload_share("ipv4") == calibrate.PAYLOAD_SHARE == pytest.approx(1000 / 1062)
    assert calibrate.payload_share("ipv6") == pytest.approx(1000 / 1082)


# ------------------------------------------------------------------ captures


def _sctp_data(tsn: int, seq: int, t_gen_ns: int, size: int = 200) -> bytes:
    common = struct.pack("!HHII", 40000, 5000, 0xABCD, 0)
    chunk = struct.pack("!BBHIHHI", 0, 3, 16 + size, tsn, 0, seq & 0xFFFF, 0)
    return common + chunk + struct.pack("!QQ", seq, t_gen_ns) + bytes(size - 16)


def _frame6(src: str, dst: str, sctp: bytes) -> bytes:
    ip = struct.pack("!IHBB16s16s", 6 << 28, len(sctp), 132, 64,
                     ipaddress.IPv6Address(src).packed, ipaddress.IPv6Address(dst).packed)
    return bytes(6) + bytes(6) + b"\x86\xdd" + ip + sctp


def _frame4(src: str, dst: str, ip_id: int, sctp: bytes) -> bytes:
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 2, 20 + len(sctp), ip_id, 0x4000, 64, 132, 0,
                     ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst).packed)
    return bytes(6) + bytes(6) + b"\x08\x00" + ip + sctp


def _write_pcap(path: Path, packets: list[bytes], snaplen: int = 256) -> None:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1)]
    for i, data in enumerate(packets):
        out.append(struct.pack("<IIII", 1000 + i, 0, min(len(data), snaplen), len(data)) + data[:snaplen])
    path.write_bytes(b"".join(out))


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_captures_read_sctp_over_ipv6_and_ipv4_alike(tmp_path: Path) -> None:
    pcap = tmp_path / "x.pcap"
    _write_pcap(pcap, [_frame6("2001:2::1", "2001:2::2", _sctp_data(7, 3, 42)),
                       _frame4("198.18.0.1", "198.18.0.2", 9, _sctp_data(8, 4, 43))])
    six, four = captures.read(pcap)
    assert (six.src, six.dst, six.ip_id, six.length) == ("2001:2::1", "2001:2::2", 0, 14 + 40 + 228)
    assert (six.chunks[0].tsn, six.chunks[0].seq, six.chunks[0].t_gen_ns) == (7, 3, 42)
    assert (four.src, four.ip_id, four.chunks[0].seq, four.index) == ("198.18.0.1", 9, 4, 1)


def _udp(sctp: bytes, port: int = 9899) -> bytes:
    return struct.pack("!HHHH", port, port, 8 + len(sctp), 0) + sctp


def _frame4_udp(src: str, dst: str, ip_id: int, sctp: bytes) -> bytes:
    udp = _udp(sctp)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 2, 20 + len(udp), ip_id, 0x4000, 64, 17, 0,
                     ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst).packed)
    return bytes(6) + bytes(6) + b"\x08\x00" + ip + udp


def _frame6_udp(src: str, dst: str, sctp: bytes) -> bytes:
    udp = _udp(sctp)
    ip = struct.pack("!IHBB16s16s", 6 << 28, len(udp), 17, 64,
                     ipaddress.IPv6Address(src).packed, ipaddress.IPv6Address(dst).packed)
    return bytes(6) + bytes(6) + b"\x86\xdd" + ip + udp


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_captures_read_sctp_over_udp_as_the_usrsctp_stack_sends_it(tmp_path: Path) -> None:
    """usrsctp's packets are SCTP inside UDP port 9899 (docs/stacks.md): their chunks are read
    past the UDP header, so HoLB and path shares come from usrsctp runs' captures too."""
    pcap = tmp_path / "x.pcap"
    _write_pcap(pcap, [_frame4_udp("198.18.0.1", "198.18.0.2", 5, _sctp_data(11, 6, 44)),
                       _frame6_udp("2001:2::1", "2001:2::2", _sctp_data(12, 7, 45))], snaplen=512)
    four, six = captures.read(pcap, captures.with_chunks(captures.CHUNK_DATA))
    assert (four.src, four.ip_id, four.sport, four.vtag) == ("198.18.0.1", 5, 40000, 0xABCD)
    assert (four.chunks[0].tsn, four.chunks[0].seq, four.chunks[0].t_gen_ns) == (11, 6, 44)
    assert (six.dst, six.chunks[0].tsn, six.chunks[0].seq) == ("2001:2::2", 12, 7)
