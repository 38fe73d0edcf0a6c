"""Several associations: the spec's list, the plan's agents and timeline, metrics across them."""

from pathlib import Path

import pytest

from sctpbench.analysis import metrics
from sctpbench.analysis.metrics import Failure, Message
from sctpbench.model import experiment, spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan
from sctpbench.plan.data import Plan

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "associations.yaml"
MS = 1_000_000

TOPOLOGY = """topology:
  hosts: [hq, edge, lab]
  paths:
    wan: {between: [hq, edge]}
    wan2: {between: [hq, edge]}
    lan: {between: [hq, lab]}
"""


def _load(tmp_path: Path, text: str, overrides: list[str] | None = None) -> spec.Experiment:
    f = tmp_path / "x.yaml"
    f.write_text(TOPOLOGY + text)
    return spec.load(f, overrides or [])


def test_a_single_workload_is_one_association_named_main(tmp_path: Path) -> None:
    e = _load(tmp_path, "workload: {client: hq, server: edge, duration: 5s}\n")
    (a,) = e.associations
    assert a.name == experiment.DEFAULT_ASSOCIATION == "main" and (a.client, a.server) == ("hq", "edge")


def test_workloads_list_keeps_names_hosts_and_own_sctp_over_the_experiments(tmp_path: Path) -> None:
    e = _load(tmp_path, "sctp: {rto_min: 200ms, nodelay: true, streams: 10}\nworkloads:\n"
                        "  - {name: a, client: hq, server: edge, duration: 5s}\n"
                        "  - {name: b, client: lab, server: hq, duration: 2s, port: 6000, sctp: {streams: 4, nodelay: false}}\n")
    a, b = e.associations
    assert (a.name, b.name, b.port) == ("a", "b", 6000)
    assert e.association_sctp(a) == e.sctp
    merged = e.association_sctp(b)
    assert (merged.rto_min, merged.nodelay, merged.streams) == (200 * MS, False, 4)
    assert e.end_ns == 5_000 * MS


def test_set_reaches_an_association_of_the_list(tmp_path: Path) -> None:
    e = _load(tmp_path, "workloads:\n  - {name: a, client: hq, server: edge, duration: 5s}\n", ["workloads.0.rate=10/s"])
    assert e.associations[0].rate == 10.0


@pytest.mark.parametrize("text, expected", [
    ("workloads:\n  - {name: a, client: hq, server: edge, duration: 5s}\n  - {name: all, client: lab, server: hq, duration: 5s}\n",
     "workloads.1.name: 'all' stands for every association"),
    ("sctp: {streams: 2}\nworkloads:\n  - {name: a, client: hq, server: edge, duration: 5s, streams: 3}\n",
     "workloads.0.streams: 3 streams but sctp.streams asks for 2"),
    ("workloads:\n  - {name: a, client: hq, server: hq, duration: 5s}\n", "workloads.0.server: client and server must be different hosts"),
    ("workloads:\n  - {name: a, client: hq, server: edge, duration: 5s, sctp: {rcvbuf: 1MB}}\n"
     "  - {name: b, client: lab, server: hq, port: 5001, duration: 5s}\n",
     "workloads.1.sctp.rcvbuf: the kernel's default but association a asks for 1000000 kernel-wide"),
    ("workloads:\n  - {name: a, client: hq, server: edge, duration: 5s}\nevents:\n  - {at: 1s, primary: 198.18.9.9}\n",
     "events.0.primary: '198.18.9.9' is not a peer address of the association"),
    ("workloads:\n  - {name: a, client: hq, server: edge, duration: 5s}\n  - {name: b, client: lab, server: hq, port: 5001, duration: 5s}\n"
     "events:\n  - {at: 1s, primary: nowhere}\n", "events.0.primary: 'nowhere' is not a path of an association"),
    ("workloads: []\n", "workloads: List should have at least 1 item"),
])
def test_association_mistakes_are_one_line_with_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, text)
    assert f"{tmp_path}/x.yaml:" in str(e.value) and expected in str(e.value), str(e.value)
    assert "\n" not in str(e.value)


def test_socket_options_are_per_association_and_equal_sysctls_may_share_a_host(tmp_path: Path) -> None:
    e = _load(tmp_path, "sctp: {rto_min: 200ms}\nworkloads:\n"
                        "  - {name: a, client: hq, server: edge, duration: 5s, sctp: {rto_min: 200ms, sack_freq: 1}}\n"
                        "  - {name: b, client: lab, server: hq, port: 5001, duration: 5s}\n")
    p = plan.build(e, 1, "agent")
    argv = {proc.name: proc.argv for proc in p.processes}
    assert "--sack-freq" in argv["a.client"] and "--sack-freq" not in argv["b.client"]
    assert [(c.host, "net.sctp.rto_min=200" in c.args) for c in p.setup if c.tool == "sysctl" and c.host in ("hq", "edge", "lab")
            and any(a.startswith("net.sctp.") for a in c.args)] == [("hq", True), ("edge", True), ("lab", True)]


def test_the_plan_has_two_agents_per_association_with_their_own_records() -> None:
    p = plan.build(spec.load(EXAMPLE), 1, "agent")
    assert [(a.name, a.client, a.server, a.path_names) for a in p.associations] == [
        ("ops", "hq", "edge", ["wan1", "wan2"]), ("back", "edge", "hq", ["wan1", "wan2"]),
        ("sync", "lab", "hq", ["lab1", "lab2", "lab3"])]
    agents = [(proc.name, proc.role, proc.host, proc.association) for proc in p.processes]
    assert agents == [("ops.server", "server", "edge", "ops"), ("ops.client", "client", "hq", "ops"),
                      ("back.server", "server", "hq", "back"), ("back.client", "client", "edge", "back"),
                      ("sync.server", "server", "hq", "sync"), ("sync.client", "client", "lab", "sync")]
    records = {proc.name: proc.argv[proc.argv.index("--records") + 1] for proc in p.processes}
    assert records["sync.client"] == "{run}/records/sync.client.rec" and p.associations[2].client_records == "records/sync.client.rec"
    starts = [(t.target, t.agents) for t in p.timeline if t.kind == "start"]
    assert starts == [("ops", ["ops.client"]), ("back", ["back.client"]), ("sync", ["sync.client"])]
    # the back association listens on hq's wan addresses, as ops's client binds them: one scheme, other roles
    assert p.associations[1].paths[0].server_address == p.associations[0].paths[0].client_address
    assert Plan.from_json(p.to_json()) == p


def test_primary_on_a_path_goes_to_every_association_it_joins_with_each_ones_peer_address() -> None:
    p = plan.build(spec.load(EXAMPLE, ["events.0={at: 1s, primary: wan2}"]), 1, "agent")
    actions = [(t.agents, t.control) for t in p.timeline if t.kind == "primary"]
    ops, back = p.associations[0].paths[1], p.associations[1].paths[1]
    assert actions == [(["ops.client"], f"primary {ops.server_address}"), (["back.client"], f"primary {back.server_address}")]


def test_primary_on_an_address_goes_to_the_association_that_owns_it() -> None:
    address = plan.build(spec.load(EXAMPLE), 1, "agent").associations[2].paths[1].server_address
    p = plan.build(spec.load(EXAMPLE, [f"events.0={{at: 1s, primary: '{address}'}}"]), 1, "agent")
    assert [(t.agents, t.control) for t in p.timeline if t.kind == "primary"] == [(["sync.client"], f"primary {address}")]


def test_a_plan_from_before_associations_reads_as_one_association() -> None:
    p = plan.build(spec.load(ROOT / "examples" / "failover.yaml"), 1, "agent")
    import json

    d = json.loads(p.to_json())
    a = d.pop("associations")[0]
    d |= {"format": 1, "association": a["paths"], "workload": a["workload"] | {"client": "client", "server": "server"}}
    for t in d["timeline"]:
        t.pop("agents")
    old = Plan.from_json(json.dumps(d))
    (assoc,) = old.associations
    assert (assoc.client_records, assoc.client_agent, assoc.path_names) == ("records/client.rec", "client", ["primary", "secondary"])
    assert old.timeline[0].agents == ["client"]


def test_single_association_run_id_is_unchanged_by_associations() -> None:
    """Run ids name folders and namespaces: a single `workload:` keeps the id it had (golden failover plan)."""
    assert plan.build(spec.load(ROOT / "examples" / "failover.yaml"), 1, "agent").run_id == "e1f71b26ccb1"


# ---------------------------------------------------------------------------- metrics across associations


def _assoc_messages(offset_ms: int, path: str, mtt_ms: int, n: int = 10) -> list[Message]:
    return [Message(i, (offset_ms + i) * MS, (offset_ms + i + mtt_ms) * MS, path) for i in range(n)]


def test_metrics_across_associations_pool_messages_sum_counts_and_take_the_slowest_event_times() -> None:
    hit = _assoc_messages(0, "wan", 10) + [Message(10, 100 * MS, 900 * MS, "wan2")]
    calm = _assoc_messages(0, "lan", 5)
    failure = Failure("wan", 50 * MS, "198.18.0.2")
    per = {
        "a": metrics.run_metrics(hit, 11, failure, [(450 * MS, "198.18.0.2", "ADDR_UNREACHABLE")]),
        "b": metrics.run_metrics(calm, 12, None, []),
    }
    run = metrics.across_associations(per, hit + calm)
    assert list(run) == list(per["a"])
    assert run == metrics.run_metrics(hit + calm, 23, None, []) | {
        "detection_time_ms": 400.0, "unreachable_time_ms": 400.0, "failover_time_ms": per["a"]["failover_time_ms"],
        "messages_affected": per["a"]["messages_affected"], "pre_failure_p99_ms": per["a"]["pre_failure_p99_ms"]}
    assert run["mmtt_ms"] == 800.0 and run["messages_sent"] == 23


def test_with_one_association_the_runs_metrics_are_its_own() -> None:
    msgs = _assoc_messages(0, "wan", 10) + [Message(10, 100 * MS, 900 * MS, "wan2")]
    own = metrics.run_metrics(msgs, 11, Failure("wan", 50 * MS, "x"), [(450 * MS, "x", "ADDR_UNREACHABLE")])
    assert metrics.across_associations({"main": own}, msgs) == own


def test_two_failed_associations_report_the_slowest_detection_and_failover() -> None:
    a = {"detection_time_ms": 1400.0, "failover_time_ms": 200.0, "messages_sent": 1}
    b = {"detection_time_ms": 1480.0, "failover_time_ms": 190.0, "messages_sent": 2}
    run = metrics.across_associations({"a": a, "b": b}, [])
    assert (run["detection_time_ms"], run["failover_time_ms"], run["messages_sent"]) == (1480.0, 200.0, 3)


def test_first_path_is_dealt_out_to_counted_associations(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology:\n  hosts: [a, b]\n  paths:\n    one: {between: [a, b]}\n    two: {between: [a, b]}\n"
        "workloads:\n  - {name: src, count: 3, client: a, server: b, duration: 2s, first_path: [two, one]}\n"
        "  - {name: fixed, client: a, server: b, duration: 2s, port: 6000, first_path: two}\n"
        "  - {name: plain, client: a, server: b, duration: 2s, port: 7000}\n"
    )
    p = plan.build(spec.load(f), 1, "agent")
    first = {a.name: [x.path for x in a.paths] for a in p.associations}
    # the INIT's path (the client's first peer address) comes first; the rest keep the topology's order
    assert first == {"src1": ["two", "one"], "src2": ["one", "two"], "src3": ["two", "one"],
                     "fixed": ["two", "one"], "plain": ["one", "two"]}
    client = next(pr for pr in p.processes if pr.role == "client" and pr.name.startswith("src2"))
    assert client.argv[client.argv.index("--peer") + 1].startswith("198.18.0.")
