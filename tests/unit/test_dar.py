"""Dynamic address reconfiguration in the plan (plan/dar.py, model/events/: add_address,
delete_address, peer_primary, set_primary, handover): the steps, the client's addresses at
start, the control lines, and the sysctls ASCONF needs. The guest run is
test_guest_handover.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as planning

ROOT = Path(__file__).resolve().parents[2]
BASE = """\
topology: dual-homed
workload: {client: client, server: server, duration: 6s}
events:
"""


def _plan(tmp_path: Path, *events: str) -> planning.Plan:
    f = tmp_path / "x.yaml"
    f.write_text(BASE + "".join(f"  - {e}\n" for e in events))
    return planning.build(spec.load(f), 1, "agent")


def _client_local(plan: planning.Plan) -> str:
    (client,) = [p for p in plan.processes if p.name == "main.client"]
    return client.argv[client.argv.index("--local") + 1]


def _sysctls(plan: planning.Plan) -> dict[str | None, list[str]]:
    return {c.host: c.args for c in plan.setup if c.tool == "sysctl" and c.host in ("client", "server")}


def _controls(plan: planning.Plan) -> list[tuple[int, str, str]]:
    return [(a.at_ns, a.kind, a.control or "") for a in plan.timeline if a.kind != "start"]


def test_the_handover_example_adds_sets_primary_at_both_ends_and_deletes() -> None:
    plan = planning.build(spec.load(ROOT / "examples/handover.yaml"), 1, "agent")
    assert _client_local(plan) == "198.18.0.1"  # the secondary address comes with the handover
    assert _controls(plan) == [
        (2_000_000_000, "add_address", "addaddr 198.18.1.1"),
        (3_000_000_000, "primary", "primary 198.18.1.2"),
        (3_000_000_000, "peer_primary", "peerprimary 198.18.1.1"),
        (4_000_000_000, "delete_address", "deladdr 198.18.0.1"),
    ]
    for host, args in _sysctls(plan).items():
        assert args[-2:] == ["net.sctp.addip_enable=1", "net.sctp.auth_enable=1"], host


def test_separate_events_make_the_same_steps_as_the_handover(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "{at: 2s, add_address: secondary}", "{at: 3s, set_primary: secondary, peer: true}",
                 "{at: 4s, delete_address: primary}")
    handover = _plan(tmp_path, "{at: 2s, handover: primary, to: secondary}")
    assert _controls(plan) == _controls(handover)
    assert _client_local(plan) == _client_local(handover) == "198.18.0.1"


def test_a_path_deleted_before_it_is_added_again_is_bound_at_start(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "{at: 1s, delete_address: secondary}", "{at: 2s, add_address: secondary}")
    assert _client_local(plan) == "198.18.0.1,198.18.1.1"
    assert [c for _, _, c in _controls(plan)] == ["deladdr 198.18.1.1", "addaddr 198.18.1.1"]


def test_set_primary_without_peer_needs_no_asconf(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "{at: 1s, set_primary: secondary}")
    assert _controls(plan) == [(1_000_000_000, "primary", "primary 198.18.1.2")]
    assert _client_local(plan) == "198.18.0.1,198.18.1.1"
    assert not any("addip" in arg for args in _sysctls(plan).values() for arg in args)


def test_the_handover_gaps_are_its_own(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "{at: 1s, handover: primary, to: secondary, primary_after: 500ms, delete_after: 2s, peer: false}")
    assert _controls(plan) == [
        (1_000_000_000, "add_address", "addaddr 198.18.1.1"),
        (1_500_000_000, "primary", "primary 198.18.1.2"),
        (3_500_000_000, "delete_address", "deladdr 198.18.0.1"),
    ]


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ("{at: 1s, set_primary: nowhere}", "x.yaml:4: events.0.set_primary: unknown path 'nowhere'; allowed: primary, secondary"),
        ("{at: 1s, handover: primary, to: secondary, delete_after: 5s}",
         "x.yaml:4: events.0.delete_after: the handover's last step is after the workload ends"),
        ("{at: 1s, handover: secondary, to: primary}", "x.yaml:4: events.0.to: 'primary' is an association's first path"),
        ("{at: 1s, peer_primary: secondary, extra: 1}", "x.yaml:4: events.0.extra"),
    ],
)
def test_bad_address_events_get_one_message(tmp_path: Path, event: str, message: str) -> None:
    with pytest.raises(SpecError) as e:
        _plan(tmp_path, event)
    assert message in str(e.value), str(e.value)
