"""The experiment file: units, overrides, topology files, and the message for each bad input."""

from pathlib import Path

import pytest

from sctpbench.model import sctp_params, spec, units
from sctpbench.model.errors import SpecError

ROOT = Path(__file__).resolve().parents[2]
ERRORS = sorted((Path(__file__).resolve().parents[1] / "data" / "spec_errors").glob("*.yaml"))


@pytest.mark.parametrize("case", ERRORS, ids=[p.stem for p in ERRORS])
def test_bad_file_gets_one_message_naming_file_line_key_and_allowed(case: Path) -> None:
    expected = case.read_text().splitlines()[0].removeprefix("# expect: ")
    with pytest.raises(SpecError) as e:
        spec.load(case)
    assert str(e.value).startswith(f"{case.parent}/{expected}") or expected in str(e.value), str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "text, ns", [("10ms", 10_000_000), ("1.5s", 1_500_000_000), ("250us", 250_000), ("2min", 120_000_000_000), (0, 0)]
)
def test_durations(text: object, ns: int) -> None:
    assert units.parse_duration(text) == ns


@pytest.mark.parametrize("bad", ["10", "10 parsecs", "fast", True, None, "-1ms"])
def test_bad_durations_say_what_is_allowed(bad: object) -> None:
    with pytest.raises(ValueError, match="allowed: a number with a unit"):
        units.parse_duration(bad)


def test_rates_sizes_percentages() -> None:
    assert units.parse_rate("6mbit") == 6_000_000
    assert units.parse_rate("384kbit") == 384_000
    assert units.parse_rate("1mbps") == 8_000_000
    assert units.parse_size("1500B") == 1500
    assert units.parse_size("1KiB") == 1024
    assert units.parse_size(200) == 200
    assert units.parse_percent("0.5%") == 0.5
    assert units.parse_message_rate("50/s") == 50.0
    with pytest.raises(ValueError):
        units.parse_percent("101%")
    assert units.format_duration(10_000_000) == "10ms"
    assert units.format_duration(1_500_000) == "1500us"
    assert units.format_rate(100_000_000) == "100mbit"


def test_example_loads_with_units_resolved_and_topology_file() -> None:
    e = spec.load(ROOT / "examples/failover.yaml")
    assert e.name == "failover"
    assert e.sctp.rto_min == 200_000_000
    assert e.sctp.pf_enable is False
    assert list(e.topology.paths) == ["primary", "secondary"]
    assert e.topology.paths["primary"].delay == 10_000_000
    assert e.events[0].action == "fail" and e.events[0].target == "primary"


def test_unset_parameters_keep_the_kernel_default() -> None:
    e = spec.load(ROOT / "examples/failover-rfc-defaults.yaml")
    assert all(v is None for v in e.sctp.model_dump().values())


def test_the_sctp_keys_are_the_tables_in_its_order_with_its_bounds_and_help() -> None:
    fields = spec.Experiment.model_fields["sctp"].annotation.model_fields
    assert list(fields) == [p.key for p in sctp_params.PARAMS]
    assert all(fields[p.key].description == (p.help or None) for p in sctp_params.PARAMS)
    for p in sctp_params.PARAMS:
        if p.high is not None:
            too_high = f"{p.high + 1}ms" if p.unit == "ms" else str(p.high + 1)
            with pytest.raises(SpecError, match=f"sctp.{p.key}: .* is out of range; allowed: at most"):
                spec.load(ROOT / "examples/failover.yaml", [f"sctp.{p.key}={too_high}"])


def test_overrides_set_any_dotted_key_and_are_validated() -> None:
    e = spec.load(ROOT / "examples/failover.yaml", ["sctp.rto_min=100ms", "events.0.at=2s", "repeat=3", "topology.paths.primary.delay=25ms"])
    assert e.sctp.rto_min == 100_000_000
    assert e.events[0].at == 2_000_000_000
    assert e.repeat == 3
    assert e.topology.paths["primary"].delay == 25_000_000
    with pytest.raises(SpecError, match=r"^--set sctp.rto_min=fast: sctp.rto_min: 'fast' is not a duration"):
        spec.load(ROOT / "examples/failover.yaml", ["sctp.rto_min=fast"])
    with pytest.raises(SpecError, match=r"^--set events.3.at=1s: events.3: no such list item"):
        spec.load(ROOT / "examples/failover.yaml", ["events.3.at=1s"])
    with pytest.raises(SpecError, match="expected KEY=VALUE"):
        spec.load(ROOT / "examples/failover.yaml", ["sctp.rto_min"])


def test_per_direction_override_inherits_the_rest(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology:\n  hosts: [a, b]\n  paths:\n    p:\n      between: [a, b]\n      delay: 10ms\n      rate: 6mbit\n"
        "      reverse: {delay: 150ms}\nworkload: {client: a, server: b, duration: 1s}\n"
    )
    path = spec.load(f).topology.paths["p"]
    assert path.direction("forward")["delay"] == 10_000_000
    assert path.direction("reverse")["delay"] == 150_000_000
    assert path.direction("reverse")["rate"] == 6_000_000


def test_queue_of_one_bdp_is_rate_times_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology:\n  hosts: [a, b]\n  paths:\n    p:\n      between: [a, b]\n      delay: 20ms\n      rate: 6mbit\n"
        "      queue_bytes: bdp\n      reverse: {delay: 30ms}\nworkload: {client: a, server: b, duration: 1s}\n"
    )
    path = spec.load(f).topology.paths["p"]
    assert path.direction("forward")["queue_bytes"] == 6_000_000 * 50 // 8 // 1000
    assert path.direction("reverse")["queue_bytes"] == 6_000_000 * 50 // 8 // 1000


def test_topology_file_can_be_overridden_inline(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text("topology:\n  use: dual-homed\n  paths: {secondary: {delay: 50ms}}\nworkload: {client: client, server: server, duration: 1s}\n")
    paths = spec.load(f).topology.paths
    assert paths["secondary"].delay == 50_000_000
    assert paths["primary"].delay == 10_000_000
    assert list(paths) == ["primary", "secondary"]  # the file's order decides addresses and the primary


def test_drop_pattern_from_a_file_and_its_errors_name_the_line(tmp_path: Path) -> None:
    e = spec.load(ROOT / "examples/drop-pattern.yaml")
    assert e.topology.paths["primary"].drop_packets.positions == [5, 10, 11, 12, 40]
    (tmp_path / "p.txt").write_text("# positions\n3\n7-x\n")
    f = tmp_path / "x.yaml"
    f.write_text(
        "topology:\n  emulator: true\n  hosts: [c, s]\n  paths:\n    p: {between: [c, s], drop_packets: {file: p.txt}}\n"
        "workload: {client: c, server: s, duration: 1s}\n"
    )
    with pytest.raises(SpecError, match=r"p.txt:3: '7-x' is not a packet number or range"):
        spec.load(f)
