"""Random quantities of a workload (message sizes, gaps between messages, on/off periods),
as the experiment file names them, drawn with a seeded generator of the caller's.

    constant: {value}           uniform: {low, high}
    exponential: {mean}         pareto: {shape, mean}  (shape > 1; scale = mean·(shape−1)/shape)
    empirical: {values, weights?}  (drawn with the weights, equal when absent)
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Constant:
    value: float

    def draw(self, rng: random.Random) -> float:
        return self.value

    @property
    def mean(self) -> float:
        return self.value


@dataclass(frozen=True)
class Uniform:
    low: float
    high: float

    def draw(self, rng: random.Random) -> float:
        return rng.uniform(self.low, self.high)

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2


@dataclass(frozen=True)
class Exponential:
    mean: float

    def draw(self, rng: random.Random) -> float:
        return rng.expovariate(1 / self.mean)


@dataclass(frozen=True)
class Pareto:
    """Heavy-tailed: finite mean needs shape > 1; its scale (the minimum) follows from the mean."""

    shape: float
    mean: float

    @property
    def scale(self) -> float:
        return self.mean * (self.shape - 1) / self.shape

    def draw(self, rng: random.Random) -> float:
        return self.scale * rng.paretovariate(self.shape)


@dataclass(frozen=True)
class Empirical:
    values: tuple[float, ...]
    weights: tuple[float, ...] = field(default=())

    @functools.cached_property
    def _cumulative(self) -> list[float]:
        """Computed once: a schedule draws from it for every message."""
        weights = self.weights or tuple(1.0 for _ in self.values)
        return list(itertools.accumulate(weights))

    def draw(self, rng: random.Random) -> float:
        cumulative = self._cumulative
        return self.values[bisect.bisect_right(cumulative, rng.random() * cumulative[-1])]

    @property
    def mean(self) -> float:
        weights = self.weights or tuple(1.0 for _ in self.values)
        return sum(v * w for v, w in zip(self.values, weights, strict=True)) / sum(weights)


Distribution = Constant | Uniform | Exponential | Pareto | Empirical
