"""What an association sends, beyond fixed-size messages at a rate: a video frame trace
(`type: video`) or a signaling mix of streams with sizes and gaps from distributions
(`type: mix`). Both are compiled into a message schedule by plan/schedule.py.

A distribution is written with the quantity's own units:

    size: 250B                                   # constant
    gap: {exponential: 20ms}                     # mean
    size: {uniform: [100B, 1KiB]}                # low, high
    size: {pareto: {shape: 1.5, mean: 300B}}     # heavy-tailed, shape > 1
    size: {empirical: {values: [100B, 1200B], weights: [3, 1]}}
    size: {empirical: {file: sizes.txt}}         # one value a line, optional weight after it
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, model_validator

from sctpbench.model import distributions, inputfile, units, videotrace
from sctpbench.model.errors import SpecError
from sctpbench.model.fields import Duration, Model, Size

VIDEO_DIR = Path(__file__).resolve().parent.parent / "workloads" / "video"
KINDS = ("constant", "uniform", "exponential", "pareto", "empirical")
MAX_STREAM = 65534  # the agent's streams are 0-65535, the association negotiates at most 65535
MAX_MESSAGE = 1_048_576  # the agent's largest message
MAX_EMPIRICAL = 10_000
KIND_HELP = "a value, or one of {constant: V}, {uniform: [LOW, HIGH]}, {exponential: MEAN}, " \
            "{pareto: {shape: S, mean: M}}, {empirical: {values: [...], weights: [...]}} or {empirical: {file: F}}"


class Dist(Model):
    """A distribution, its parameters in base units (bytes or ns)."""

    kind: Literal["constant", "uniform", "exponential", "pareto", "empirical"]
    value: float | None = None
    low: float | None = None
    high: float | None = None
    mean: float | None = None
    shape: float | None = None
    values: list[float] | None = None
    weights: list[float] | None = None

    def distribution(self) -> distributions.Distribution:
        if self.kind == "constant":
            return distributions.Constant(float(self.value or 0))
        if self.kind == "uniform":
            return distributions.Uniform(float(self.low or 0), float(self.high or 0))
        if self.kind == "exponential":
            return distributions.Exponential(float(self.mean or 0))
        if self.kind == "pareto":
            return distributions.Pareto(float(self.shape or 0), float(self.mean or 0))
        return distributions.Empirical(tuple(self.values or ()), tuple(self.weights or ()))

    @property
    def mean_value(self) -> float:
        d = self.distribution()
        return float(d.mean)


def _parser(parse: Callable[[object], int]) -> Callable[[Any], Any]:
    """The written form → Dist's fields, each quantity parsed with the key's unit."""
    def dist(value: Any) -> Any:
        if isinstance(value, Dist):
            return value
        if not isinstance(value, dict):
            return {"kind": "constant", "value": parse(value)}
        if len(value) != 1 or next(iter(value)) not in KINDS:
            raise ValueError(f"{units.shown(value)} is not a distribution; allowed: {KIND_HELP}")
        kind, arg = next(iter(value.items()))
        return {"kind": kind} | _arguments(kind, arg, parse)
    return dist


def _arguments(kind: str, arg: Any, parse: Callable[[object], int]) -> dict[str, Any]:
    if kind == "constant":
        return {"value": parse(arg)}
    if kind == "exponential":
        return {"mean": _positive(parse(arg), "exponential mean")}
    if kind == "uniform":
        if not isinstance(arg, list) or len(arg) != 2:
            raise ValueError("uniform: [LOW, HIGH] (two values)")
        low, high = parse(arg[0]), parse(arg[1])
        if high < low:
            raise ValueError("uniform: HIGH must not be below LOW")
        return {"low": low, "high": high}
    if kind == "pareto":
        if not isinstance(arg, dict) or set(arg) != {"shape", "mean"}:
            raise ValueError("pareto: {shape: S, mean: M} (shape above 1 for a finite mean)")
        shape = arg["shape"]
        if isinstance(shape, bool) or not isinstance(shape, (int, float)) or not 1 < shape <= 100:
            raise ValueError(f"pareto shape {units.shown(shape)}; allowed: a number above 1, at most 100")
        return {"shape": float(shape), "mean": _positive(parse(arg["mean"]), "pareto mean")}
    if not isinstance(arg, dict) or not arg or not set(arg) <= {"values", "weights"} or "values" not in arg:
        raise ValueError("empirical: {values: [...], weights: [...]} (weights optional), or {file: F}")
    values = arg["values"]
    if not isinstance(values, list) or not 1 <= len(values) <= MAX_EMPIRICAL:
        raise ValueError(f"empirical values: a list of 1 to {MAX_EMPIRICAL} values")
    weights = arg.get("weights")
    if weights is not None:
        if not isinstance(weights, list) or len(weights) != len(values):
            raise ValueError("empirical weights: one number per value")
        if any(isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0 for w in weights) or not sum(weights):
            raise ValueError("empirical weights: numbers of at least 0, not all 0")
    return {"values": [parse(v) for v in values], "weights": [float(w) for w in weights] if weights else None}


def _positive(value: int, what: str) -> int:
    if value <= 0:
        raise ValueError(f"{what} must be above 0")
    return value


DIST_SCHEMA = {"anyOf": [{"type": ["string", "number"]}, {"type": "object", "minProperties": 1, "maxProperties": 1,
                                                         "propertyNames": {"enum": list(KINDS)}}]}
SizeDist = Annotated[Dist, BeforeValidator(_parser(units.parse_size)), WithJsonSchema(DIST_SCHEMA)]
GapDist = Annotated[Dist, BeforeValidator(_parser(units.parse_duration)), WithJsonSchema(DIST_SCHEMA)]
Lifetime = Annotated[Duration, Field(ge=1_000_000, le=604_800_000_000_000)]


class MixStream(Model):
    """One stream of a signaling mix: its message sizes, the gaps between them, optional on/off bursts."""

    size: SizeDist = Field(description="message size in bytes (16 B to 1 MiB; draws are clamped to it)")
    gap: GapDist = Field(description="time between two messages of the stream (while on)")
    stream: Annotated[int, Field(ge=0, le=MAX_STREAM)] = 0
    ordered: bool = True
    lifetime: Lifetime | None = Field(default=None, description="PR-SCTP: abandoned if not delivered this long after sending")
    # On/off traffic; not `on:`/`off:`, which YAML 1.1 reads as true and false.
    burst: GapDist | None = Field(default=None, description="on/off: how long a burst lasts (messages only during bursts)")
    pause: GapDist | None = Field(default=None, description="on/off: the silence between two bursts")

    @model_validator(mode="after")
    def _on_off(self) -> MixStream:
        if (self.burst is None) != (self.pause is None):
            raise ValueError("burst: and pause: go together (on for a burst, off for a pause)")
        for key in ("gap", "burst", "pause"):
            dist = getattr(self, key)
            if dist is not None and dist.mean_value <= 0:
                raise ValueError(f"{key}: the mean must be above 0")
        return self


class Video(Model):
    """An H.264 frame trace replayed: each frame at its time, as one message or several."""

    trace: str = Field(description="a shipped trace (" + ", ".join(sorted(p.stem for p in VIDEO_DIR.glob("*.trace")))
                       + ") or a frame-trace file relative to the experiment")
    columns: list[Literal["number", "time", "type", "size"]] | None = Field(
        default=None, description="the trace's column order, if not number, time, type, size")
    fragment: Annotated[Size, Field(ge=16, le=MAX_MESSAGE)] | None = Field(
        default=None, description="cut each frame into messages of at most this size; unset: one message a frame")
    deadline: Annotated[Duration, Field(ge=1_000_000)] = Field(
        default=150_000_000, description="playout deadline: a frame whose last piece arrives later than this after its send time is late")
    lifetime: Lifetime | None = Field(default=None, description="PR-SCTP: each message abandoned if not delivered in time")
    stream: Annotated[int, Field(ge=0, le=MAX_STREAM)] = 0
    loop: bool = Field(default=True, description="start the trace again when it ends before the workload's duration")
    frames: list[tuple[int, int, str, int]] | None = Field(
        default=None, description="read from the trace by the loader (number, time ns, type, bytes); not written by hand")

    def frame_list(self) -> list[videotrace.Frame]:
        return [videotrace.Frame(*f) for f in self.frames or []]


def resolve_video(video: Video, base_dir: Path, where: str) -> Video:
    """The trace read in, so the run id follows its content and a run needs no file."""
    path = next((p for p in (base_dir / video.trace, VIDEO_DIR / video.trace, VIDEO_DIR / f"{video.trace}.trace")
                 if inputfile.is_file(p)), None)
    if path is None:
        shipped = ", ".join(sorted(p.stem for p in VIDEO_DIR.glob("*.trace")))
        raise SpecError(f"{where}: no trace file {video.trace!r}; allowed: a file relative to the experiment or one of {shipped}")
    text = inputfile.read_text(path, where)
    try:
        frames = videotrace.parse(text, str(path), *([video.columns] if video.columns else []))
    except ValueError as e:
        raise SpecError(str(e)) from None
    return video.model_copy(update={"frames": [(f.number, f.time_ns, f.type, f.size) for f in frames]})


def read_empirical(path: Path, where: str, parse: Callable[[object], int]) -> dict[str, Any]:
    """An empirical distribution's file: `VALUE [WEIGHT]` a line, `#` starts a comment."""
    values: list[Any] = []
    weights: list[float] = []
    for number, raw in enumerate(inputfile.read_text(path, where).splitlines(), 1):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        try:
            if len(fields) > 2:
                raise ValueError("expected VALUE [WEIGHT]")
            parse(fields[0])
            weight = float(fields[1]) if len(fields) == 2 else 1.0
            if not weight >= 0:
                raise ValueError("a weight is a number of at least 0")
        except ValueError as e:
            raise SpecError(f"{path}:{number}: {e}") from None
        values.append(fields[0])
        weights.append(weight)
    if not values or len(values) > MAX_EMPIRICAL:
        raise SpecError(f"{where}: {path} holds {len(values)} values; allowed: 1 to {MAX_EMPIRICAL}")
    return {"values": values, "weights": weights}
