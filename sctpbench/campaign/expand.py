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

from sctpbench.campaign.spec import Loaded, as_written
from sctpbench.model import loading
from sctpbench.model.errors import SpecError
from sctpbench.model.experiment import Experiment
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
        key = planning.build(experiment, self.repetition, "agent").run_id
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


def _experiment(loaded: Loaded, config: Configuration) -> Experiment:
    """Load the base file with the campaign's overrides; a bad value names the campaign's line."""
    fixed = [(("set", k), f"{k}={as_written(v)}") for k, v in loaded.campaign.set.items()]
    swept = [(("sweep", k), f"{k}={v}") for k, v in config.params]
    adjusted = [(("adjust",), f"{k}={v}") for k, v in config.adjustments]
    overrides = fixed + swept + adjusted
    try:
        experiment = loading.load(loaded.experiment_file, [text for _, text in overrides])
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


def runs(loaded: Loaded, agent: str = "agent") -> list[Run]:
    """Every run in execution order; every experiment and plan is valid, or SpecError."""
    configs = configurations(loaded)
    if len(configs) > 10000:
        raise SpecError(f"{loaded.where('sweep')}: sweep: {len(configs)} configurations; allowed: at most 10000")
    out: list[Run] = []
    seen: dict[str, Configuration] = {}
    for config in configs:
        experiment = _experiment(loaded, config)
        repetitions = loaded.campaign.repetitions or experiment.repeat
        # The repetition count is the campaign's: leave it out of what identifies a run, so
        # raising `repetitions` later only adds runs.
        experiment = experiment.model_copy(update={"repeat": 1})
        for repetition in range(1, repetitions + 1):
            plan = planning.build(experiment, repetition, agent)
            if plan.run_id in seen:
                raise SpecError(f"{loaded.where('sweep')}: sweep: configurations {seen[plan.run_id].label!r} and "
                                f"{config.label!r} are the same experiment; allowed: values that differ")
            seen[plan.run_id] = config
            out.append(Run(config, repetition, plan.seed, plan.run_id, experiment))
    if loaded.campaign.order == "shuffled":
        # Shuffled so slow drift of the machine (load, heat, other guests) spreads over all
        # configurations instead of biasing the ones that happen to run last.
        random.Random(loaded.campaign.seed).shuffle(out)
    return out
