"""The event kinds, found by scanning this package: a new kind is one new module.

Every public module of the package (not `base`, not `registry`) is imported, and each
`Event` subclass it defines with a `name` is a kind. The scan runs once and is cached
(`kinds.cache_clear()` rescans, for a test that adds a module to the package's path).

The experiment's `events:` items are validated through `EventItem`, which picks the kind
by its key at validation time, so the experiment's model (experiment.py) never lists the kinds; the JSON
schema of an item is generated from the kinds too.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from sctpbench.model import events as package
from sctpbench.model.events.base import Event, Marker

NOT_KINDS = {"base", "registry"}


@functools.cache
def kinds() -> Mapping[str, type[Event]]:
    """name → kind, in the kinds' order (then by name); read-only, being the cache itself."""
    found: dict[str, type[Event]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in NOT_KINDS or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for kind in _kinds_in(module):
            if kind.name in found:
                raise TypeError(f"event kind {kind.name!r} is defined twice: {found[kind.name].__module__} and {module.__name__}")
            found[kind.name] = kind
    return MappingProxyType(dict(sorted(found.items(), key=lambda item: (item[1].order, item[0]))))


def _kinds_in(module: Any) -> list[type[Event]]:
    out = []
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, Event) and value.__module__ == module.__name__ and value.name:
            if value.name not in value.model_fields:
                raise TypeError(f"event kind {value.name!r} ({module.__name__}) has no key {value.name!r} for its target")
            out.append(value)
    return out


def names() -> list[str]:
    return list(kinds())


def steps() -> Mapping[str, type[Event]]:
    """The kinds that are primitive timeline steps: what a plan's timeline holds."""
    return {name: kind for name, kind in kinds().items() if kind.primitive}


def step_kind(name: str) -> type[Event]:
    found = steps().get(name)
    if found is None:
        raise ValueError(f"unknown timeline step {name!r}; known: {', '.join(steps())}")
    return found


def marker(name: str) -> Marker | None:
    kind = kinds().get(name)
    return None if kind is None else kind.marker


def kind_of(value: Any) -> type[Event] | None:
    """The kind an event as written names with its key, if exactly one."""
    if not isinstance(value, dict):
        return None
    given = [kind for name, kind in kinds().items() if name in value]
    return given[0] if len(given) == 1 else None


def validate(value: Any) -> Event:
    """An event as written → its kind's model; pydantic keeps the errors' locations."""
    if isinstance(value, Event):
        return value
    if not isinstance(value, dict):
        return Event.model_validate(value)  # refused with pydantic's own words: not a mapping
    kind = kind_of(value)
    if kind is None:
        raise ValueError(f"an event needs exactly one of: {', '.join(kinds())}")
    return kind.model_validate(value)


class EventItem:
    """Annotation of the experiment's `events:` items: validation and JSON schema by the registry."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(validate)

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        # Exactly one kind's key (oneOf), and then that kind's keys (if/then): a validator
        # blames the key that is wrong inside the kind meant, not "valid under none of nine".
        return {
            "type": "object",
            "description": "One change on the timeline: `at` and exactly one kind's key naming its target, with that kind's keys: "
                           + "; ".join(f"{name}: {', '.join(k for k in kind.model_fields if k not in (name, 'at')) or 'only at'}"
                                       for name, kind in kinds().items()) + ".",
            "oneOf": [{"required": [name]} for name in kinds()],
            "allOf": [{"if": {"required": [name]}, "then": handler(kind.__pydantic_core_schema__)} for name, kind in kinds().items()],
        }
