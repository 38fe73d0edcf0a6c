"""What an event kind is: the interface every module of this package implements.

A kind is a pydantic model (a subclass of `Event`) whose key named after the kind carries
its target (`fail: primary`), beside `at` and the kind's own keys. The class says, as data
and small methods, everything the rest of sctpbench needs to know about the kind:

- `name`, `order`, `description`: the YAML key, its place in lists and messages, its help;
- `check`: validation against the experiment (paths, association, limits), through `fail`,
  which raises the loader's one-line `file:line: events.N.KEY: message`;
- `resolve`: reading what the event refers to (trace files), once, at load time;
- `expand`: the event as primitive timeline steps (model/timeline.py's `Step`);
- for a kind that is itself a primitive step (`primitive = True`), `render`: the step as
  commands, and `setup`: what a path needs before the timeline for such steps;
- `marker`: how the figures mark its steps.

The model layer must not import the plan layer, so rendering returns plain data typed here
(`Rendering`, `CommandData`) and reads the plan through Protocols (`LinkLike`, …) that
plan/data.py's dataclasses satisfy structurally; plan/actions.py wraps the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NoReturn, Protocol

from pydantic import SerializerFunctionWrapHandler, model_serializer

from sctpbench.model.fields import Duration, Model
from sctpbench.model.timeline import Step

# Each flap or dwell becomes a line of the plan and a command in the guest.
MAX_EVENT_STEPS = 100_000

# (key below the event, detail) → raises the loader's message for events.N.KEY.
Fail = Callable[[str, str], NoReturn]
# key below the event → "FILE:LINE: events.N.KEY", the prefix of a message about a file it names.
Where = Callable[[str], str]


@dataclass(frozen=True)
class Context:
    """What an event is checked against, computed once by the loader's cross-checks (crosschecks.py) from the experiment."""

    shaping: Mapping[str, Mapping[str, Mapping[str, Any]]]  # path → direction → values in force at build time
    association: Sequence[str]  # the paths joining some association's two hosts, in file order
    peer_addresses: Sequence[tuple[str, str]]  # (association path, the server's address on it), IPv4 first
    end_ns: int  # when the workload ends
    several: bool = False  # more than one association: messages say which
    first_paths: Sequence[str] = ()  # each association's first path: its INIT and initial primary


@dataclass(frozen=True)
class Marker:
    """How figures draw a timeline step of this kind: a vertical line and a word."""

    colour: str
    style: str = "-"
    label: str = ""  # empty: the kind's name


class InterfaceLike(Protocol):
    @property
    def host(self) -> str: ...
    @property
    def ifname(self) -> str: ...


class CommandLike(Protocol):
    @property
    def tool(self) -> str: ...
    @property
    def args(self) -> Sequence[str]: ...
    @property
    def host(self) -> str | None: ...


class LinkLike(Protocol):
    """A path as the plan built it (plan/data.py's Link)."""

    @property
    def a(self) -> InterfaceLike: ...
    @property
    def b(self) -> InterfaceLike: ...
    @property
    def cut_points(self) -> Sequence[InterfaceLike]: ...
    @property
    def shaped_at(self) -> Mapping[str, InterfaceLike]: ...
    @property
    def routes(self) -> Sequence[CommandLike]: ...


class AssociationLike(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def client_address(self) -> str: ...
    @property
    def server_address(self) -> str: ...


@dataclass(frozen=True)
class CommandData:
    """One command on `host` (None: the emulation machine), as plan/data.py's Command."""

    tool: str
    args: tuple[str, ...]
    host: str | None = None


@dataclass(frozen=True)
class Rendering:
    """What the timeline does for one step: commands (all of one tool), or a line for the
    client agent (`control`), and the devices shown afterwards to confirm it."""

    commands: tuple[CommandLike, ...] = ()
    confirm: tuple[tuple[str, str], ...] = ()  # (host, device)
    control: str | None = None
    detail: str = ""  # where the step comes from (flap, trace, …) and what it changes
    direction: str | None = None


def origin_detail(step: Step) -> str:
    """A step's origin when another kind made it (a fail of a flap), for the plan's lines."""
    return step.origin if step.origin != step.kind else ""


def changes(override: Any) -> dict[str, Any]:
    """The keys a shaping override sets, as plain values."""
    if override is None:
        return {}
    return {k: (v.model_dump() if hasattr(v, "model_dump") else v) for k, v in override if v is not None}


# Run ids hash the experiment's dump (plan/build.py) and campaigns resume and match runs by
# them, so the kinds that existed before this package dump as the one model they were then:
# every one of these keys, the other kinds' as null, and a key added to them since only when
# it is not its default. Frozen: a kind added since dumps only its own keys.
LEGACY_KINDS = ("fail", "restore", "primary", "down", "up", "degrade", "flap", "trace", "pingpong")
LEGACY_KEYS = (*LEGACY_KINDS, "direction", "set", "period", "duty", "count", "until", "field", "steps", "file", "good", "bad", "dwell")
LEGACY_DEFAULTS: dict[str, Any] = {"direction": "both", "duty": 0.5}


class Event(Model):
    """One change on the timeline: `at` and the kind's key naming its target."""

    name: ClassVar[str] = ""  # the YAML key naming the kind, and the model's field holding the target
    order: ClassVar[int] = 1000  # place in lists, messages and the schema (then by name)
    primitive: ClassVar[bool] = False  # a timeline step of its own: `render` makes it commands
    # Told to the client agents of the associations it `concerns` rather than done on a path:
    # rendered once per such association.
    agent_control: ClassVar[bool] = False
    # A primitive step that changes the association's addresses with ASCONF (RFC 5061): the
    # plan turns on ASCONF on the hosts of the associations it concerns (plan/dar.py).
    asconf: ClassVar[bool] = False
    marker: ClassVar[Marker] = Marker("#7b3294")

    at: Duration

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        own: dict[str, Any] = handler(self)
        if self.name not in LEGACY_KINDS:
            return own
        legacy = {"at": own["at"], **{k: own.get(k, LEGACY_DEFAULTS.get(k)) for k in LEGACY_KEYS}}
        # A key added to a legacy kind since: in the dump (and the run id) only when set.
        newer = {k: own[k] for k, f in type(self).model_fields.items()
                 if k not in legacy and k in own and getattr(self, k) != f.default}
        return legacy | newer

    @property
    def action(self) -> str:
        return self.name

    @property
    def target(self) -> str:
        value = getattr(self, self.name)
        return "+".join(value) if isinstance(value, tuple) else str(value)

    def paths(self) -> list[str]:
        """The paths the event acts on, each of which must exist in the topology."""
        value = getattr(self, self.name)
        return list(value) if isinstance(value, tuple) else [str(value)]

    def check(self, context: Context, fail: Fail) -> None:
        """Refuse what the models alone cannot: the event against this experiment."""

    def resolve(self, base_dir: Path, where: Where) -> Event:
        """The event with what it refers to read in (files relative to base_dir)."""
        return self

    def expand(self, seed: int, end_ns: int) -> list[Step]:
        """Primitive steps; a primitive kind is one step of its own name."""
        if not self.primitive:
            raise NotImplementedError(f"{type(self).__name__} is not a primitive step and does not expand")
        return [Step(self.at, self.name, self.target, origin=self.name)]

    @classmethod
    def render(cls, step: Step, links: Mapping[str, LinkLike], association: Sequence[AssociationLike]) -> Rendering:
        """A primitive step of this kind as what the plan does."""
        raise NotImplementedError(f"{cls.__name__} defines no timeline step")

    @classmethod
    def concerns(cls, step: Step, association: Sequence[AssociationLike]) -> bool:
        """Whether an agent-control step is for the association with these paths."""
        return False

    @classmethod
    def setup(cls, link: LinkLike) -> tuple[CommandData, ...]:
        """What a path needs before the timeline when steps of this kind act on it."""
        return ()
