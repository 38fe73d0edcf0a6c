"""What the captures show around a handover (issue 26): packets on a path with another path's
source address (analysis/sources.py), DATA arriving out of TSN order at the receiver
(analysis/reordering.py), and the cumulative TSN after a switch (analysis/cumtsn.py), read
from pcap files built byte by byte and handed to the real tshark."""

from __future__ import annotations

from pathlib import Path

import pytest

from sctpbench.analysis import cumtsn, reordering, sources
from sctpbench.collectors import captures
from sctpbench.model import spec
from sctpbench.plan import build as plan_build
from sctpbench.plan.data import Association
from tests.support import packets as pk

ROOT = Path(__file__).resolve().parents[2]
MN = {"home": "198.18.0.1", "target": "198.18.1.1"}  # seed004-handover.yaml's mobile node (client)
CN = {"home": "198.18.0.2", "target": "198.18.1.2"}
MS = 1_000_000


@pytest.fixture(scope="module")
def assoc() -> Association:
    plan = plan_build.build(spec.load(ROOT / "examples" / "seed004-handover.yaml"), 1, "/opt/sctpbench-agent")
    a = plan.associations[0]
    assert {p.path: p.client_address for p in a.paths} == MN and {p.path: p.server_address for p in a.paths} == CN
    return a


def _out(sport: int, *chunks: bytes) -> bytes:
    return pk.sctp(sport, 5000, *chunks)


def test_a_packet_with_the_other_paths_source_is_counted_where_it_left(tmp_path: Path, assoc: Association) -> None:
    (tmp_path / "captures").mkdir()
    # The client's capture of the Wi-Fi-like path (target): DATA on the new primary before the
    # ADD-IP is acknowledged still carries the 3G address; then the new source. A SACK from
    # the server comes in on it, and a packet of another association (port 6000) is not ours.
    pk.write_pcap(tmp_path / "captures" / "target-mn.pcap", [
        (10, MN["home"], CN["target"], _out(40000, pk.data_chunk(5))),
        (11, MN["home"], CN["target"], _out(40000, pk.heartbeat_chunk())),
        (12, CN["target"], MN["home"], pk.sctp(5000, 40000, pk.sack_chunk(5))),
        (13, MN["target"], CN["target"], _out(40000, pk.data_chunk(6))),
        (14, MN["home"], CN["target"], pk.sctp(40001, 6000, pk.data_chunk(1))),
    ])
    pk.write_pcap(tmp_path / "captures" / "home-mn.pcap", [(1, MN["home"], CN["home"], _out(40000, pk.data_chunk(1)))])
    # The server answers on the 3G path from its Wi-Fi address: the server's packet, its capture.
    pk.write_pcap(tmp_path / "captures" / "home-cn.pcap", [(20, CN["target"], MN["home"], pk.sctp(5000, 40000, pk.sack_chunk(5)))])
    found = sources.foreign_sources(tmp_path, assoc, pk.T0)
    assert [(f.t_rel_ns // MS, f.path, f.sender, f.src, f.chunks) for f in found] == [
        (10, "target", "client", MN["home"], "DATA"), (11, "target", "client", MN["home"], "HEARTBEAT"),
        (20, "home", "server", CN["target"], "SACK")]
    summary = sources.summary(found)
    assert (summary["packets"], summary["data_packets"], summary["by_sender"]) == (3, 1, {"client": 2, "server": 1})


def test_no_capture_no_count(tmp_path: Path, assoc: Association) -> None:
    assert sources.foreign_sources(tmp_path, assoc, pk.T0) == []


def test_data_overtaking_on_the_faster_path_arrives_out_of_order(tmp_path: Path, assoc: Association) -> None:
    (tmp_path / "captures").mkdir()
    # TSNs 1-3 on 3G; the switch; 4-6 on Wi-Fi arrive before 2 and 3 do; 3 arrives twice.
    pk.write_pcap(tmp_path / "captures" / "home-cn.pcap", [
        (1, MN["home"], CN["home"], _out(40000, pk.data_chunk(1))),
        (50, MN["home"], CN["home"], _out(40000, pk.data_chunk(2))),
        (60, MN["home"], CN["home"], _out(40000, pk.data_chunk(3))),
        (61, MN["home"], CN["home"], _out(40000, pk.data_chunk(3))),
    ])
    pk.write_pcap(tmp_path / "captures" / "target-cn.pcap", [
        (10, MN["target"], CN["target"], _out(40000, pk.data_chunk(4), pk.data_chunk(5))),
        (11, MN["target"], CN["target"], _out(40000, pk.data_chunk(6))),
        (12, CN["target"], MN["target"], pk.sctp(5000, 40000, pk.sack_chunk(1))),
    ])
    got = reordering.count(reordering.server_arrivals(tmp_path, assoc), pk.T0)
    assert (got.chunks, got.out_of_order, got.duplicates) == (6, 2, 1)
    assert [t // MS for t in got.out_of_order_t_rel_ns] == [50, 60]


def test_in_order_arrivals_and_a_tsn_wrap_are_not_reordering() -> None:
    tsns = [2**32 - 2, 2**32 - 1, 0, 1]
    arrivals = [reordering.Arrival(i, t, "home") for i, t in enumerate(tsns)]
    assert reordering.count(arrivals, 0).out_of_order == 0
    assert reordering.count([*arrivals, reordering.Arrival(9, 2**32 - 1, "x")], 0).duplicates == 1
    assert reordering.count([reordering.Arrival(0, 1, "a"), reordering.Arrival(1, 2**32 - 1, "b")], 0).out_of_order == 1


def test_reordering_as_summary_json_has_it_and_its_edges(tmp_path: Path, assoc: Association) -> None:
    """The summary's record (times in s from t0); arrivals given out of time order are sorted,
    ties kept in the order given; half the TSN space away is not after (RFC 1982); a path
    without a capture adds nothing."""
    arrivals = [reordering.Arrival(30 * MS, 1, "home"), reordering.Arrival(10 * MS, 3, "home"),
                reordering.Arrival(20 * MS, 2, "target"), reordering.Arrival(20 * MS, 4, "target")]
    got = reordering.count(arrivals, 0)
    assert got.to_dict() == {"chunks": 4, "out_of_order": 2, "duplicates": 0, "out_of_order_t_rel_s": [0.02, 0.03]}
    tied = [reordering.Arrival(5, 7, "home"), reordering.Arrival(5, 6, "target")]
    assert reordering.count(tied, 0).out_of_order_t_rel_ns == (5,)
    assert reordering.count(list(reversed(tied)), 0).out_of_order == 0
    assert reordering._after(2**31 - 1, 0) and not reordering._after(2**31, 0) and not reordering._after(5, 5)
    # Two duplicates, and arrivals after them still count.
    again = [*arrivals, reordering.Arrival(40 * MS, 3, "home"), reordering.Arrival(41 * MS, 2, "home"),
             reordering.Arrival(42 * MS, 5, "home"), reordering.Arrival(43 * MS, 4, "home")]
    assert (reordering.count(again, 0).chunks, reordering.count(again, 0).duplicates) == (5, 3)
    (tmp_path / "captures").mkdir()
    pk.write_pcap(tmp_path / "captures" / "target-cn.pcap", [(1, MN["target"], CN["target"], _out(40000, pk.data_chunk(1)))])
    assert reordering.server_arrivals(tmp_path, assoc) == [reordering.Arrival(pk.T0 + MS, 1, "target")]


def _table(points: list[tuple[int, int]]) -> list[dict[str, object]]:
    return [{"association": "main", "t_rel_ns": t * MS, "cum_tsn_ack": c, "path": "home"} for t, c in points]


def test_chunks_acknowledged_after_a_switch_count_from_what_was_held_at_it() -> None:
    # A dip (a late SACK over the slow path) is ignored, as the sender ignores it.
    curve = cumtsn.held(_table([(0, 10), (900, 100), (1000, 90), (1600, 101), (2500, 300), (5000, 2000), (9000, 5000)]),
                        "main")
    assert [c for _, c in curve] == [10, 100, 100, 101, 300, 2000, 5000]
    assert cumtsn.acked_after(curve, 1000 * MS) == [0, 1, 200, 1900]
    assert cumtsn.acked_after(curve, 8000 * MS) == [0, 3000, None, None]  # the captures end at 9 s
    assert cumtsn.acked_after([], 0) == [None] * 4


def test_the_new_paths_rate_is_reached_when_half_a_second_carries_80_percent_of_it() -> None:
    # 100 chunks/s needs 40 chunks in 0.5 s: flat for 1 s after the switch at 1 s, then 100/s.
    points = [(t, 0) for t in range(0, 2001, 100)] + [(2000 + t, t // 10) for t in range(0, 3001, 100)]
    curve = cumtsn.held(_table(points), "main")
    assert cumtsn.time_to_rate(curve, 1000 * MS, 100.0) == 1400 * MS
    assert cumtsn.time_to_rate(curve, 1000 * MS, 1000.0) is None


def test_the_clients_packets_of_each_path_read_once_a_file(tmp_path: Path, assoc: Association) -> None:
    """A path without a capture has no packets; files already read (another association
    between the same hosts) are not read again; the filter given is the one applied."""
    (tmp_path / "captures").mkdir()
    home = pk.write_pcap(tmp_path / "captures" / "home-mn.pcap", [
        (1, MN["home"], CN["home"], _out(40000, pk.init_chunk(7))),
        (2, MN["home"], CN["home"], _out(40000, pk.data_chunk(7))),
        (3, CN["home"], MN["home"], pk.sctp(5000, 40000, pk.sack_chunk(7))),
    ])
    pk.write_pcap(tmp_path / "captures" / "target-cn.pcap", [(1, CN["target"], MN["target"], pk.sctp(5000, 40000, pk.sack_chunk(7)))])
    read: dict[Path, list[captures.Packet]] = {}
    got = cumtsn.client_packets(tmp_path, assoc, cumtsn.INIT_OR_SACK, read)
    assert list(got) == ["home", "target"] and got["target"] == []
    assert [p.chunk_types for p in got["home"]] == [["INIT"], ["SACK"]]
    assert read == {home: got["home"], tmp_path / "captures" / "target-mn.pcap": []}
    read[home] = got["home"][:1]
    assert len(cumtsn.client_packets(tmp_path, assoc, cumtsn.INIT_OR_SACK, read)["home"]) == 1
    with_data = captures.either(cumtsn.INIT_OR_SACK, captures.with_chunks(captures.CHUNK_DATA))
    assert len(cumtsn.client_packets(tmp_path, assoc, with_data)["home"]) == 3
    assert cumtsn.Ends.of(assoc) == cumtsn.Ends(frozenset(MN.values()), frozenset(CN.values()), 5000)
