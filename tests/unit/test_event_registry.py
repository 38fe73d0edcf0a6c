"""Event kinds come from the registry (sctpbench/model/events/): the nine built-in kinds,
and a toy kind added by one module only (tests/data/event_kinds/mtu.py), working end to end
without a kernel: parsed with its keys, refused with a file:line message, expanded,
rendered by `sctpbench plan`, described by the JSON schema, and marked on the figures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from matplotlib.figure import Figure

from sctpbench import cli, fileschema
from sctpbench.model import events as events_package
from sctpbench.model import spec, timeline
from sctpbench.model.errors import SpecError
from sctpbench.model.events import registry
from sctpbench.outputs import figures, series
from sctpbench.plan import build as planning

ROOT = Path(__file__).resolve().parents[2]
TOY_KINDS = Path(__file__).resolve().parents[1] / "data" / "event_kinds"
S = 1_000_000_000
BASE = "topology: dual-homed\nworkload: {client: client, server: server, duration: 10s}\nevents:\n"


@pytest.fixture
def toy_kind() -> Iterator[None]:
    """The events package with tests/data/event_kinds/ on its path, as if mtu.py were in it."""
    events_package.__path__.append(str(TOY_KINDS))
    registry.kinds.cache_clear()
    try:
        yield
    finally:
        events_package.__path__.remove(str(TOY_KINDS))
        sys.modules.pop(f"{events_package.__name__}.mtu", None)
        registry.kinds.cache_clear()


def _file(tmp_path: Path, *events: str) -> Path:
    f = tmp_path / "x.yaml"
    f.write_text(BASE + "".join(f"  - {e}\n" for e in events))
    return f


def test_the_built_in_kinds_in_their_order_each_a_module_of_its_own() -> None:
    assert registry.names() == ["fail", "restore", "primary", "add_address", "delete_address", "peer_primary", "set_primary",
                                "handover", "down", "up", "degrade", "flap", "trace", "pingpong"]
    assert {k.__module__.rsplit(".", 1)[1] for k in registry.kinds().values()} == set(registry.names())
    assert list(registry.steps()) == ["fail", "restore", "primary", "add_address", "delete_address", "peer_primary", "down", "up",
                                      "degrade"]


def test_run_ids_are_the_ones_from_before_the_registry() -> None:
    """Campaigns resume and match runs by content-derived ids: the kinds' dump kept them."""
    ids = {name: planning.build(spec.load(ROOT / f"examples/{name}.yaml"), 1, "agent").run_id
           for name in ("failover-restore", "link-faults", "delay-step", "pingpong")}
    assert ids == {"failover-restore": "2efaca479030", "link-faults": "04c7c591d563", "delay-step": "b7f44798b785",
                   "pingpong": "c6b087071bbf"}


def test_a_key_added_to_an_old_kind_changes_the_run_id_only_when_set() -> None:
    def run_id(*overrides: str) -> str:
        return planning.build(spec.load(ROOT / "examples/pingpong.yaml", list(overrides)), 1, "agent").run_id

    assert run_id("events.0.switch_primary=false") == "c6b087071bbf"
    assert run_id("events.0.switch_primary=true") not in ("c6b087071bbf", run_id("events.0.switch_primary=true", "events.0.peer=true"))


def test_an_event_without_a_kind_or_with_two_names_every_kind(tmp_path: Path) -> None:
    for event in ("{at: 1s}", "{at: 1s, fail: primary, down: primary}"):
        with pytest.raises(SpecError, match=r"x.yaml:4: events.0: an event needs exactly one of: fail, restore, primary, "
                                            r"add_address, delete_address, peer_primary, set_primary, handover, down, "
                                            r"up, degrade, flap, trace, pingpong$"):
            spec.load(_file(tmp_path, event))


def test_the_toy_kind_is_unknown_without_its_module(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"x.yaml:4: events.0: an event needs exactly one of: .*pingpong$"):
        spec.load(_file(tmp_path, "{at: 2s, mtu: primary, size: 1280}"))


@pytest.mark.usefixtures("toy_kind")
def test_a_kind_added_by_one_module_is_parsed_checked_and_expanded(tmp_path: Path) -> None:
    assert registry.names()[-1] == "mtu" and "mtu" in registry.steps()
    e = spec.load(_file(tmp_path, "{at: 2s, mtu: primary, size: 1280, hold: 3s}", "{at: 4s, fail: secondary}"))
    toy = e.events[0]
    assert (toy.action, toy.target, toy.at) == ("mtu", "primary", 2 * S)
    steps = timeline.expand(e.events, {}, seed=1, end_ns=10 * S)
    assert [(s.at_ns, s.kind, s.path, s.values) for s in steps] == [
        (2 * S, "mtu", "primary", {"size": 1280}), (4 * S, "fail", "secondary", {}), (5 * S, "mtu", "primary", {"size": 1500})]


@pytest.mark.usefixtures("toy_kind")
@pytest.mark.parametrize("event, message", [
    ("{at: 2s, mtu: primary, size: 1280, bytes: 1280}", r"events.0.bytes: unknown key; allowed: at, mtu, size, hold"),
    ("{at: 2s, mtu: primary, size: 100}", r"events.0.size: 100 is out of range; allowed: at least 576"),
    ("{at: 2s, mtu: tertiary, size: 1280}", r"events.0.mtu: unknown path 'tertiary'; allowed: primary, secondary"),
    ("{at: 2s, mtu: primary, size: 1280, hold: 9s}", r"events.0.hold: the MTU would come back after the workload ends \(10s\)"),
    ("{at: 2s, mtu: primary, fail: primary}", r"events.0: an event needs exactly one of: .*pingpong, mtu$"),
])
def test_the_toy_kind_refuses_bad_input_with_the_file_and_line(tmp_path: Path, event: str, message: str) -> None:
    with pytest.raises(SpecError, match=rf"x.yaml:4: {message}"):
        spec.load(_file(tmp_path, event))


@pytest.mark.usefixtures("toy_kind")
def test_the_toy_kind_is_rendered_in_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plan", str(_file(tmp_path, "{at: 2s, mtu: primary, size: 1280, hold: 3s}")), "--backend", "netns"]) == 0
    out = capsys.readouterr().out
    at_2s = out[out.index("# t0+2.000s mtu primary 1280 bytes\n"):].splitlines()[1:3]
    assert [line.split(" ", 3)[3] for line in at_2s] == ["link set dev primary mtu 1280"] * 2
    assert [line.split()[2].rsplit("-", 1)[1] for line in at_2s] == ["client", "server"]  # each host's namespace
    assert "# t0+5.000s mtu primary 1500 bytes mtu hold\n" in out


@pytest.mark.usefixtures("toy_kind")
def test_the_toy_kind_is_in_the_json_schema() -> None:
    schema = fileschema.generate("experiment")
    assert schema["$defs"]["MtuEvent"]["required"] == ["at", "mtu", "size"]
    validator = jsonschema.Draft202012Validator(schema)
    base = {"topology": "dual-homed", "workload": {"client": "client", "server": "server", "duration": "5s"}}
    assert not list(validator.iter_errors(base | {"events": [{"at": "1s", "mtu": "primary", "size": 1280}]}))
    bad = jsonschema.exceptions.best_match(validator.iter_errors(base | {"events": [{"at": "1s", "mtu": "primary", "bytes": 1}]}))
    assert bad is not None and bad.json_path == "$.events[0]"


@pytest.mark.usefixtures("toy_kind")
def test_the_toy_kind_is_marked_on_the_figures_as_its_module_says() -> None:
    rows = [{"t_rel_ns": 2 * S, "source": "timeline", "kind": "mtu", "path": "primary"},
            {"t_rel_ns": 3 * S, "source": "timeline", "kind": "fail", "path": "primary"}]
    markers = series.markers(rows)
    assert [(m.label, m.colour, m.style) for m in markers] == [("MTU primary", "#17becf", ":"), ("fail primary", "#d62728", "-")]
    ax = Figure().subplots()
    figures._mark_events(ax, markers, labelled=True)
    assert [(line.get_color(), line.get_linestyle()) for line in ax.get_lines()] == [("#17becf", ":"), ("#d62728", "-")]


def test_a_timeline_row_of_an_unknown_kind_is_not_marked() -> None:
    assert series.markers([{"t_rel_ns": S, "source": "timeline", "kind": "mtu", "path": "primary"}]) == []
