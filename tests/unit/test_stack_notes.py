"""Stack-default notes (analysis/stack_notes.py) on the plans of shipped examples: a
signaling run that leaves `nodelay` unset gets the Nagle note, one that sets it does not,
nor does a run whose messages leave slower than an RTT plus the SACK delay."""

from __future__ import annotations

from pathlib import Path

from sctpbench.analysis import stack_notes
from sctpbench.model import spec
from sctpbench.plan import build as planning

ROOT = Path(__file__).resolve().parents[2]


def _association(example: str, *overrides: str) -> tuple[dict, dict]:  # type: ignore[type-arg]
    plan = planning.build(spec.load(ROOT / "examples" / example, list(overrides)), 1, "agent")
    return plan.associations[0].sctp, plan.associations[0].workload


def test_a_signaling_run_with_nodelay_unset_gets_the_nagle_note() -> None:
    sctp, workload = _association("failover-rfc-defaults.yaml")  # 200 B at 50/s on 10 ms paths, nodelay unset
    note = stack_notes.nagle("main", sctp, workload, 20.0, 70.0)
    assert note is not None and note.key == "nodelay"
    assert note.text.startswith("sctp.nodelay unset: Linux's Nagle algorithm may hold a message of 200 B back")
    assert "messages every 20.0 ms, RTT + SACK delay 220.0 ms against an RTT of 20.0 ms); MTT p50 70.0 ms" in note.text


def test_no_note_when_nodelay_is_set_or_messages_are_rarer_than_a_sack_round() -> None:
    sctp, workload = _association("failover.yaml")  # nodelay: true
    assert stack_notes.nagle("main", sctp, workload, 20.0, 10.2) is None
    sctp, workload = _association("failover-rfc-defaults.yaml", "workload.rate=2/s")  # every 500 ms > 20 + 200 ms
    assert stack_notes.nagle("main", sctp, workload, 20.0, 10.2) is None
    sctp, workload = _association("failover-rfc-defaults.yaml", "sctp.nodelay=false")  # asked for
    assert stack_notes.nagle("main", sctp, workload, 20.0, 70.0) is None


def test_every_packet_acknowledged_shortens_the_window() -> None:
    sctp, workload = _association("failover-rfc-defaults.yaml", "workload.rate=20/s", "sctp.sack_freq=1")
    assert stack_notes.nagle("main", sctp, workload, 20.0, None) is None  # 50 ms between messages > 20 ms RTT
    sctp, workload = _association("failover-rfc-defaults.yaml", "workload.rate=20/s")
    assert stack_notes.nagle("main", sctp, workload, 20.0, None) is not None
