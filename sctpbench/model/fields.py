"""The value types of the experiment file's keys, shared by the spec and the event kinds.

Kept apart from the models (experiment.py) so an event kind (model/events/) can use them
without importing the experiment's models, which import the kinds.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, create_model

from sctpbench.model import sctp_params, units

# A quantity's JSON Schema is its written form (`10ms`), not the integer it becomes, or an
# editor would refuse every valid file; sctpbench/fileschema.py puts the syntax for KIND
# where `{WRITTEN: KIND}` stands. Bounds stay the loader's (they depend on the unit).
WRITTEN = "x-sctpbench-written"


def _written(kind: str) -> WithJsonSchema:
    return WithJsonSchema({WRITTEN: kind})


Duration = Annotated[int, BeforeValidator(units.parse_duration), _written("duration")]
Delay = Annotated[int, BeforeValidator(units.parse_delay), _written("duration")]
Jitter = Annotated[int, BeforeValidator(units.parse_jitter), _written("duration")]
U32_MAX = 2**32 - 1  # tc's queue limits
# A name becomes part of folder names (NAME-TIMESTAMP/…): well below the file system's 255 bytes.
MAX_NAME_CHARS = 100
Rate = Annotated[int, BeforeValidator(units.parse_rate), _written("rate")]
Size = Annotated[int, BeforeValidator(units.parse_size), _written("size")]
Percent = Annotated[float, BeforeValidator(units.parse_percent), _written("percent")]
MessageRate = Annotated[float, BeforeValidator(units.parse_message_rate), _written("message_rate")]
NAME_PATTERN = r"^[a-z][a-z0-9]{0,9}$"
Name = Annotated[str, Field(pattern=NAME_PATTERN)]
NAME_HELP = "lower-case letters and digits, starting with a letter, at most 10 characters"


class Model(BaseModel):
    """A mapping of the file: unknown keys refused, values frozen once read."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class GilbertElliott(Model):
    """Two-state bursty loss (netem gemodel), in the literature's terms: p good→bad and
    r bad→good transition probabilities, h the delivery probability in the bad state and
    k in the good state. The defaults (h 0 %, k 100 %) are Gilbert's simple model."""

    p: Percent
    r: Percent
    h: Percent = 0.0
    k: Percent = 100.0


def _shaping_fields(optional: bool) -> dict[str, Any]:
    """The shaping keys, once for the path (with defaults) and once for overrides (all None)."""
    fields: dict[str, tuple[Any, Any]] = {
        "rate": (Rate | None, None),
        "delay": (Delay, 0),
        "jitter": (Jitter, 0),
        "jitter_correlation": (Percent, 0.0),
        "jitter_distribution": (Literal["normal", "pareto", "paretonormal"] | None, None),
        "loss": (Percent, 0.0),
        "loss_correlation": (Percent, 0.0),
        "gilbert_elliott": (GilbertElliott | None, None),
        "reorder": (Percent, 0.0),
        "reorder_correlation": (Percent, 0.0),
        "duplicate": (Percent, 0.0),
        "corrupt": (Percent, 0.0),
        "queue": (Annotated[int, Field(ge=1, le=U32_MAX)] | None, None),
        "queue_bytes": (QueueBytes | None, None),
    }
    if optional:
        return {k: (tp | None, None) for k, (tp, _) in fields.items()}
    return fields


QueueBytes = Annotated[int | Literal["bdp"], BeforeValidator(lambda v: v if v == "bdp" else units.parse_size(v)),
                      WithJsonSchema({"anyOf": [{"const": "bdp"}, {WRITTEN: "size"}]})]

MAX_CWND_MTUS = sctp_params.UNRESTRICTED_MTUS  # net.sctp.initial_cwnd_mtus's range
CWND_HELP = f"a number of MTUs from 1 to {MAX_CWND_MTUS}, or unrestricted"


def _cwnd_mtus(value: object) -> object:
    """`initial_cwnd`: whole MTUs or the word unrestricted, with one message for anything else."""
    if value == sctp_params.UNRESTRICTED:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_CWND_MTUS:
        return value
    raise ValueError(f"{units.shown(value)} is not an initial window; allowed: {CWND_HELP}")


CwndMtus = Annotated[int | Literal["unrestricted"], BeforeValidator(_cwnd_mtus),
                     WithJsonSchema({"anyOf": [{"const": "unrestricted"},
                                               {"type": "integer", "minimum": 1, "maximum": MAX_CWND_MTUS}]})]

Shaping = create_model("Shaping", __base__=Model, __doc__="What one direction of a path does to packets.", **_shaping_fields(False))
DirectionOverride = create_model("DirectionOverride", __base__=Model, __doc__="Shaping values that replace the path's; unset keys keep them.",
                                 **_shaping_fields(True))
