"""How the loader words a refused experiment: `PLACE: KEY: what is wrong; allowed: …`.

PLACE is the file and line a key came from, or the `--set` that put it there (Source);
KEY is the dotted key; the rest says what is wrong and what is allowed, in the file's
units (a bound of a duration as a duration). The campaign loader words its messages with
the same pieces, so the two files read alike.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel

from sctpbench.model import traffic as flows
from sctpbench.model import units
from sctpbench.model.events import registry
from sctpbench.model.events.base import Event
from sctpbench.model.experiment import Experiment
from sctpbench.model.fields import MAX_NAME_CHARS, NAME_HELP, NAME_PATTERN


@dataclass(frozen=True)
class Source:
    """Where each key came from, so a message can name the line."""

    file: str
    lines: dict[tuple[str, ...], int]
    overrides: dict[tuple[str, ...], str]

    def where(self, loc: tuple[str, ...]) -> str:
        # An override wins over the file's line even when the file names a deeper key:
        # `--set sctp={rto_min: soon}` is to blame, not the file's own sctp.rto_min.
        for n in range(len(loc), -1, -1):
            if loc[:n] in self.overrides:
                return set_label(self.overrides[loc[:n]])
        for n in range(len(loc), -1, -1):
            if loc[:n] in self.lines:
                return f"{self.file}:{self.lines[loc[:n]]}"
        return self.file


def set_label(text: str) -> str:
    """`--set KEY=VALUE` as messages show it: a value pasted by mistake is cut."""
    return f"--set {text}" if len(text) <= 100 else f"--set {text[:100]}… ({len(text)} characters)"


def short(value: object, limit: int = 60) -> str:
    """A value for a message: long inputs cut, so the message stays one readable line."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _unwrap(tp: Any) -> Any:
    """Strip Annotated and Optional so a loc can be followed through the models."""
    while True:
        origin = typing.get_origin(tp)
        if origin is Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else tp
            if len(args) != 1:
                return tp
        else:
            return tp


def _model_at(loc: tuple[Any, ...], data: Any = None) -> type[BaseModel] | None:
    """The model at loc; `data` (the input) tells which kind an event is."""
    tp: Any = Experiment
    node = data
    for part in loc:
        tp = _unwrap(tp)
        if tp is Event:
            tp = registry.kind_of(node) or tp
        elif tp is flows.Flow:
            tp = flows.kind_of(node) or tp
        node = _child(node, part)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            field = tp.model_fields.get(str(part))
            if field is None:
                return None
            tp = field.annotation
        elif typing.get_origin(tp) in (list, tuple):
            tp = typing.get_args(tp)[0]
        elif typing.get_origin(tp) is dict:
            tp = typing.get_args(tp)[1]
        else:
            return None
    tp = _unwrap(tp)
    if tp is Event:
        tp = registry.kind_of(node) or tp
    elif tp is flows.Flow:
        tp = flows.kind_of(node) or tp
    return tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None


def _child(node: Any, part: Any) -> Any:
    if isinstance(node, dict):
        return node.get(part, node.get(str(part)))
    if isinstance(node, list) and str(part).isdigit() and int(part) < len(node):
        return node[int(part)]
    return None


def describe(error: dict[str, Any], source: Source, data: Any = None) -> str:
    """A pydantic error of the experiment as one line: where, the dotted key, what is wrong."""
    loc = tuple(str(p) for p in error["loc"] if not str(p).startswith("function-"))
    key = shown_key(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        model = _model_at(tuple(error["loc"][:-1]), data)
        allowed = ", ".join(model.model_fields) if model else "see the documentation"
        detail = f"unknown key; allowed: {allowed}"
    elif kind == "missing":
        detail = "required key is missing"
        model = _model_at(tuple(error["loc"]), data)
        if model is not None:
            detail += f" (a mapping with keys {', '.join(model.model_fields)})"
    else:
        detail = value_detail(error, data)
    return f"{source.where(loc)}: {key}: {detail}"


def shown_key(loc: tuple[str, ...]) -> str:
    """The dotted key for a message; a key pasted by mistake (thousands of characters) is cut."""
    key = ".".join(loc) or "(top level)"
    return key if len(key) <= 200 else f"{key[:200]}… ({len(key)} characters)"


FILE_NAME_HELP = f"letters, digits, _ . - (starting with a letter or digit), at most {MAX_NAME_CHARS} characters"
# What each pattern of the models means, in words; a pattern's message must never borrow
# another's rule (a bad URL is not described with the rule for names).
PATTERN_HELP = {
    NAME_PATTERN: NAME_HELP,
    r"^[A-Za-z0-9][A-Za-z0-9_.-]*$": FILE_NAME_HELP,
}
# Fields whose pattern is owned elsewhere (the Influx model); worded by where they are.
FIELD_HELP: dict[tuple[str, ...], str] = {
    ("influx", "url"): "an http:// or https:// base URL: scheme, host and optional port, no path, no credentials (e.g. http://127.0.0.1:8086)",
}


def value_detail(error: dict[str, Any], data: Any = None) -> str:
    """What is wrong with a value (rather than a key), worded alike for every file."""
    kind = error["type"]
    value = units.shown(error.get("input"))
    loc = tuple(str(p) for p in error["loc"])
    if kind == "value_error":
        # A validator may quote the input whole; a pasted megabyte must not make the line.
        return str(error["ctx"]["error"]).replace(repr(error.get("input")), value)
    if kind == "string_pattern_mismatch":
        pattern = error["ctx"]["pattern"]
        help_text = FIELD_HELP.get(loc[-2:]) or PATTERN_HELP.get(pattern)
        if help_text is None:
            return f"{value} does not have the expected form; allowed: text matching {pattern}"
        what = "a valid URL" if loc[-2:] in FIELD_HELP else "a valid name"
        return f"{value} is not {what}; allowed: {help_text}"
    if kind == "string_too_long":
        return f"{value} is too long; allowed: at most {error['ctx']['max_length']} characters"
    if kind == "literal_error":
        return f"{value} is not allowed; allowed: {error['ctx']['expected']}"
    if kind in ("less_than_equal", "greater_than_equal", "less_than", "greater_than"):
        bound = next(iter(error["ctx"].values()))
        words = {"less_than_equal": "at most", "greater_than_equal": "at least", "less_than": "less than", "greater_than": "more than"}
        return f"{value} is out of range; allowed: {words[kind]} {_bound(loc, bound, data)}"
    return f"{error['msg']} (got {value})"


def _bound(loc: tuple[str, ...], bound: object, data: Any = None) -> str:
    """A bound as the file writes it: durations in units, not nanoseconds."""
    model = _model_at(tuple(loc[:-1]), data)
    field = model.model_fields.get(loc[-1]) if model is not None else None
    if field is not None and isinstance(bound, int) and "parse_duration" in repr((field.annotation, field.metadata)):
        return units.format_duration(bound)
    return str(bound)

