"""JSON Schemas of the files people write: experiments, campaigns, topology and claims files.

Generated from the pydantic models, but for the files as written rather than the values
they become: a duration is `10ms` (the model keeps 10000000 ns), a topology may be a file
name or `{use: NAME, …}` amending one, a drop pattern may come from a file. Committed as
sctpbench/schema/KIND.schema.json (a test keeps them equal to these) and printed by
`sctpbench schema KIND`, so an editor validates a YAML file that starts with
`# yaml-language-server: $schema=PATH/TO/experiment.schema.json`.

The schemas check keys, types and the written form of every value. Bounds that depend on
the unit (`workload.duration` from 1ms, a delay up to 274s), names that refer to each other
(hosts, paths) and keys that exclude each other remain the loader's: a file the schema accepts can still be refused, with one line saying why.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from sctpbench.analysis import claims
from sctpbench.campaign import spec as campaign_spec
from sctpbench.model import experiment, units
from sctpbench.model.fields import NAME_PATTERN, WRITTEN

Kind = Literal["experiment", "campaign", "topology", "claims"]
KINDS: tuple[Kind, ...] = ("experiment", "campaign", "topology", "claims")
SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
MODELS: dict[Kind, type[BaseModel]] = {"experiment": experiment.Experiment, "campaign": campaign_spec.Campaign, "topology": experiment.Topology,
                                        "claims": claims.ClaimsFile}

# What the models mark with {WRITTEN: KIND}, as the parsers in units.py accept it.
WRITTEN_FORMS: dict[str, tuple[str, dict[str, Any]]] = {
    "duration": ("Duration", {
        "description": f"{units.DURATION_HELP}; 0 alone needs no unit",
        "anyOf": [{"type": "string", "pattern": units.DURATION_PATTERN}, {"const": 0}]}),
    "rate": ("Rate", {
        "description": units.RATE_HELP,
        "type": "string", "pattern": units.RATE_PATTERN}),
    "size": ("Size", {
        "description": units.SIZE_HELP,
        "anyOf": [{"type": "string", "pattern": units.SIZE_PATTERN}, {"type": "number", "minimum": 0}]}),
    "percent": ("Percent", {
        "description": units.PERCENT_HELP,
        "anyOf": [{"type": "string", "pattern": units.PERCENT_PATTERN}, {"type": "number", "minimum": 0, "maximum": 100}]}),
    "message_rate": ("MessageRate", {
        "description": units.MESSAGE_RATE_HELP,
        "anyOf": [{"type": "string", "pattern": units.MESSAGE_RATE_PATTERN},
                  {"type": "number", "minimum": units.MIN_MESSAGE_RATE, "maximum": units.MAX_MESSAGE_RATE}]}),
}
DURATION_REF = "#/$defs/Duration"


class _Generator(GenerateJsonSchema):
    # "Rto Initial" above every key says nothing the key does not; descriptions stay.
    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def generate(kind: Kind) -> dict[str, Any]:
    """The schema of one kind of file, as a JSON document."""
    schema = MODELS[kind].model_json_schema(mode="validation", schema_generator=_Generator)
    defs = schema.setdefault("$defs", {})
    if kind == "experiment":
        _topology_forms(schema)
        _event_kinds(schema)
    if kind == "campaign":
        _campaign_forms(schema)
    if "DropPattern" in defs:
        _drop_pattern_file(defs["DropPattern"])
    used: set[str] = set()
    schema = _written(schema, used)
    schema["$defs"] |= dict(WRITTEN_FORMS[quantity] for quantity in used)
    schema["$defs"] = dict(sorted(schema["$defs"].items()))
    return {"$schema": DRAFT, **schema}


def render(kind: Kind) -> str:
    """The schema as committed: stable, readable, one trailing newline."""
    return json.dumps(generate(kind), indent=2, ensure_ascii=False) + "\n"


def committed(kind: Kind) -> Path:
    return SCHEMA_DIR / f"{kind}.schema.json"


def _written(node: Any, used: set[str]) -> Any:
    """Markers become references to the written forms; defaults become valid input."""
    if isinstance(node, list):
        return [_written(item, used) for item in node]
    if not isinstance(node, dict):
        return node
    if WRITTEN in node:
        # The field's own keys (description, default) stay beside the reference.
        used.add(node[WRITTEN])
        node = {"$ref": f"#/$defs/{WRITTEN_FORMS[node[WRITTEN]][0]}"} | {k: v for k, v in node.items() if k != WRITTEN}
    out = {key: _written(value, used) for key, value in node.items()}
    if "default" in out:
        _written_default(out)
    if "patternProperties" in out and "additionalProperties" not in out:
        # A dict keyed by names: a key that is not a name is an error, not a free-form key.
        out["additionalProperties"] = False
    return out


def _written_default(node: dict[str, Any]) -> None:
    default = node["default"]
    if isinstance(default, dict):
        # A model's default as a dump (durations in ns) would be invalid input; its keys
        # carry their own defaults.
        del node["default"]
    elif _is_duration(node) and isinstance(default, int) and default != 0:
        node["default"] = units.format_duration(default)


def _is_duration(node: dict[str, Any]) -> bool:
    return node.get("$ref") == DURATION_REF or any(a.get("$ref") == DURATION_REF for a in node.get("anyOf", []))


def _topology_forms(schema: dict[str, Any]) -> None:
    """`topology:` as the loader reads it: a file, inline, or a file amended (`use:`)."""
    defs = schema["$defs"]
    amendment = copy.deepcopy(defs["PathSpec"])
    amendment.pop("required", None)
    amendment["title"] = "PathAmendment"
    amendment["description"] = ("a path of the used topology file with some keys changed, "
                                "or a new path (then between: is needed)")
    defs["PathAmendment"] = amendment
    use = copy.deepcopy(defs["Topology"])
    use["title"] = "TopologyUse"
    use["description"] = "a topology file amended: its hosts, paths and emulator keys replaced or merged"
    use["properties"] = {"use": {"type": "string", "minLength": 1, "description": _TOPOLOGY_FILE_HELP}, **use["properties"]}
    use["properties"]["paths"]["patternProperties"] = {NAME_PATTERN: {"$ref": "#/$defs/PathAmendment"}}
    use["properties"]["paths"].pop("minProperties", None)
    use["required"] = ["use"]
    defs["TopologyUse"] = use
    # if/then/else rather than anyOf: a validator then blames the wrong key inside the form
    # in use, instead of "not valid under any of the given schemas" for the whole topology.
    schema["properties"]["topology"] = {
        "description": "the hosts and the paths between them",
        "if": {"type": "string"},
        "then": {"minLength": 1, "description": _TOPOLOGY_FILE_HELP},
        "else": {"if": {"required": ["use"]}, "then": {"$ref": "#/$defs/TopologyUse"}, "else": {"$ref": "#/$defs/Topology"}}}


_TOPOLOGY_FILE_HELP = "a file in sctpbench/topologies/ by name (e.g. dual-homed), or a path relative to this file"


def _drop_pattern_file(pattern: dict[str, Any]) -> None:
    """`drop_packets: {file: PATH}` instead of `positions:` (the loader reads the file)."""
    pattern["properties"]["file"] = {
        "type": "string", "minLength": 1,
        "description": "a pattern file relative to this file: a packet number or range a line, # comments"}
    pattern.pop("required", None)
    pattern["oneOf"] = [{"required": ["positions"]}, {"required": ["file"]}]


def _event_kinds(schema: dict[str, Any]) -> None:
    """Each event kind's schema (model/events/registry.py) as a definition of its own."""
    for branch in schema["properties"]["events"]["items"]["allOf"]:
        kind = branch["then"]
        if "$ref" not in kind:
            schema["$defs"][kind["title"]] = kind
            branch["then"] = {"$ref": f"#/$defs/{kind['title']}"}


def _campaign_forms(schema: dict[str, Any]) -> None:
    """What the free-form mappings of a campaign hold: dotted keys and their values."""
    values = {"anyOf": [{"type": "array", "minItems": 1, "description": "values as --set takes them"},
                        {"$ref": "#/$defs/Range"}]}
    schema["$defs"]["Range"] = {
        "type": "object", "additionalProperties": False, "required": ["from", "to", "step"],
        "description": "from, to (included) and step, with the same unit (e.g. 100ms)",
        "properties": {k: {"type": ["string", "number"]} for k in ("from", "to", "step")}}
    zipped = {"type": "object", "minProperties": 2, "additionalProperties": values,
              "description": "keys that move together: lists of equal length"}
    props = schema["properties"]
    props["sweep"] |= {
        "description": "the cross product of the axes, in this order: a dotted key (as --set takes it) "
                       "to a list of values or a range; zip: keys that move together",
        "properties": {campaign_spec.ZIP: {"anyOf": [zipped, {"type": "array", "minItems": 1, "items": zipped}]}},
        "additionalProperties": values}
    props["set"]["description"] = "fixed overrides for every run: dotted keys as --set takes them"
    props["experiment"]["description"] = "the base experiment file, relative to this file"
