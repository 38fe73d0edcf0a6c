"""The campaign file: which experiment, what to sweep, how often, in what order, and budgets.

```yaml
name: failover-tuning              # the campaign folder's name; default: the file name
experiment: ../failover.yaml       # the base experiment, relative to this file
set: {workload.duration: 6s}       # fixed overrides for every run (not part of a label)
sweep:                             # cross product of the axes, in this order
  sctp.rto_min: [100ms, 200ms]     # a list of values, as written
  sctp.path_max_retrans: {from: 1, to: 3, step: 1}    # a range (units allowed: 100ms)
  zip: {sctp.rto_initial: [1s, 2s], sctp.rto_max: [4s, 8s]}   # keys that move together
adjust:                            # overrides for matching configurations (not in a label)
  - {when: {sctp.rto_min: 100ms}, set: {sctp.rto_initial: 100ms}}
repetitions: 3                     # default: the experiment's repeat
order: shuffled                    # or as-written; shuffled with seed
seed: 1
budgets:
  - {metric: failover_time_ms, stat: p95, max: 1500ms}
disturbed_retries: 2               # run a disturbed run again at most this often (--retries)
```
Only the shape is checked here; whether each configuration is a valid experiment is
checked by `expand`, which loads every one before anything is built.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from sctpbench.analysis import metrics
from sctpbench.model import inputfile, units, wording
from sctpbench.model.errors import SpecError
from sctpbench.model.fields import MAX_NAME_CHARS
from sctpbench.model.overrides import as_written, parse_override

STATS = ("mean", "median", "p50", "p90", "p95", "p99", "min", "max")
MetricName = Literal[tuple(metrics.METRIC_KEYS)]  # type: ignore[valid-type]
ZIP = "zip"


def _metric_value(metric: str, value: object) -> float:
    """A budget's limit in the metric's own unit: milliseconds for *_ms, a count otherwise."""
    if metric.endswith("_ms"):
        return units.parse_duration(value) / 1e6
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{value!r} is not a number; allowed: a count (e.g. 10)")
    return float(value)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Budget(_Model):
    """A limit on a statistic of one metric across a configuration's runs."""

    metric: MetricName  # type: ignore[valid-type]
    stat: Literal[STATS] = "mean"  # type: ignore[valid-type]
    max: str | int | float | None = Field(default=None, description="upper limit: a duration (500ms) for *_ms metrics, else a count")
    min: str | int | float | None = Field(default=None, description="lower limit: a duration for *_ms metrics, else a count")

    @model_validator(mode="after")
    def _one_limit(self) -> Budget:
        if (self.max is None) == (self.min is None):
            raise ValueError("a budget needs max: or min: (one of them)")
        try:
            _metric_value(self.metric, self.limit_text)
        except ValueError as e:
            raise ValueError(f"{'max' if self.max is not None else 'min'}: {e}") from None
        return self

    @property
    def limit_text(self) -> str | int | float:
        return self.max if self.max is not None else self.min  # type: ignore[return-value]

    @property
    def limit(self) -> float:
        return _metric_value(self.metric, self.limit_text)

    @property
    def label(self) -> str:
        return f"{self.metric} {self.stat} {'<=' if self.max is not None else '>='} {self.limit_text}"

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "stat": self.stat, "max" if self.max is not None else "min": self.limit,
                "as_written": str(self.limit_text), "label": self.label}


class Adjust(_Model):
    when: dict[str, Any] = Field(min_length=1)
    set: dict[str, Any] = Field(min_length=1)


class Campaign(_Model):
    name: Annotated[str, Field(max_length=MAX_NAME_CHARS, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")] | None = None
    description: str = ""
    experiment: str
    set: dict[str, Any] = {}
    sweep: Annotated[dict[str, Any], BeforeValidator(lambda v: {} if v is None else v)] = {}
    adjust: list[Adjust] = []
    repetitions: Annotated[int, Field(ge=1, le=10000)] | None = None
    order: Literal["shuffled", "as-written"] = "shuffled"
    seed: Annotated[int, Field(ge=0)] = 1
    budgets: list[Budget] = []
    # A disturbed run (timing outside the self-check's tolerances) is run again this many
    # times at most: a busy moment of the host should not cost a configuration a sample.
    disturbed_retries: Annotated[int, Field(ge=0, le=10)] = 2


class Loaded(BaseModel):
    """A checked campaign: the model, where it came from, and its axes made lists."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)
    campaign: Campaign
    file: Path
    experiment_file: Path
    axes: list[dict[str, list[str]]]  # each axis: key → values as written (several keys for a zip)
    source: Any  # wording.Source: line numbers for messages

    @property
    def swept(self) -> list[str]:
        return [k for axis in self.axes for k in axis]

    def where(self, *loc: str) -> str:
        return self.source.where(tuple(loc))


_QUANTITY = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z%/]*)\s*$")


def _split_quantity(value: object, where: str) -> tuple[Decimal, str]:
    m = _QUANTITY.match(str(value)) if not isinstance(value, bool) else None
    if m is None:
        raise SpecError(f"{where}: {value!r} is not a number with an optional unit; allowed: e.g. 2, 100ms, 1.5mbit")
    try:
        return Decimal(m.group(1)), m.group(2)
    except InvalidOperation:
        raise SpecError(f"{where}: {value!r} is not a number") from None


def expand_range(spec: dict[str, Any], where: str) -> list[str]:
    """`{from: 100ms, to: 400ms, step: 100ms}` → ["100ms", "200ms", "300ms", "400ms"] (to included)."""
    if set(spec) != {"from", "to", "step"}:
        raise SpecError(f"{where}: a range needs exactly the keys from, to, step (got {', '.join(map(str, spec))})")
    (lo, u1), (hi, u2), (step, u3) = (_split_quantity(spec[k], f"{where}.{k}") for k in ("from", "to", "step"))
    if len({u1, u2, u3}) != 1:
        raise SpecError(f"{where}: from, to and step need the same unit (got {u1 or 'none'}, {u2 or 'none'}, {u3 or 'none'})")
    if step <= 0 or hi < lo:
        raise SpecError(f"{where}: a range needs step > 0 and from <= to")
    count = int((hi - lo) / step) + 1
    if count > 1000:
        raise SpecError(f"{where}: {count} values; allowed: at most 1000")
    return [f"{(lo + i * step).normalize():f}{u1}" for i in range(count)]


def _values(raw: Any, where: str) -> list[str]:
    if isinstance(raw, dict):
        return expand_range(raw, where)
    if isinstance(raw, list) and raw:
        return [as_written(v) for v in raw]
    raise SpecError(f"{where}: {raw!r} is not a list of values or a range; allowed: [v1, v2, …] or {{from: A, to: B, step: S}}")


def _axes(sweep: dict[str, Any], source: Any) -> list[dict[str, list[str]]]:
    axes: list[dict[str, list[str]]] = []
    for key, raw in sweep.items():
        if key != ZIP:
            axes.append({key: _values(raw, f"{source.where(('sweep', key))}: sweep.{key}")})
            continue
        groups = raw if isinstance(raw, list) else [raw]
        for i, group in enumerate(groups):
            loc = ("sweep", ZIP) + ((str(i),) if isinstance(raw, list) else ())
            where = f"{source.where(loc)}: {'.'.join(loc)}"
            if not isinstance(group, dict) or len(group) < 2:
                raise SpecError(f"{where}: a zip is a mapping of at least two keys to lists of equal length")
            axis = {k: _values(v, f"{where}.{k}") for k, v in group.items()}
            lengths = {k: len(v) for k, v in axis.items()}
            if len(set(lengths.values())) != 1:
                raise SpecError(f"{where}: zipped lists need equal lengths (got {', '.join(f'{k} {n}' for k, n in lengths.items())})")
            axes.append(axis)
    keys = [k for axis in axes for k in axis]
    duplicate = next((k for k in keys if keys.count(k) > 1), None)
    if duplicate:
        raise SpecError(f"{source.where(('sweep',))}: sweep: {duplicate} is swept twice; allowed: each key on one axis")
    return axes


def _describe(error: dict[str, Any], source: Any) -> str:
    loc = tuple(str(p) for p in error["loc"])
    key = wording.shown_key(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        model = {1: Campaign, 3: Budget if loc[:1] == ("budgets",) else Adjust}.get(len(loc), Campaign)
        detail = f"unknown key; allowed: {', '.join(model.model_fields)}"
    elif kind == "missing":
        detail = "required key is missing"
    else:
        detail = wording.value_detail(error)
    return f"{source.where(loc)}: {key}: {detail}"


def _no_experiment(where: str, named: str, resolved: Path, base: Path) -> str:
    """Why `experiment:` names no file: a folder (a reproduction's, most likely) or nothing there."""
    if inputfile.is_dir(resolved):
        inside = resolved / "experiment.yaml"
        hint = f" (e.g. {units.shown(str(Path(named) / inside.name))})" if inputfile.is_file(inside) else ""
        return (f"{where}: experiment: {units.shown(named)} is a folder (relative to {base}); "
                f"allowed: an experiment file{hint}")
    return f"{where}: experiment: no file {units.shown(named)} (relative to {base})"


def load(path: str | Path, overrides: Sequence[str] = ()) -> Loaded:
    """Read and check a campaign file; `overrides` (KEY=VALUE) join its `set:`."""
    path = Path(path)
    data, lines = inputfile.load(path)
    if not isinstance(data, dict):
        raise SpecError(f"{path}: a campaign must be a mapping with keys {', '.join(Campaign.model_fields)}")
    source = wording.Source(str(path), lines, {})
    data = dict(data)
    if not isinstance(data.get("set") or {}, dict):
        raise SpecError(f"{source.where(('set',))}: set: {units.shown(data['set'])} is not a mapping; "
                        "allowed: {KEY: VALUE, …} (e.g. {workload.duration: 6s})")
    fixed = dict(data.get("set") or {})
    for text in overrides:
        key, value = parse_override(text)
        fixed[".".join(key)] = value
        source.overrides[("set", ".".join(key))] = text
    if overrides:
        data["set"] = fixed
    try:
        campaign = Campaign.model_validate(data)
    except ValidationError as e:
        raise SpecError(_describe(dict(e.errors()[0]), source)) from None
    experiment_file = (path.parent / campaign.experiment[: inputfile.MAX_PATH_CHARS]).resolve()
    if not inputfile.is_file(experiment_file):
        raise SpecError(_no_experiment(source.where(("experiment",)), campaign.experiment, experiment_file, path.parent))
    axes = _axes(campaign.sweep, source)
    swept = {k for axis in axes for k in axis}
    for i, adj in enumerate(campaign.adjust):
        unknown = [k for k in adj.when if k not in swept]
        if unknown:
            where = source.where(("adjust", str(i), "when"))
            allowed = ", ".join(sorted(swept)) or "no keys (nothing is swept)"
            raise SpecError(f"{where}: adjust.{i}.when: {unknown[0]} is not swept; allowed: {allowed}")
    if campaign.name is None:
        campaign = campaign.model_copy(update={"name": path.stem})
    return Loaded(campaign=campaign, file=path, experiment_file=experiment_file, axes=axes, source=source)
