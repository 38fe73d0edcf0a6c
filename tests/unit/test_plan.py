"""The plan: golden rendering, addresses, ordering of sysctls, timeline, JSON round trip."""

import os
from pathlib import Path

import pytest

from sctpbench.backends.netns import render as netns_render
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def _plan(name: str, overrides: list[str] = (), repetition: int = 1) -> plan.Plan:
    return plan.build(spec.load(ROOT / "examples" / name, list(overrides)), repetition, "/opt/sctpbench-agent")


GOLDEN_CASES = {
    "failover": ("failover.yaml", []),
    "failover-emulator": ("failover.yaml", ["topology.emulator=true", "measure.capture=true"]),
    "failover-varied": ("failover.yaml", ["vary.event_phase=20ms", "vary.start=5ms", "clock=real"]),
    # IPv6: a path of each family through the emulator, captured; a dual-stack path direct.
    "cross-family-emulator": ("failover-cross-family.yaml", ["topology.emulator=true", "measure.capture=true"]),
    "dual-stack": ("failover.yaml", ["topology.paths.secondary.family=dual"]),
    "dual-stack-drops": ("drop-pattern.yaml", ["topology.paths.primary.family=dual"]),
    "associations": ("associations.yaml", []),
    "competing-tcp": ("competing-tcp.yaml", []),
    "handover": ("handover.yaml", []),
    "signal-handover": ("signal-handover.yaml", []),
    # The project kernel's stack variants and max_burst: net.sctp.* on both hosts.
    "stack-variants": ("handover.yaml", ["sctp.initial_cwnd=unrestricted", "sctp.max_burst=0",
                                         "sctp.primary_cwnd_carry=true"]),
    # Seed 003's six sources, each on a first path drawn from the repetition's seed.
    "random-first-path": ("seed003-policies.yaml", ["workloads.0.random_first_path=true", "workloads.0.arrival=periodic"]),
}


def _golden(name: str, got: str) -> str:
    """Golden files are regenerated with SCTPBENCH_REGEN=1 after an intended change; read the diff."""
    golden = GOLDEN / name
    if os.environ.get("SCTPBENCH_REGEN"):
        golden.write_text(got)
    return golden.read_text()


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_plan_renders_the_exact_commands(case: str) -> None:
    example, overrides = GOLDEN_CASES[case]
    rendered = netns_render.render(_plan(example, overrides))
    assert rendered == _golden(f"{case}.plan.sh", rendered)


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_plan_json_is_the_golden_data(case: str) -> None:
    # The checkout's own folder stands as $ROOT, so the golden holds on any clone.
    example, overrides = GOLDEN_CASES[case]
    data = _plan(example, overrides).to_json().replace(str(ROOT), "$ROOT")
    assert data == _golden(f"{case}.plan.json", data)


def test_plan_round_trips_through_json() -> None:
    p = _plan("failover.yaml")
    assert plan.Plan.from_json(p.to_json()) == p


def test_addresses_come_from_the_benchmarking_range_only() -> None:
    p = _plan("failover.yaml")
    import ipaddress

    bench = ipaddress.ip_network("198.18.0.0/15")
    for link in p.links:
        for end in (link.a, link.b):
            assert ipaddress.ip_address(end.address) in bench
    assert [(a.client_address, a.server_address) for a in p.associations[0].paths] == [
        ("198.18.0.1", "198.18.0.2"), ("198.18.1.1", "198.18.1.2")
    ]


def test_run_id_is_content_derived() -> None:
    assert _plan("failover.yaml").run_id == _plan("failover.yaml").run_id
    assert _plan("failover.yaml").run_id != _plan("failover.yaml", repetition=2).run_id
    assert _plan("failover.yaml").run_id != _plan("failover.yaml", ["sctp.rto_min=300ms"]).run_id


def test_repetitions_get_their_own_seed() -> None:
    assert [_plan("failover.yaml", repetition=r).seed for r in (1, 2, 3)] == [1, 2, 3]


def test_rto_writes_are_ordered_so_the_kernel_accepts_them() -> None:
    # Kernel default rto_min is 1000 ms: a lower rto_max must follow the new rto_min.
    low = _plan("failover.yaml").setup
    sysctl = next(c for c in low if c.tool == "sysctl" and "net.sctp.rto_min=200" in c.args).args
    assert sysctl.index("net.sctp.rto_min=200") < sysctl.index("net.sctp.rto_max=800")
    setup = _plan("failover.yaml", ["sctp.rto_min=70s", "sctp.rto_max=90s"]).setup
    high = next(c for c in setup if c.tool == "sysctl" and "net.sctp.rto_max=90000" in c.args).args
    assert high.index("net.sctp.rto_max=90000") < high.index("net.sctp.rto_min=70000")


def test_kernel_defaults_mean_no_sysctl_writes_but_pf_exposed() -> None:
    writes = [a for c in _plan("failover-rfc-defaults.yaml").setup if c.tool == "sysctl" for a in c.args if "sctp" in a]
    assert writes == ["net.sctp.pf_expose=2", "net.sctp.pf_expose=2"]  # PF is on by default: let it be seen


def test_pf_exposed_only_when_pf_is_on() -> None:
    args = lambda p: [a for c in p.setup if c.tool == "sysctl" for a in c.args]  # noqa: E731
    assert "net.sctp.pf_expose=2" not in args(_plan("failover.yaml"))  # pf_enable: false
    assert "net.sctp.pf_expose=2" in args(_plan("failover.yaml", ["sctp.pf_enable=true"]))


def test_fail_blackholes_both_ends_and_restore_undoes_it() -> None:
    p = _plan("failover.yaml")
    fail = next(t for t in p.timeline if t.kind == "fail")
    assert {c.host for c in fail.commands} == set(p.hosts)
    assert all(c.args[-2:] == ["action", "drop"] and "ingress" in c.args for c in fail.commands)
    assert fail.at_ns == 5_000_000_000


def test_primary_event_targets_the_server_address_of_the_path(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology: dual-homed\nworkload: {client: client, server: server, duration: 5s}\n"
        "events:\n  - {at: 1s, primary: secondary}\n  - {at: 2s, primary: 198.18.0.2}\n  - {at: 3s, fail: primary}\n  - {at: 4s, restore: primary}\n"
    )
    p = plan.build(spec.load(f), 1, "agent")
    assert [(t.kind, t.control) for t in p.timeline if t.kind == "primary"] == [
        ("primary", "primary 198.18.1.2"), ("primary", "primary 198.18.0.2")
    ]
    restore = next(t for t in p.timeline if t.kind == "restore")
    assert all(c.args[:2] == ["filter", "del"] for c in restore.commands)


def test_primary_event_with_a_foreign_address_is_refused(tmp_path: Path) -> None:
    from sctpbench.model.errors import SpecError

    f = tmp_path / "x.yaml"
    f.write_text("topology: dual-homed\nworkload: {client: client, server: server, duration: 5s}\nevents:\n  - {at: 1s, primary: 198.18.9.9}\n")
    with pytest.raises(SpecError, match=r"allowed: primary \(198.18.0.2\), secondary \(198.18.1.2\)"):
        plan.build(spec.load(f), 1, "agent")


def test_shaping_puts_delay_before_the_rate_limiter_and_its_queue(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology:\n  hosts: [a, b]\n  paths:\n    p:\n      between: [a, b]\n      delay: 10ms\n      jitter: 2ms\n"
        "      jitter_distribution: normal\n      loss: 1%\n      rate: 6mbit\n      queue: 50\n"
        "      reverse: {delay: 150ms, gilbert_elliott: {p: 1%, r: 25%}, loss: 0}\n"
        "workload: {client: a, server: b, duration: 1s}\n"
    )
    p = plan.build(spec.load(f), 1, "agent")
    tc = {c.host: [] for c in p.setup}
    for c in p.setup:
        if c.tool == "tc":
            tc[c.host].append(c.args)
    forward = tc["a"]
    # netem's limit covers the delay line (6 Mbit/s over 10 + 4×2 ms in 64 B packets, plus 1000);
    # the user's queue of 50 packets is the bottleneck's pfifo.
    assert forward[0] == ["qdisc", "add", "dev", "p", "root", "handle", "1:", "netem", "delay", "10ms", "2ms",
                          "distribution", "normal", "loss", "random", "1%", "limit", "1211"]
    assert forward[1][4:9] == ["parent", "1:1", "handle", "10:", "tbf"] and "6mbit" in forward[1]
    assert forward[2][4:] == ["parent", "10:1", "handle", "20:", "pfifo", "limit", "50"]
    reverse = tc["b"][0]
    # Gilbert's model by default: everything lost in the bad state (1-h), nothing in the good (1-k)
    assert reverse[reverse.index("loss"):reverse.index("loss") + 6] == ["loss", "gemodel", "1%", "25%", "100%", "0%"]


def test_netem_holds_the_packets_in_flight_when_a_rate_is_set() -> None:
    from sctpbench.model import shaping

    values = {"rate": 100_000_000, "delay": 300_000_000, "jitter": 0, "loss": 0.0}
    # 100 Mbit/s for 300 ms is 3.75 MB in flight: 58,594 packets of 64 B, plus the default queue.
    assert shaping.netem_limit(values) == 58_594 + 1000
    assert shaping.netem_limit({"rate": None, "delay": 0, "jitter": 0, "queue": 20}) == 20


def test_rate_model_link_serializes_in_netem_without_a_token_bucket(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology:\n  hosts: [a, b]\n  paths:\n    p: {between: [a, b], delay: 10ms, rate: 1mbit, queue: 100, rate_model: link}\n"
        "workload: {client: a, server: b, duration: 1s}\nevents:\n  - {at: 0.5s, degrade: p, set: {rate: 2mbit}}\n"
    )
    p = plan.build(spec.load(f), 1, "agent")
    forward = [c.args for c in p.setup if c.tool == "tc" and c.host == "a"]
    # one netem with its own rate: no tbf, no fifo; the limit is the delay line (1 Mbit/s for 10 ms
    # in 64 B packets: 20) plus the queue of 100
    assert forward == [["qdisc", "add", "dev", "p", "root", "handle", "1:", "netem", "delay", "10ms", "rate", "1mbit", "limit", "120"]]
    assert p.links[0].burst == {"forward": None, "reverse": None}
    # a rate change mid-run stays a link: netem's rate changes, no tbf appears
    degrade = [c.args for t in p.timeline if t.kind == "degrade" for c in t.commands]
    assert degrade and all(a[7:8] == ["netem"] and "2mbit" in a and "tbf" not in a for a in degrade), degrade


def test_rate_model_link_netem_limit_adds_the_queue_to_the_delay_line() -> None:
    from sctpbench.model import shaping

    values = {"rate": 100_000_000, "delay": 300_000_000, "jitter": 0, "loss": 0.0, "queue": 50, "rate_model": "link"}
    assert shaping.netem_limit(values) == 58_594 + 50
    assert shaping.qdisc_commands("p", values, "change") == [
        ["qdisc", "change", "dev", "p", "root", "handle", "1:", "netem", "delay", "300ms", "rate", shaping.format_rate(100_000_000),
         "limit", str(58_594 + 50)]]


def test_the_token_bucket_default_keeps_run_ids() -> None:
    assert _plan("failover.yaml", ["topology.paths.primary.rate_model=token-bucket"]).run_id == _plan("failover.yaml").run_id
    assert _plan("failover.yaml", ["topology.paths.primary.rate_model=link"]).run_id != _plan("failover.yaml").run_id


def test_emulator_shapes_on_its_own_egress_and_keeps_each_source_on_its_path() -> None:
    p = _plan("failover.yaml", ["topology.emulator=true"])
    link = p.links[0]
    assert [e.host for e in link.emulator] == ["emu", "emu"]
    assert (link.shaped_at["forward"].ifname, link.shaped_at["reverse"].ifname) == ("primary-b", "primary-a")
    assert [(c.host, c.args[3]) for c in next(t for t in p.timeline if t.kind == "fail").commands] == [
        ("emu", "primary-a"), ("emu", "primary-b")
    ]
    client_ip = [c.args for c in p.setup if c.tool == "ip" and c.host == "client"]
    assert ["rule", "add", "from", "198.18.0.1", "table", "100"] in client_ip
    assert ["route", "replace", "default", "via", "198.18.0.254", "dev", "primary", "table", "100"] in client_ip
    assert not [c for c in p.setup if c.tool == "tc" and c.host != "emu"]
    assert [(a.client_address, a.server_address) for a in p.associations[0].paths] == [
        ("198.18.0.1", "198.18.1.2"), ("198.18.2.1", "198.18.3.2")
    ]


SEED004 = ROOT / "examples" / "seed004-handover.yaml"
AGENT = "/opt/sctpbench-agent"


def _ip(p: plan.Plan, host: str) -> list[str]:
    return [" ".join(c.args) for c in p.setup if c.tool == "ip" and c.host == host]


def test_source_routing_gives_each_address_a_table_to_every_address_of_the_far_host() -> None:
    # What a well-configured multihomed host has: a packet leaves on its source's path,
    # whatever its destination (issue 26, docs/experiments.md "Source addresses").
    plain = plan.build(spec.load(SEED004), 1, AGENT)
    routed = plan.build(spec.load(SEED004, ["topology.source_routing=true"]), 1, AGENT)
    assert not [a for a in _ip(plain, "mn") if a.startswith("rule")]
    mn = _ip(routed, "mn")
    assert {"rule add from 198.18.0.1 table 200", "rule add from 198.18.1.1 table 201",
            "route replace 198.18.0.2/32 dev home table 200", "route replace 198.18.1.2/32 dev home table 200",
            "route replace 198.18.0.2/32 dev target table 201", "route replace 198.18.1.2/32 dev target table 201",
            # the far host's other address is reached on this wire: its MAC there, no ARP
            "neigh replace 198.18.1.2 lladdr 02:5b:c6:12:00:02 dev home nud permanent",
            "neigh replace 198.18.0.2 lladdr 02:5b:c6:12:01:02 dev target nud permanent"} <= set(mn)
    assert "rule add from 198.18.1.2 table 201" in _ip(routed, "cn")
    # An `up` after a `down` puts the tables' routes back with the neighbours.
    home = next(link for link in routed.links if link.path == "home")
    assert "route replace 198.18.1.2/32 dev home table 200" in [" ".join(c.args) for c in home.routes]
    assert routed.run_id != plain.run_id


def test_source_routing_is_for_direct_paths() -> None:
    with pytest.raises(SpecError, match="source_routing is for direct paths"):
        spec.load(SEED004, ["topology.source_routing=true", "topology.emulator=true"])
