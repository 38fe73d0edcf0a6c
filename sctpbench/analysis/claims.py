"""Claims as code: a paper's (or a user's) statements about results, checked on a campaign.

A claims file (docs/claims.md) names the campaign it speaks of and lists claims, each a
statement over one metric of the campaign's runs: an ordering of two configurations
(less, greater), the best or worst of an axis (lowest, highest), a ratio (ratio_at_least,
ratio_at_most), a threshold (above, below), no difference (same), or the shape of the runs'
distribution (bimodal, unimodal; analysis/modes.py). `for_each` makes a claim hold at every
value of some axes, `at` restricts it to some values.

Each claim is one or more checks (one per group of `for_each`, one per rival of `lowest`),
each a confidence interval over repetitions (analysis/verdicts.py): paired by repetition
when both sides are the same repetitions of one campaign's configurations (`pair`: repetition
r has one seed in every configuration), else Welch's. A claim holds when every
check holds at the file's confidence (default 95 %); it is contradicted when any check is
contradicted at the family-wise confidence (Bonferroni over its checks: a claim of eight
checks needs each contradiction at 99.4 %, so a nightly job is not alarmed by chance); else
it is inconclusive at this number of repetitions. Only ok runs count. A claim's `requires`
(preconditions: the rule switched, the failure happened) makes a check whose runs do not show
them *not exercised* rather than any other verdict: the runs never ran what the claim speaks
of. `not exercised` is not conclusive.

`load` reads and checks the file's shape (one `FILE:LINE: key: what is wrong; allowed: …`
line, as for experiments and campaigns); `evaluate` checks it against a campaign's run rows
(campaign.parquet) and refuses, the same way, an axis or a value the campaign does not have.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from sctpbench.analysis import metrics, modes, verdicts
from sctpbench.analysis.verdicts import Pairs, Sample, Verdict
from sctpbench.model import inputfile, units, wording
from sctpbench.model.errors import SpecError
from sctpbench.model.overrides import as_written as written

Kind = Literal["less", "greater", "lowest", "highest", "ratio_at_least", "ratio_at_most", "above", "below", "same",
               "bimodal", "unimodal"]
TWO_SIDED: tuple[str, ...] = ("less", "greater", "ratio_at_least", "ratio_at_most", "same")
AMONG: tuple[str, ...] = ("lowest", "highest")
THRESHOLD: tuple[str, ...] = ("above", "below")
SHAPE: tuple[str, ...] = ("bimodal", "unimodal")
ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
ASSOCIATION_METRIC = re.compile(r"^association\.[^.]+\.(?P<metric>[a-z0-9_]+)$")
DEFAULT_TOLERANCE = "10%"
CAMPAIGN_AXIS, THIS_CAMPAIGN = "campaign", "this"
RELATION = {"less": "<", "greater": ">", "ratio_at_least": "a/b ≥", "ratio_at_most": "a/b ≤", "above": ">", "below": "<",
            "same": "≈", "lowest": "lowest", "highest": "highest", "bimodal": "bimodal", "unimodal": "unimodal"}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Axis(_Model):
    """A short name for a swept key, and names for its values (`{reactive: "delay-centric:hysteresis=10"}`)."""

    key: str = Field(description="the swept key, as in the campaign file (workloads.0.policy)")
    # YAML reads `0.72:` as a number; a name is its written form either way.
    values: Annotated[dict[str, Any], BeforeValidator(lambda v: {written(k): x for k, x in v.items()} if isinstance(v, dict) else v)] = Field(
        default={}, description="name → the value as the campaign file writes it, or a list of them (the same setting "
                                "written differently in the campaigns compared)")


Filter = dict[str, Any]


class Requires(_Model):
    """A precondition: what a run must show for the claim to speak of it (the rule switched,
    the failure happened). Checks whose runs do not meet it are `not exercised`."""

    metric: str = Field(description="a per-run metric of the campaign table, or association.NAME.METRIC")
    above: str | int | float | None = Field(default=None, description="the metric must be above this (a duration for "
                                                                        "*_ms metrics, else a number); without above or "
                                                                        "below, the metric must be present (the event happened)")
    below: str | int | float | None = Field(default=None, description="the metric must be below this")
    runs: Literal["every", "some"] = Field(default="every", description="every: each ok run of a check must meet it; "
                                                                         "some: at least one")

    @model_validator(mode="after")
    def _bound(self) -> Requires:
        if not _known_metric(self.metric):
            raise ValueError(f"metric {self.metric!r} is not a campaign metric; allowed: {', '.join(metrics.METRIC_KEYS)} "
                             "or association.NAME.METRIC")
        if self.above is not None and self.below is not None:
            raise ValueError("below cannot go with above; allowed: one of them (a range is two preconditions)")
        for key in ("above", "below"):
            try:
                limit(self.metric, getattr(self, key)) if getattr(self, key) is not None else None
            except ValueError as e:
                raise ValueError(f"{key} {str(e).removeprefix('value ')}") from None
        return self

    def met(self, row: dict[str, Any]) -> bool:
        value = row.get(self.metric)
        if value is None or value != value:
            return False
        if self.above is not None:
            return float(value) > limit(self.metric, self.above)
        if self.below is not None:
            return float(value) < limit(self.metric, self.below)
        return True

    def text(self) -> str:
        bound = (f" > {limit(self.metric, self.above):g}" if self.above is not None
                 else f" < {limit(self.metric, self.below):g}" if self.below is not None else " present")
        return f"{self.metric}{bound}"


class Claim(_Model):
    """One statement of the paper over one metric of the campaign's runs."""

    id: Annotated[str, Field(pattern=ID_PATTERN, max_length=80, description="unique, kebab-case")]
    says: str = Field(description="the paper's words, quoted")
    where: str = Field(description="where the paper says it: section, figure, table")
    metric: str = Field(description="a per-run metric of the campaign table, or association.NAME.METRIC")
    kind: Kind
    a: Filter = Field(default={}, description="which runs: axis → value (the left-hand side; the runs looked at for "
                                              "lowest, highest, above, below, bimodal)")
    b: Filter | None = Field(default=None, description="the right-hand side, for less, greater, ratio_*, same")
    among: str | None = Field(default=None, description="lowest/highest: the axis compared")
    which: Any = Field(default=None, description="lowest/highest: the value of `among` claimed lowest or highest")
    value: str | int | float | None = Field(default=None, description="ratio_*: a number; above/below: a duration for *_ms "
                                                                      "metrics, else a number")
    tolerance: str | int | float | None = Field(default=None, description=(
        f"same: the largest difference that is no difference: a percentage of b's mean (default {DEFAULT_TOLERANCE}), "
        "a duration for *_ms metrics, or a number"))
    min_runs: Annotated[int, Field(ge=1, le=1000)] = Field(default=2, description="bimodal/unimodal: runs a mode needs to count")
    min_share: Annotated[float, Field(gt=0, lt=1)] = Field(default=0.2, description="bimodal/unimodal: the smallest share "
                                                                                       "of runs a mode is looked for at")
    requires: list[Requires] = Field(default=[], description="preconditions: what the runs must show for the claim to "
                                                             "speak of them; a check whose runs do not is not exercised")
    for_each: list[str] = Field(default=[], description="axes: the claim must hold at every value of these")
    at: dict[str, Any] = Field(default={}, description="axis → a value or a list of values the claim is restricted to")
    note: str = Field(default="", description="how the paper's words became this check, where it is not plain")

    @model_validator(mode="after")
    def _keys_for_kind(self) -> Claim:
        needs: dict[str, tuple[str, ...]] = {}
        needs |= {k: ("a", "b") for k in TWO_SIDED}
        needs |= {k: ("among", "which") for k in AMONG}
        needs |= {k: ("value",) for k in THRESHOLD}
        needs |= {"ratio_at_least": ("a", "b", "value"), "ratio_at_most": ("a", "b", "value")}
        missing = [k for k in needs.get(self.kind, ()) if getattr(self, k) in (None, {})]
        if missing:
            raise ValueError(f"kind {self.kind} needs {', '.join(missing)}")
        unused = {"b": self.kind in TWO_SIDED, "among": self.kind in AMONG, "which": self.kind in AMONG,
                  "value": self.kind in THRESHOLD or self.kind.startswith("ratio_"), "tolerance": self.kind == "same"}
        extra = [k for k, used in unused.items() if not used and getattr(self, k) is not None]
        if extra:
            takers = {"b": TWO_SIDED, "among": AMONG, "which": AMONG, "value": ("ratio_at_least", "ratio_at_most", *THRESHOLD),
                      "tolerance": ("same",)}[extra[0]]
            raise ValueError(f"{extra[0]} does not apply to kind {self.kind}; allowed: {extra[0]} with kind {', '.join(takers)}")
        if not _known_metric(self.metric):
            raise ValueError(f"metric {self.metric!r} is not a campaign metric; allowed: {', '.join(metrics.METRIC_KEYS)} "
                             "or association.NAME.METRIC")
        if self.kind.startswith("ratio_") and (isinstance(self.value, bool) or not isinstance(self.value, (int, float)) or self.value <= 0):
            raise ValueError(f"value {self.value!r} is not a ratio; allowed: a number above 0 (e.g. 1.6)")
        if self.kind in THRESHOLD:
            try:
                limit(self.metric, self.value)
            except ValueError as e:
                raise ValueError(f"value {str(e).removeprefix('value ')}") from None
        if self.kind == "same" and self.tolerance is not None:
            tolerance(self.metric, self.tolerance, 1.0)
        return self


class ClaimsFile(_Model):
    """A claims file: the paper, the campaign, the axes' names, the claims."""

    paper: str = Field(description="the work the claims come from")
    campaign: str = Field(default="campaign.yaml", description="the campaign file the claims speak of, relative to this file")
    confidence: Annotated[float, Field(ge=0.5, le=0.999)] = Field(default=0.95, description="of each check's interval")
    repetitions: Annotated[int, Field(ge=2, le=10000)] | None = Field(
        default=None, description="the repetitions the paper ran: where `campaign run --until-conclusive` stops adding "
                                  "runs unless --max-repetitions says otherwise")
    axes: dict[str, Axis] = Field(default={}, description="short names for swept keys and their values")
    campaigns: dict[Annotated[str, Field(pattern=ID_PATTERN)], str] = Field(
        default={}, description=f"other campaigns the claims compare with: name → campaign file (relative to this file); "
                                f"their runs and this campaign's are told apart by the axis `{CAMPAIGN_AXIS}` "
                                f"(this campaign's runs: `{THIS_CAMPAIGN}`)")
    claims: list[Claim] = Field(min_length=1)


def _known_metric(name: str) -> bool:
    m = ASSOCIATION_METRIC.match(name)
    return name in metrics.METRIC_KEYS or (m is not None and m["metric"] in metrics.METRIC_KEYS)


def _base_metric(name: str) -> str:
    m = ASSOCIATION_METRIC.match(name)
    return m["metric"] if m else name


def limit(metric: str, value: object) -> float:
    """A threshold in the metric's unit: milliseconds for *_ms metrics (written as a duration), else a number."""
    if _base_metric(metric).endswith("_ms"):
        return units.parse_duration(value) / 1e6
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"value {value!r} is not a number; allowed: a number (e.g. 10)")
    return float(value)


def tolerance(metric: str, value: object, reference: float) -> float:
    """`same`'s tolerance in the metric's unit: a percentage of the reference (b's mean), a duration, or a number."""
    if isinstance(value, str) and value.strip().endswith("%"):
        return units.parse_percent(value) / 100 * abs(reference)
    try:
        return limit(metric, value)
    except ValueError as e:
        raise ValueError(f"tolerance {str(e).removeprefix('value ')} or a percentage (10%)") from None


@dataclass(frozen=True)
class Loaded:
    """A checked claims file and where each key came from."""

    claims: ClaimsFile
    file: Path
    source: wording.Source

    @property
    def campaign_file(self) -> Path:
        return (self.file.parent / self.claims.campaign).resolve()

    def where(self, *loc: str) -> str:
        return self.source.where(tuple(loc))


def _describe(error: dict[str, Any], source: wording.Source) -> str:
    loc = tuple(str(p) for p in error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        model: type[BaseModel] = {1: ClaimsFile, 3: Claim if loc[:1] == ("claims",) else Axis, 5: Requires}.get(len(loc), ClaimsFile)
        detail = f"unknown key; allowed: {', '.join(model.model_fields)}"
    elif kind == "missing":
        detail = "required key is missing"
    elif kind == "too_short":
        detail = f"{units.shown(error.get('input'))} is empty; allowed: at least {error['ctx']['min_length']} item"
    else:
        detail = wording.value_detail(error)
        first = detail.split(" ", 1)
        owners: dict[int, type[BaseModel]] = {2: Claim, 4: Requires}
        owner = owners.get(len(loc)) if loc[:1] == ("claims",) else None
        if kind == "value_error" and owner is not None and first[0] in owner.model_fields:
            # A rule joining a claim's keys names the key it blames first: point at that key's line.
            loc, detail = (*loc, first[0]), first[1]
        if kind == "string_pattern_mismatch" and loc[-1:] == ("id",):
            detail = (f"{units.shown(error.get('input'))} is not a claim id; "
                      "allowed: lower-case letters and digits in words joined by - (guard-cuts-delay)")
    return f"{source.where(loc)}: {wording.shown_key(loc)}: {detail}"


def load(path: str | Path) -> Loaded:
    """Read and check a claims file's shape (what it says about a campaign is checked by `evaluate`)."""
    path = Path(path)
    data, lines = inputfile.load(path)
    if not isinstance(data, dict):
        raise SpecError(f"{path}: a claims file must be a mapping with keys {', '.join(ClaimsFile.model_fields)}")
    source = wording.Source(str(path), lines, {})
    try:
        claims = ClaimsFile.model_validate(data)
    except ValidationError as e:
        raise SpecError(_describe(dict(e.errors()[0]), source)) from None
    seen: dict[str, int] = {}
    for i, claim in enumerate(claims.claims):
        if claim.id in seen:
            raise SpecError(f"{source.where(('claims', str(i), 'id'))}: claims.{i}.id: {claim.id!r} is also claim "
                            f"{seen[claim.id]}'s; allowed: an id used once")
        seen[claim.id] = i
    return Loaded(claims, path, source)


# ---------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class Check:
    """One interval behind a claim: at one group of `for_each`, against one rival of `lowest`."""

    group: str  # "rho=0.81", "" without for_each
    figures: str
    verdict: Verdict
    pairing: str = ""  # "paired" or "unpaired" for a comparison of two sides, else ""
    pairs: int = 0  # the repetitions paired
    configs: tuple[str, ...] = ()  # the configurations whose runs the check looked at

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"group": self.group, "figures": self.figures, "verdict": self.verdict}
        if self.pairing:
            out |= {"pairing": self.pairing, "pairs": self.pairs}
        return out | {"configs": list(self.configs)}


@dataclass(frozen=True)
class Result:
    claim: Claim
    verdict: Verdict
    checks: list[Check] = field(default_factory=list)

    def line(self) -> str:
        """One line: verdict, id, what was checked, and the figures of every check."""
        c = self.claim
        parts = [f"{ch.group + ': ' if ch.group else ''}{ch.figures} → {ch.verdict}" for ch in self.checks]
        return f"{self.verdict.upper():<12} {c.id}: {c.metric} {RELATION[c.kind]}; {'; '.join(parts) or 'no runs'} ({c.where})"

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        return {"id": c.id, "says": c.says, "where": c.where, "metric": c.metric, "kind": c.kind, "verdict": self.verdict,
                "line": self.line(), "checks": [ch.to_dict() for ch in self.checks]}


Row = dict[str, Any]


@dataclass(frozen=True)
class _Axes:
    """The claims file's names resolved against the campaign's swept keys and the values its runs have."""

    loaded: Loaded
    present: dict[str, list[str]]  # swept key → values the runs have, in the order first seen

    def key(self, name: str, where: str) -> str:
        named = self.loaded.claims.axes.get(name)
        key = named.key if named else name
        if key not in self.present:
            allowed = ", ".join([*self.loaded.claims.axes, *self.present]) or "none (nothing is swept)"
            raise SpecError(f"{where}: {name} is not a swept key of the campaign{' (axes: names ' + key + ')' if named else ''}; allowed: {allowed}")
        return key

    def _axis(self, key: str) -> Axis | None:
        return next((a for a in self.loaded.claims.axes.values() if a.key == key), None)

    def members(self, key: str, present: set[str] | None = None) -> list[tuple[str, set[str]]]:
        """The axis's values as the claims file names them, each with the values as written it
        stands for (a name in `values:` may stand for several: one per campaign compared), in
        the order `values:` gives, then the unnamed ones by number; only those the runs have."""
        have = set(self.present[key]) if present is None else present
        axis = self._axis(key)
        named = [(written(alias), {written(v) for v in (vs if isinstance(vs, list) else [vs])})
                 for alias, vs in (axis.values.items() if axis else [])]
        covered = set().union(*(vs for _, vs in named)) if named else set()
        out = [(label, vs & have) for label, vs in named if vs & have]
        out += [(v, {v}) for v in sorted(have - covered, key=_number_first)]
        return out

    def values(self, name: str, raw: Any, where: str) -> tuple[str, set[str]]:
        """The member a filter names: its label and the values as written."""
        key = self.key(name, where)
        text = written(raw)
        members = self.members(key)
        for label, vs in members:
            if text == label or text in vs:
                return (label, vs) if text == label else (text, {text})
        raise SpecError(f"{where}: {text!r} is not a value of {name} in the campaign's runs; allowed: "
                        f"{', '.join(label for label, _ in members)}")

    def name(self, key: str) -> str:
        return next((n for n, a in self.loaded.claims.axes.items() if a.key == key), key)


def _number_first(text: str) -> tuple[float, str]:
    m = re.match(r"^-?\d+(\.\d+)?", text)
    return (float(m.group(0)) if m else math.inf, text)


def _present(rows: list[Row], swept: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {k: [] for k in swept}
    for r in rows:
        for k in swept:
            v = r.get(f"param.{k}")
            if v is not None and v not in out[k]:
                out[k].append(v)
    return out


Selection = dict[str, set[str]]  # swept key → the values allowed


def _selection(axes: _Axes, spec: dict[str, Any], loc: tuple[str, ...]) -> Selection:
    out: Selection = {}
    for name, raw in spec.items():
        at = f"{axes.loaded.where(*loc, str(name))}: {'.'.join(loc)}.{name}"
        values = raw if isinstance(raw, list) else [raw]
        out[axes.key(str(name), at)] = set().union(*(axes.values(str(name), v, at)[1] for v in values))
    return out


def _matching(rows: list[Row], *selections: Selection) -> list[Row]:
    return [r for r in rows if all(r.get(f"param.{k}") in vs for s in selections for k, vs in s.items())]


def _sample(rows: list[Row], metric: str) -> Sample:
    return Sample.of([r.get(metric) for r in rows if r.get("status") == "ok"])


# Shares between 0 and 1 need more digits than times and rates to tell their means apart.
_FRACTIONS = frozenset({"utilisation", "jain_fairness"})


def _digits(metric: str) -> int:
    return 2 if _base_metric(metric) in _FRACTIONS else 1


@dataclass(frozen=True)
class _Context:
    confidence: float
    family: float  # the confidence each contradiction needs (Bonferroni over the claim's checks)
    digits: int


def _pairing(pairs: Pairs | None) -> str:
    """How the interval was taken, for the verdict line: `paired, n 4` or `unpaired`."""
    if pairs is None:
        return "unpaired"
    left = f", {pairs.left_out} run{'s' if pairs.left_out != 1 else ''} without a partner left out" if pairs.left_out else ""
    return f"paired, n {pairs.n}{left}"


def _two_sided(claim: Claim, a: Sample, b: Sample, ctx: _Context, pairs: Pairs | None = None) -> tuple[str, Verdict]:
    """A comparison of two sides; over `pairs` (the same repetitions of both) when given, else Welch's."""
    d = ctx.digits
    head = f"a {a.text(d, ctx.confidence)} vs b {b.text(d, ctx.confidence)}"
    how = _pairing(pairs)
    if claim.kind in ("less", "greater", "same"):
        if pairs is not None:
            hold, contra = (verdicts.paired_difference_interval(pairs, c) for c in (ctx.confidence, ctx.family))
        else:
            hold, contra = (verdicts.difference_interval(a, b, c) for c in (ctx.confidence, ctx.family))
        if claim.kind == "same":
            tol = tolerance(claim.metric, claim.tolerance or DEFAULT_TOLERANCE, b.mean if b.n else 0.0)
            verdict = _verdict(verdicts.within(hold, tol), verdicts.within(contra, tol))
            within = f"; within ±{tol:.{d}f}" if b.n else ""
            return f"{head}, a − b {verdicts.interval_text(hold, d)} ({how}{within})", verdict
        test = verdicts.below if claim.kind == "less" else verdicts.above
        return f"{head}, a − b {verdicts.interval_text(hold, d)} ({how})", _verdict(test(hold, 0.0), test(contra, 0.0))
    ratio = float(claim.value)  # type: ignore[arg-type]
    if pairs is not None:
        hold, contra = (verdicts.paired_ratio_interval(pairs, c) for c in (ctx.confidence, ctx.family))
    else:
        hold, contra = (verdicts.ratio_interval(a, b, c) for c in (ctx.confidence, ctx.family))
    test = verdicts.at_least if claim.kind == "ratio_at_least" else verdicts.at_most
    return f"{head}, a/b {verdicts.interval_text(hold, 2)} ({how})", _verdict(test(hold, ratio), test(contra, ratio))


def _valid(value: Any) -> bool:
    return value is not None and value == value


def pair(left: list[Row], right: list[Row], metric: str, shared: list[str]) -> Pairs | None:
    """The two sides' runs matched by repetition, when both are the same repetitions of
    configurations that differ only in swept values: each run is found on its side by
    (seed, repetition, the value of every `shared` key) once at most, and some run has its
    partner. Else None: the sides are independent samples (Welch's interval).

    `shared`: the swept keys the two sides do not differ in (the compared keys left out), so
    sides pooled over an axis pair run for run at each of its values. Pairs of which either
    run is not ok or lacks the metric are left out; so are runs without a partner."""
    def keyed(rows: list[Row]) -> dict[tuple[Any, ...], Row] | None:
        out: dict[tuple[Any, ...], Row] = {}
        for r in rows:
            if r.get("seed") is None or r.get("repetition") is None:
                return None
            k = (r["seed"], r["repetition"], *(r.get(f"param.{s}") for s in shared))
            if k in out:
                return None  # a side holds several runs of one repetition: not one configuration per key
            out[k] = r
        return out

    lk, rk = keyed(left), keyed(right)
    if not lk or not rk or not lk.keys() & rk.keys():
        return None
    usable = {k for k in lk.keys() & rk.keys() if all(x.get("status") == "ok" and _valid(x.get(metric)) for x in (lk[k], rk[k]))}
    ordered = sorted(usable, key=str)
    counted = sum(1 for side in (lk, rk) for r in side.values() if r.get("status") == "ok" and _valid(r.get(metric)))
    return Pairs(tuple(float(lk[k][metric]) for k in ordered), tuple(float(rk[k][metric]) for k in ordered),
                 counted - 2 * len(ordered))


def _differing(a: Selection, b: Selection) -> set[str]:
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


def _verdict(at_confidence: Verdict, at_family: Verdict) -> Verdict:
    """Holds on the claim's confidence; contradicted only on the family-wise one."""
    if at_confidence == "holds":
        return "holds"
    return "contradicted" if at_family == "contradicted" else "inconclusive"


def _threshold(claim: Claim, a: Sample, ctx: _Context) -> tuple[str, Verdict]:
    value = limit(claim.metric, claim.value)
    hold, contra = (verdicts.mean_interval(a, c) for c in (ctx.confidence, ctx.family))
    test = verdicts.above if claim.kind == "above" else verdicts.below
    return (f"{a.text(ctx.digits, ctx.confidence)} {RELATION[claim.kind]} {value:g}",
            _verdict(test(hold, value), test(contra, value)))


# Where runs_to_see stops counting: a mode so rare needs more runs than any campaign makes.
MOST_RUNS_TO_SEE = 100_000


def runs_to_see(min_runs: int, share: float, confidence: float) -> int:
    """Runs after which a mode holding `share` of the runs shows at least `min_runs` times, at this confidence."""
    from scipy import stats  # scipy.stats takes about 1.6 CPU-s to import (a 2-CPU build machine): `sctpbench run` never needs it

    n = min_runs
    while float(stats.binom.cdf(min_runs - 1, n, share)) >= 1 - confidence and n < MOST_RUNS_TO_SEE:
        n += 1
    return n


def _shape(claim: Claim, values: Sample, ctx: _Context) -> tuple[str, Verdict]:
    found = modes.modes(list(values.values))
    counted = [m for m in found if m.runs >= claim.min_runs]
    enough = runs_to_see(claim.min_runs, claim.min_share, ctx.confidence)
    figures = f"modes {modes.text(found, ctx.digits)} (n {values.n}; a mode counts from {claim.min_runs} runs, "
    figures += f"{enough} runs show a {claim.min_share:.0%} mode)"
    several = len(counted) >= 2
    single = len(found) == 1 and values.n >= enough
    if claim.kind == "bimodal":
        return figures, "holds" if several else "contradicted" if single else "inconclusive"
    return figures, "holds" if single else "contradicted" if several else "inconclusive"


def _groups(axes: _Axes, rows: list[Row], claim: Claim, loc: tuple[str, ...]) -> list[tuple[str, Selection]]:
    """One selection per combination of the `for_each` axes' values that the runs have."""
    keys = [axes.key(name, f"{axes.loaded.where(*loc, 'for_each')}: {'.'.join(loc)}.for_each") for name in claim.for_each]
    combos: list[tuple[str, Selection]] = [("", {})]
    for key in keys:
        members = axes.members(key, {r[f"param.{key}"] for r in rows if r.get(f"param.{key}") is not None})
        combos = [(f"{label + ' ' if label else ''}{axes.name(key)}={name}", sel | {key: vs})
                  for label, sel in combos for name, vs in members]
    return combos


@dataclass(frozen=True)
class _Planned:
    """One check before any statistic: its group and its runs (`right` for a comparison), and
    the swept keys both sides share (None: the sides may not be paired)."""

    group: str
    left: list[Row]
    right: list[Row] | None = None
    shared: list[str] | None = None


def _shared(axes: _Axes, differing: set[str]) -> list[str] | None:
    """The keys a pair's runs must agree on; None when the sides are different campaigns
    (their experiments differ in more than swept values, so one seed draws different things)."""
    if CAMPAIGN_AXIS in differing:
        return None
    return [k for k in axes.present if k not in differing]


def _planned(claim: Claim, axes: _Axes, rows: list[Row], loc: tuple[str, ...]) -> list[_Planned]:
    """Every check of the claim, before any statistic."""
    at = _selection(axes, claim.at, (*loc, "at"))
    a = _selection(axes, claim.a, (*loc, "a"))
    b = _selection(axes, claim.b or {}, (*loc, "b"))
    base = _matching(rows, at)
    planned: list[_Planned] = []
    for label, group in _groups(axes, base, claim, loc):
        here = _matching(base, group)
        if claim.kind in TWO_SIDED:
            planned.append(_Planned(label, _matching(here, a), _matching(here, b), _shared(axes, _differing(a, b))))
        elif claim.kind in AMONG:
            where = f"{axes.loaded.where(*loc, 'among')}: {'.'.join(loc)}.among"
            key = axes.key(str(claim.among), where)
            which, chosen = axes.values(str(claim.among), claim.which, f"{axes.loaded.where(*loc, 'which')}: {'.'.join(loc)}.which")
            pool = _matching(here, a)
            for rival, vs in axes.members(key, {r[f"param.{key}"] for r in pool}):
                if vs & chosen:
                    continue
                planned.append(_Planned(f"{label + ' ' if label else ''}{which} vs {rival}", _matching(pool, {key: chosen}),
                                        _matching(pool, {key: vs}), _shared(axes, {key})))
        else:
            planned.append(_Planned(label, _matching(here, a)))
    return planned


def _exercised(requires: list[Requires], rows: list[Row], figures: str, verdict: Verdict) -> tuple[str, Verdict]:
    """The check's verdict stands only where its ok runs meet every precondition; else the
    mechanism the claim speaks of never ran, and the runs say nothing about it either way."""
    ok = [r for r in rows if r.get("status") == "ok"]
    if not ok:
        return figures, verdict
    notes, met_all = [], True
    for req in requires:
        met = sum(req.met(r) for r in ok)
        met_all &= met == len(ok) if req.runs == "every" else met > 0
        notes.append(f"{req.text()} in {met} of {len(ok)} runs")
    return f"{figures}; requires {', '.join(notes)}", verdict if met_all else "not exercised"


def _configs(*sides: list[Row] | None) -> tuple[str, ...]:
    return tuple(sorted({str(r.get("config")) for side in sides for r in side or []}))


def _at_look(ctx: _Context, n: int, sequential: bool) -> tuple[_Context, str]:
    """A sequential campaign's look at n units spends α by n (analysis/sequential.py)."""
    if not sequential or n < 2:
        return ctx, ""
    at = _Context(verdicts.spent(ctx.confidence, n), verdicts.spent(ctx.family, n), ctx.digits)
    return at, f"; sequential, at {at.confidence:.4%}"


def evaluate_claim(claim: Claim, axes: _Axes, rows: list[Row], confidence: float, index: int, sequential: bool = False) -> Result:
    loc = ("claims", str(index))
    planned = _planned(claim, axes, rows, loc)
    family = 1 - (1 - confidence) / max(1, len(planned))
    base = _Context(confidence, family, _digits(claim.metric))
    checks = []
    for p in planned:
        pairing, pairs = "", None
        if p.right is not None:
            left, right = _sample(p.left, claim.metric), _sample(p.right, claim.metric)
            pairs = None if p.shared is None else pair(p.left, p.right, claim.metric, p.shared)
            pairing = "unpaired" if pairs is None else "paired"
            ctx, look = _at_look(base, pairs.n if pairs else left.n + right.n, sequential)
            # lowest: which < each rival; highest: which > each rival
            as_two = claim.model_copy(update={"kind": "less" if claim.kind == "lowest" else "greater"}) if claim.kind in AMONG else claim
            figures, verdict = _two_sided(as_two, left, right, ctx, pairs)
            figures += look
        elif claim.kind in THRESHOLD:
            sample = _sample(p.left, claim.metric)
            ctx, look = _at_look(base, sample.n, sequential)
            figures, verdict = _threshold(claim, sample, ctx)
            figures += look
        else:
            ctx = base
            figures, verdict = _shape(claim, _sample(p.left, claim.metric), ctx)
        if claim.requires:
            figures, verdict = _exercised(claim.requires, [*p.left, *(p.right or [])], figures, verdict)
        checks.append(Check(p.group, figures, verdict, pairing, pairs.n if pairs else 0, _configs(p.left, p.right)))
    return Result(claim, verdicts.combine([c.verdict for c in checks]), checks)


def evaluate(loaded: Loaded, rows: list[Row], swept: list[str], others: dict[str, tuple[list[Row], list[str]]] | None = None,
             declared: dict[str, list[str]] | None = None, sequential: bool = False) -> list[Result]:
    """Every claim of the file on a campaign's run rows (campaign.parquet) and swept keys;
    `others`: the rows and swept keys of the campaigns the file's `campaigns:` names;
    `declared`: every swept key's values in the campaign file (campaign.json), so that a
    value swept but not run yet (`campaign run --only`) makes a check of no runs, which is
    inconclusive, rather than an unknown value; `sequential`: each interval at the confidence
    a look of a campaign run until conclusive spends (analysis/sequential.py)."""
    if loaded.claims.campaigns:
        missing = [n for n in loaded.claims.campaigns if n not in (others or {})]
        if missing:
            raise SpecError(f"{loaded.where('campaigns', missing[0])}: campaigns.{missing[0]}: no runs of this campaign given; "
                            f"allowed: sctpbench campaign check FOLDER CLAIMS --with {missing[0]}=FOLDER")
        tagged = [r | {f"param.{CAMPAIGN_AXIS}": THIS_CAMPAIGN} for r in rows]
        for name, (other_rows, other_swept) in (others or {}).items():
            tagged += [r | {f"param.{CAMPAIGN_AXIS}": name} for r in other_rows]
            swept = swept + [k for k in other_swept if k not in swept]
        rows, swept = tagged, [*swept, CAMPAIGN_AXIS]
    columns = {k for r in rows for k in r}
    present = _present(rows, swept)
    for key, values in (declared or {}).items():
        if key in present:
            present[key] += [v for v in values if v not in present[key]]
    axes = _Axes(loaded, present)
    results = []
    for i, claim in enumerate(loaded.claims.claims):
        if rows and claim.metric not in columns:
            raise SpecError(f"{loaded.where('claims', str(i), 'metric')}: claims.{i}.metric: {claim.metric} is not a column "
                            f"of the campaign's table; allowed: {', '.join(metrics.METRIC_KEYS)} or an association's")
        for j, req in enumerate(claim.requires):
            if rows and req.metric not in columns:
                raise SpecError(f"{loaded.where('claims', str(i), 'requires', str(j), 'metric')}: claims.{i}.requires.{j}.metric: "
                                f"{req.metric} is not a column of the campaign's table; allowed: {', '.join(metrics.METRIC_KEYS)} "
                                "or an association's")
        results.append(evaluate_claim(claim, axes, rows, loaded.claims.confidence, i, sequential))
    return results


def counts(results: list[Result]) -> dict[Verdict, int]:
    """Claims per verdict; `not exercised` only when a claim got it (files without preconditions
    keep the three counts they always had)."""
    out = {v: sum(r.verdict == v for r in results) for v in verdicts.VERDICTS}
    return {v: n for v, n in out.items() if n or v != "not exercised"}
