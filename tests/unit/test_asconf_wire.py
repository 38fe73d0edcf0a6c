"""Address reconfigurations from the agent's requests and hand-made packets (no tshark, no
kernel): the serial number decoded from bytes pairs each of the client's ASCONFs with its
ASCONF-ACK; a retransmitted ASCONF keeps its first time; the server's own ASCONFs and
another association's are ignored; the n-th request is the n-th serial."""

from __future__ import annotations

import struct

from sctpbench.analysis import asconf
from tests.support.packets import CLIENT, ENDS, SERVER, T0, packet, sctp

S = 1_000_000_000


def _chunk(ctype: int, serial: int) -> bytes:
    return struct.pack("!BBHI", ctype, 0, 8, serial)


def _up(t_ms: float, serial: int, dport: int = 5000):  # noqa: ANN202
    return packet(t_ms, CLIENT["primary"], SERVER["primary"], sctp(40000, dport, _chunk(193, serial)))


def _ack(t_ms: float, serial: int, path: str = "primary"):  # noqa: ANN202
    return packet(t_ms, SERVER[path], CLIENT[path], sctp(5000, 40000, _chunk(128, serial)))


BY_PATH = {
    "primary": [_up(2010, 7), _up(2310, 7), _ack(3030, 8), _up(3010, 8), _up(4010, 9), _up(4100, 10, dport=5001),
                packet(4500, SERVER["primary"], CLIENT["primary"], sctp(5000, 40000, _chunk(193, 1)))],
    "secondary": [_ack(2320, 7, "secondary")],
}


def test_each_asconf_is_paired_with_its_ack_by_serial() -> None:
    got = asconf.exchanges(ENDS, BY_PATH, T0)
    assert [(x["serial"], x["path"], x["ack_path"]) for x in got] == [(7, "primary", "secondary"), (8, "primary", "primary"),
                                                                      (9, "primary", None)]
    # the retransmission at 2.31 s does not move the first time on the wire
    assert got[0]["wire_rel_ns"] == 2_010_000_000 and got[0]["acked_rel_ns"] == 2_320_000_000
    assert got[2]["acked_rel_ns"] is None


def test_each_request_completes_at_its_ack() -> None:
    requests = [(2 * S, "ASCONF_ADD_IP"), (3 * S, "ASCONF_SET_PRIMARY"), (4 * S, "ASCONF_DELETE_IP"), (5 * S, "ASCONF_ADD_IP")]
    got = asconf.completions(requests, asconf.exchanges(ENDS, BY_PATH, T0))
    assert [(x["request"], x.get("serial"), x["completed_ms"]) for x in got] == [
        ("ASCONF_ADD_IP", 7, 320.0), ("ASCONF_SET_PRIMARY", 8, 30.0), ("ASCONF_DELETE_IP", 9, None), ("ASCONF_ADD_IP", None, None)]
