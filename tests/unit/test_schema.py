"""The JSON Schemas of experiment, campaign and topology files: committed and current,
every shipped file valid under them, mistakes refused, and the written forms of
quantities (`10ms`, `6mbit`) the same as the parsers'."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from jsonschema.exceptions import best_match

from sctpbench import cli, fileschema
from sctpbench.campaign import spec as campaign_spec
from sctpbench.model import fields, inputfile, spec, units

ROOT = Path(__file__).resolve().parents[2]
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.MULTILINE)


def _kind(data: dict[str, Any]) -> fileschema.Kind:
    # A campaign names its base experiment; a topology file has hosts at the top; a claims file claims.
    if "claims" in data:
        return "claims"
    return "campaign" if "experiment" in data else "topology" if "hosts" in data else "experiment"


SHIPPED = sorted([*ROOT.glob("examples/*.yaml"), *ROOT.glob("examples/campaigns/*.yaml"), *ROOT.glob("reproductions/*/*.yaml"),
                  *ROOT.glob("tests/data/claims/*.yaml"),
                  *ROOT.glob("sctpbench/topologies/*.yaml"), *ROOT.glob("tests/data/campaigns/*.yaml")])


def _validator(kind: fileschema.Kind) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(fileschema.generate(kind))


def _errors(kind: fileschema.Kind, data: Any) -> list[jsonschema.ValidationError]:
    return list(_validator(kind).iter_errors(data))


@pytest.mark.parametrize("kind", fileschema.KINDS)
def test_committed_schema_is_current(kind: fileschema.Kind) -> None:
    """Golden: regenerate with SCTPBENCH_REGEN=1 after a change to the models, and read the diff."""
    path = fileschema.committed(kind)
    if os.environ.get("SCTPBENCH_REGEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(fileschema.render(kind))
    assert path.read_text() == fileschema.render(kind), f"{path} is stale: SCTPBENCH_REGEN=1 pytest tests/test_schema.py"


def test_committed_schemas_ship_with_the_package() -> None:
    """pyproject's package-data names schema/*.json under the package: the files are there."""
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"schema/*.json"' in pyproject
    assert sorted(p.name for p in (ROOT / "sctpbench" / "schema").glob("*.json")) == sorted(f"{k}.schema.json" for k in fileschema.KINDS)


@pytest.mark.parametrize("kind", fileschema.KINDS)
def test_schema_is_valid_and_fully_resolved(kind: fileschema.Kind) -> None:
    schema = fileschema.generate(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert fields.WRITTEN not in json.dumps(schema)


@pytest.mark.parametrize("kind", fileschema.KINDS)
def test_every_default_is_valid_input(kind: fileschema.Kind) -> None:
    """An editor offers the defaults: `20ms`, never the model's 20000000 ns."""
    schema = fileschema.generate(kind)
    checked = 0
    for model in schema["$defs"].values():
        for key, prop in model.get("properties", {}).items():
            if "default" in prop:
                sub = {"$defs": schema["$defs"], **{k: v for k, v in prop.items() if k != "default"}}
                assert not list(jsonschema.Draft202012Validator(sub).iter_errors(prop["default"])), (key, prop["default"])
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(ROOT)) for p in SHIPPED])
def test_shipped_files_validate(path: Path) -> None:
    data, _ = inputfile.load(path)
    errors = _errors(_kind(data), data)
    assert not errors, [(e.json_path, e.message[:200]) for e in errors]


def test_shipped_files_cover_every_kind() -> None:
    kinds = {_kind(inputfile.load(p)[0]) for p in SHIPPED}
    assert kinds == set(fileschema.KINDS)


MODELINED = [p for p in SHIPPED if MODELINE.search(p.read_text())]


@pytest.mark.parametrize("path", MODELINED, ids=[str(p.relative_to(ROOT)) for p in MODELINED])
def test_modelines_name_the_committed_schema_of_their_kind(path: Path) -> None:
    """`# yaml-language-server: $schema=…` resolves, relative to the file, to the right schema."""
    data, _ = inputfile.load(path)
    found = MODELINE.findall(path.read_text())
    assert (path.parent / found[0]).resolve() == fileschema.committed(_kind(data)).resolve()


def test_an_example_of_each_kind_carries_a_modeline() -> None:
    assert {_kind(inputfile.load(p)[0]) for p in MODELINED} == set(fileschema.KINDS)


BASE = {"topology": "dual-homed", "workload": {"client": "client", "server": "server", "duration": "5s"}}
INLINE = {"hosts": ["c", "s"], "paths": {"a": {"between": ["c", "s"], "delay": "10ms"}}}

# (kind, document, JSON path of the error jsonschema finds most relevant)
INVALID: dict[str, tuple[fileschema.Kind, Any, str]] = {
    "unknown top key": ("experiment", BASE | {"colour": "red"}, "$"),
    "unknown sctp key": ("experiment", BASE | {"sctp": {"rto_mni": "200ms"}}, "$.sctp"),
    "duration without unit": ("experiment", BASE | {"sctp": {"rto_min": "200"}}, "$.sctp.rto_min"),
    "duration as a bare number": ("experiment", BASE | {"sctp": {"rto_min": 200}}, "$.sctp.rto_min"),
    "duration unknown unit": ("experiment", BASE | {"sctp": {"rto_min": "2h"}}, "$.sctp.rto_min"),
    "bool for a number": ("experiment", BASE | {"sctp": {"path_max_retrans": "two"}}, "$.sctp.path_max_retrans"),
    "string for a bool": ("experiment", BASE | {"sctp": {"nodelay": "maybe"}}, "$.sctp.nodelay"),
    "message rate unit": ("experiment", BASE | {"workload": BASE["workload"] | {"rate": "50/min"}}, "$.workload.rate"),
    "size unit": ("experiment", BASE | {"workload": BASE["workload"] | {"size": "2GiB"}}, "$.workload.size"),
    "missing workload": ("experiment", {"topology": "dual-homed"}, "$"),
    "rate without unit": ("experiment", BASE | {"topology": {"use": "dual-homed", "paths": {"primary": {"rate": 1000}}}},
                          "$.topology.paths.primary.rate"),
    "percent over 100": ("experiment", BASE | {"topology": {"use": "dual-homed", "paths": {"primary": {"loss": 150}}}},
                         "$.topology.paths.primary.loss"),
    "unknown shaping key": ("experiment", BASE | {"topology": INLINE | {"paths": {"a": {"between": ["c", "s"], "latency": "1ms"}}}},
                            "$.topology.paths.a"),
    "unknown override key": ("experiment", BASE | {"topology": {"use": "dual-homed", "paths": {"primary": {"forward": {"dealy": "1ms"}}}}},
                             "$.topology.paths.primary.forward"),
    "path name not a name": ("experiment", BASE | {"topology": INLINE | {"paths": {"Path_1": {"between": ["c", "s"]}}}}, "$.topology.paths"),
    "inline topology without hosts": ("experiment", BASE | {"topology": {"paths": INLINE["paths"]}}, "$.topology"),
    "drop pattern with positions and file": ("experiment", BASE | {"topology": {"use": "dual-homed", "paths": {"primary": {
        "drop_packets": {"positions": [5], "file": "p.txt"}}}}}, "$.topology.paths.primary.drop_packets"),
    "drop pattern position": ("experiment", BASE | {"topology": {"use": "dual-homed", "paths": {"primary": {
        "drop_packets": {"positions": ["5..7"]}}}}}, "$.topology.paths.primary.drop_packets.positions[0]"),
    "unknown event key": ("experiment", BASE | {"events": [{"at": "1s", "fail": "primary", "when": "now"}]}, "$.events[0]"),
    "event time without unit": ("experiment", BASE | {"events": [{"at": 1, "fail": "primary"}]}, "$.events[0].at"),
    "unknown campaign key": ("campaign", {"experiment": "x.yaml", "sweeps": {}}, "$"),
    "campaign missing experiment": ("campaign", {"sweep": {"sctp.rto_min": ["100ms"]}}, "$"),
    "sweep values not a list": ("campaign", {"experiment": "x.yaml", "sweep": {"sctp.rto_min": "100ms"}}, "$.sweep['sctp.rto_min']"),
    "sweep range key": ("campaign", {"experiment": "x.yaml", "sweep": {"sctp.rto_min": {"from": 1, "to": 2, "by": 1}}},
                        "$.sweep['sctp.rto_min']"),
    "zip of one key": ("campaign", {"experiment": "x.yaml", "sweep": {"zip": {"sctp.rto_min": [1, 2]}}}, "$.sweep.zip"),
    "budget metric": ("campaign", {"experiment": "x.yaml", "budgets": [{"metric": "latency", "max": "1s"}]}, "$.budgets[0].metric"),
    "budget stat": ("campaign", {"experiment": "x.yaml", "budgets": [{"metric": "mmtt_ms", "stat": "p42", "max": "1s"}]},
                    "$.budgets[0].stat"),
    "order": ("campaign", {"experiment": "x.yaml", "order": "random"}, "$.order"),
    "topology file unknown key": ("topology", INLINE | {"links": {}}, "$"),
    "topology file path key": ("topology", INLINE | {"paths": {"a": {"between": ["c", "s"], "delay": "fast"}}}, "$.paths.a.delay"),
}


@pytest.mark.parametrize("case", INVALID)
def test_invalid_documents_are_refused_where_the_mistake_is(case: str) -> None:
    kind, document, where = INVALID[case]
    error = best_match(_validator(kind).iter_errors(document))
    assert error is not None, f"{case}: accepted"
    assert error.json_path == where, (error.json_path, error.message[:200])


VALID: dict[str, tuple[fileschema.Kind, Any]] = {
    "topology by path": ("experiment", BASE | {"topology": "../topologies/mine.yaml"}),
    "topology used and amended": ("experiment", BASE | {"topology": {"use": "dual-homed", "emulator": True, "paths": {
        "secondary": {"delay": "150ms"}, "third": {"between": ["client", "server"], "rate": "1mbit", "queue_bytes": "bdp"}}}}),
    "inline topology": ("experiment", BASE | {"topology": INLINE}),
    "durations as people write them": ("experiment", BASE | {"sctp": {"rto_min": "1.5s", "rto_max": " 2 S ", "sack_delay": 0},
                                                               "vary": {"event_phase": ".5ms"}}),
    "sizes and rates": ("experiment", BASE | {"sctp": {"rcvbuf": "4MiB", "sndbuf": 65536},
                                              "workload": BASE["workload"] | {"size": "1.5KB", "rate": 2.5}}),
    "drop pattern from a file": ("experiment", BASE | {"topology": {"use": "dual-homed", "emulator": True, "paths": {"primary": {
        "drop_packets": {"file": "p.txt", "every": 100}}}}}),
    "every action": ("experiment", BASE | {"events": [
        {"at": 0, "fail": "primary"}, {"at": "1s", "restore": "primary"}, {"at": "1s", "primary": "198.18.1.2"},
        {"at": "1s", "down": "primary"}, {"at": "1s", "up": "primary"},
        {"at": "1s", "degrade": "primary", "direction": "forward", "set": {"delay": "30ms", "loss": "1%"}},
        {"at": "1s", "flap": "secondary", "period": "1s", "duty": 0.25, "count": 3},
        {"at": "1s", "trace": "primary", "field": "rate", "steps": [["0s", "1mbit"], ["1s", "2mbit"]]},
        {"at": "1s", "pingpong": ["primary", "secondary"], "good": {"delay": "10ms"}, "bad": {"loss": 5}, "dwell": ["1s", "3s"]}]}),
    "campaign with every key": ("campaign", {
        "name": "c", "description": "d", "experiment": "x.yaml", "set": {"workload.duration": "4s"},
        "sweep": {"zip": [{"a.b": [1, 2], "c.d": ["x", "y"]}], "sctp.rto_min": {"from": "100ms", "to": "300ms", "step": "100ms"}},
        "adjust": [{"when": {"sctp.rto_min": "100ms"}, "set": {"sctp.sack_freq": 2}}], "repetitions": 3, "order": "as-written",
        "seed": 4, "budgets": [{"metric": "failover_time_ms", "stat": "p95", "max": "500ms"},
                               {"metric": "messages_delivered", "min": 200}], "disturbed_retries": 0}),
}


@pytest.mark.parametrize("case", VALID)
def test_valid_documents_are_accepted(case: str) -> None:
    kind, document = VALID[case]
    assert not [(e.json_path, e.message[:200]) for e in _errors(kind, document)]


# Written values on both sides of each form; magnitudes are left to the parsers.
UNIT_SAMPLES: dict[str, tuple[Any, list[Any], list[Any]]] = {
    "duration": (units.parse_duration, ["10ms", "1.5s", ".5us", " 2 MIN ", "7ns", "0s", 0, 0.0],
                 ["10", 10, "10 m s", "ms", "-1s", "1e3ms", "10h", True, None, [], "1,5s"]),
    "rate": (units.parse_rate, ["6mbit", "384kbit", "1.5Gbit", "100kbps", " 2 MBPS "],
             ["6", 6000000, "6mb", "fast", "-1mbit", True]),
    "size": (units.parse_size, ["200B", "200", 200, 1.5, "4MiB", "1.5kb", " 64 KiB "],
             ["2GiB", "200 bytes", "-1", -1, "B", True, None]),
    "percent": (units.parse_percent, ["1%", "0.5", 0.5, 100, " 25 % ", ".5%"],
                ["1 percent", "%", "-1%", -1, 101, True, None]),
    "message_rate": (units.parse_message_rate, ["50/s", "50", 50, 0.5, " 2.5 /s "],
                     ["50/min", "50 per second", 0, -5, "/s", True, None]),
}


@pytest.mark.parametrize("kind", UNIT_SAMPLES)
def test_written_forms_match_the_parsers(kind: str) -> None:
    parse, accepted, refused = UNIT_SAMPLES[kind]
    name, form = fileschema.WRITTEN_FORMS[kind]
    validator = jsonschema.Draft202012Validator(form)
    for value in accepted:
        parse(value)
        assert validator.is_valid(value), (name, value)
    for value in refused:
        with pytest.raises(ValueError):
            parse(value)
        assert not validator.is_valid(value), (name, value)


def test_the_loader_agrees_on_a_valid_document(tmp_path: Path) -> None:
    """The VALID samples mean what the loader means: the campaign one loads as a campaign."""
    experiment = tmp_path / "x.yaml"
    experiment.write_text(json.dumps(BASE))
    campaign = tmp_path / "c.yaml"
    campaign.write_text(json.dumps(VALID["campaign with every key"][1] | {"sweep": {"sctp.rto_min": ["100ms", "200ms"]},
                                                                         "adjust": []}))
    assert campaign_spec.load(campaign).campaign.budgets[0].limit == 500.0
    inline = tmp_path / "inline.yaml"
    inline.write_text(json.dumps(VALID["sizes and rates"][1]))
    assert spec.load(inline).workload.size == 1500


@pytest.mark.parametrize("kind", fileschema.KINDS)
def test_cli_prints_the_schema(kind: fileschema.Kind, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema", kind]) == 0
    assert capsys.readouterr().out == fileschema.render(kind)


def test_cli_prints_the_experiment_schema_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "Experiment"
