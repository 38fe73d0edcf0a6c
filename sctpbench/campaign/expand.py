"""A campaign made concrete: configurations (points of the sweep) × repetitions = runs.

Identity is content-derived so a campaign can resume and matched across campaigns:
- a configuration's label is its swept values as written, in sweep order
  ("sctp.rto_min=200ms sctp.path_max_retrans=2"); config_key is a hash of the label, so
  two campaigns of the same file (another night, another kernel) match configuration by
  configuration even when the base experiment changed;
- a run's key is the plan's run id: a hash of the fully resolved experiment (base file,
  `set:`, swept values, adjustments) and the repetition, so a finished run is found again
  whatever the order, parallelism or repetition count, and any change to what a run
  does gives it a new key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

from sctpbench.campaign.spec import Loaded, as_written
from sctpbench.model import loading
from sctpbench.model.errors import SpecError
from sctpbench.model.experiment import Experiment
from sctpbench.model.overrides import parse_override
from sctpbench.model.wording import set_label
from sctpbench.plan import build as planning


@dataclass(frozen=True)
class Configuration:
    params: tuple[tuple[str, str], ...]  # swept key → value as written, in sweep order
    adjustments: tuple[tuple[str, str], ...] = ()  # from adjust:, not part of the label

    @property
    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params) or "(base)"

    @property
    def key(self) -> str:
        return config_key(self.label)


def config_key(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()[:10]


@dataclass(frozen=True)
class Run:
    config: Configuration
    repetition: int
    seed: int
    run_key: str
    experiment: Experiment = field(repr=False, compare=False)

    def with_experiment(self, experiment: Experiment) -> Run:
        """The same run of another experiment (e.g. on another clock): its key follows its plan."""
        key = planning.run_id(planning.identity(experiment), self.repetition)
        return dataclasses.replace(self, experiment=experiment, run_key=key)


def configurations(loaded: Loaded) -> list[Configuration]:
    """The cross product of the axes; a zip axis sets all its keys at once."""
    points: list[list[tuple[tuple[str, str], ...]]] = []
    for axis in loaded.axes:
        keys = list(axis)
        points.append([tuple((k, axis[k][i]) for k in keys) for i in range(len(axis[keys[0]]))])
    out = []
    for combo in itertools.product(*points):
        params = tuple(kv for part in combo for kv in part)
        values = dict(params)
        adjustments: dict[str, str] = {}
        for adj in loaded.campaign.adjust:
            if all(values.get(k) == as_written(v) for k, v in adj.when.items()):
                adjustments |= {k: as_written(v) for k, v in adj.set.items()}
        out.append(Configuration(params, tuple(adjustments.items())))
    return out


@dataclass
class _Reader:
    """The base file read once and each override parsed once, for every configuration: a
    9,000-configuration grid otherwise parses the same YAML 9,000 times."""

    base: loading.Base | None = None
    parsed: dict[str, loading.Override] = field(default_factory=dict)

    def experiment(self, path: Path, overrides: list[str]) -> Experiment:
        if self.base is None:
            self.base = loading.read(path)
        return loading.from_base(self.base, [self._override(text) for text in overrides])

    def _override(self, text: str) -> loading.Override:
        if text not in self.parsed:
            self.parsed[text] = loading.Override(text, *parse_override(text))
        return self.parsed[text]


def _experiment(loaded: Loaded, config: Configuration, reader: _Reader) -> Experiment:
    """Load the base file with the campaign's overrides; a bad value names the campaign's line."""
    fixed = [(("set", k), f"{k}={as_written(v)}") for k, v in loaded.campaign.set.items()]
    swept = [(("sweep", k), f"{k}={v}") for k, v in config.params]
    adjusted = [(("adjust",), f"{k}={v}") for k, v in config.adjustments]
    overrides = fixed + swept + adjusted
    try:
        experiment = reader.experiment(loaded.experiment_file, [text for _, text in overrides])
    except SpecError as e:
        message = str(e)
        for loc, text in overrides:
            if message.startswith(f"{set_label(text)}:"):
                key = text.partition("=")[0]
                detail = message.removeprefix(f"{set_label(text)}: ").removeprefix(f"{key}: ")
                raise SpecError(f"{loaded.where(*loc)}: {'.'.join(loc)}: {detail}"
                                f" (configuration {config.label})") from None
        raise SpecError(f"{loaded.file}: configuration {config.label}: {message}") from None
    return experiment


def runs(loaded: Loaded) -> list[Run]:
    """Every run in execution order; every experiment is valid, or SpecError (check_plans
    builds their plans). A run's key and seed are its plan's (plan.build identity, run_id,
    seed_of), without building the plan: a 9,000-configuration grid lists in seconds."""
    configs = configurations(loaded)
    if len(configs) > 10000:
        raise SpecError(f"{loaded.where('sweep')}: sweep: {len(configs)} configurations; allowed: at most 10000")
    out: list[Run] = []
    seen: dict[str, Configuration] = {}
    reader = _Reader()
    for config in configs:
        experiment = _experiment(loaded, config, reader)
        repetitions = loaded.campaign.repetitions or experiment.repeat
        # The repetition count is the campaign's: leave it out of what identifies a run, so
        # raising `repetitions` later only adds runs.
        experiment = experiment.model_copy(update={"repeat": 1})
        identity = planning.identity(experiment)
        for repetition in range(1, repetitions + 1):
            run_id = planning.run_id(identity, repetition)
            if run_id in seen:
                raise SpecError(f"{loaded.where('sweep')}: sweep: configurations {seen[run_id].label!r} and "
                                f"{config.label!r} are the same experiment; allowed: values that differ")
            seen[run_id] = config
            out.append(Run(config, repetition, planning.seed_of(experiment, repetition), run_id, experiment))
    if loaded.campaign.order == "shuffled":
        # Shuffled so slow drift of the machine (load, heat, other guests) spreads over all
        # configurations instead of biasing the ones that happen to run last.
        random.Random(loaded.campaign.seed).shuffle(out)
    return out


def only(loaded: Loaded, runs: list[Run], texts: list[str]) -> list[Run]:
    """`--only KEY=VALUE` (repeatable): the runs whose swept KEY has that value as written;
    several values of one key are alternatives, different keys must all match. A part of a
    campaign too large to run at once (a paper's whole table) runs in the campaign's own
    folder, and running the file without --only later adds the rest."""
    wanted: dict[str, set[str]] = {}
    values = {k: axis[k] for axis in loaded.axes for k in axis}
    for text in texts:
        key, sep, value = text.partition("=")
        if key not in values:
            raise SpecError(f"--only {text}: {key or '(no key)'} is not a swept key of {loaded.file.name}; "
                            f"allowed: KEY=VALUE with KEY one of {', '.join(values) or 'none (nothing is swept)'}")
        if not sep or value not in values[key]:
            raise SpecError(f"--only {text}: {value!r} is not a value of {key} in the sweep; "
                            f"allowed: {', '.join(values[key])}")
        wanted.setdefault(key, set()).add(value)
    return [r for r in runs if all(dict(r.config.params).get(k) in vs for k, vs in wanted.items())]


def check_plans(runs: list[Run], agent: str = "agent") -> None:
    """Every run's plan can be built (SpecError otherwise): before a campaign starts, so a
    bad configuration stops it before its first guest rather than failing its runs."""
    for run in runs:
        plan = planning.build(run.experiment, run.repetition, agent)
        assert plan.run_id == run.run_key, (plan.run_id, run.run_key)  # one identity, two ways
