"""The agent's path-selection policy as an experiment writes it, NAME[:KEY=VALUE,...]:
its names, keys and values checked before anything is built, by the rules the agent reads
them with (workloads/agent/common/policy.c, RECORDS.md), which checks them again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sctpbench.model import signaltrace

# The agent's --policy keys (workloads/agent/common/policy.c allowed()).
POLICY_KEYS: dict[str, tuple[str, ...]] = {
    "static": (),
    "delay-centric": ("hysteresis",),
    "predictive": ("short", "long", "threshold", "form"),
    "rtt-ratio": ("alpha_c", "alpha_a", "beta"),
    "signal": ("switch", "hysteresis", "prepare"),
}
POLICY_COMMON_KEYS = ("guard", "guard_hb", "seed", "hz")


def policy_problem(text: str) -> str | None:
    """What is wrong with a policy text NAME[:KEY=VALUE,...], or None."""
    name, _, params = text.partition(":")
    if name not in POLICY_KEYS:
        return f"unknown policy {name!r} (allowed: {', '.join(POLICY_KEYS)})"
    if not params:
        return None
    if name == "static":
        return "static takes no parameters"
    problem = parameters_problem(name, params, POLICY_KEYS[name] + POLICY_COMMON_KEYS)
    if problem:
        return problem
    return _values_problem(name, params)


def parameters_problem(name: str, params: str, allowed: tuple[str, ...]) -> str | None:
    """What is wrong with the KEY=VALUE,... part of an agent's NAME:KEY=VALUE,... text (a policy's
    or a scheduler's), or None; the values are the caller's to check."""
    for item in params.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            return f"bad parameter {item!r} (KEY=VALUE)"
        if key not in allowed:
            return f"unknown parameter {key!r} for {name} (allowed: {', '.join(allowed)})"
    return None


SIGNAL_SWITCH_DEFAULT = -80.0  # the agent's (policy.c)
GUARD_MS_MAX = 3_600_000  # the agent's GUARD_MS_MAX: an hour


@dataclass(frozen=True)
class _Number:
    """A value the agent reads with strtod and takes within [lo, hi] (policy.c parse_double)."""

    lo: float
    hi: float
    allowed: str

    def problem(self, text: str) -> str | None:
        try:  # strtod takes neither Python's digit separators nor trailing spaces
            value = float(text) if "_" not in text and text == text.strip() else math.nan
        except ValueError:
            value = math.nan
        return None if math.isfinite(value) and self.lo <= value <= self.hi else self.allowed


@dataclass(frozen=True)
class _Count:
    """A value the agent reads as decimal digits within [lo, hi] (policy.c parse_u64)."""

    lo: int
    hi: int
    allowed: str

    def problem(self, text: str) -> str | None:
        return None if text.isascii() and text.isdigit() and self.lo <= int(text) <= self.hi else self.allowed


@dataclass(frozen=True)
class _Guard:
    """MS or LO-HI in ms, LO not above HI (policy.c parse_guard)."""

    allowed: str = f"MS or LO-HI, whole ms from 0 to {GUARD_MS_MAX}, LO not above HI"

    def problem(self, text: str) -> str | None:
        parts = text.split("-", 1)
        if not all(p.isascii() and p.isdigit() and int(p) <= GUARD_MS_MAX for p in parts):
            return self.allowed
        return None if len(parts) == 1 or int(parts[0]) <= int(parts[1]) else self.allowed


@dataclass(frozen=True)
class _Choice:
    words: tuple[str, ...]

    def problem(self, text: str) -> str | None:
        return None if text in self.words else " or ".join(self.words)


_Rule = _Number | _Count | _Guard | _Choice
# What the agent accepts for each key (policy.c parse_kv), checked here so a wrong value is
# refused with one line before anything is built rather than by the agent inside the guest.
# The signal policy's hysteresis is in dB, everyone else's in ms.
_DBM = _Number(signaltrace.DBM_MIN, signaltrace.DBM_MAX, f"a number of dBm from {signaltrace.DBM_MIN:g} to {signaltrace.DBM_MAX:g}")
VALUE_RULES: dict[str, _Rule] = {
    "switch": _DBM,
    "prepare": _DBM,
    "hysteresis": _Number(0, 1e6, "a number of ms from 0 to 1e6"),
    "short": _Number(1e-6, 1, "an EMA weight in (0, 1]"),
    "long": _Number(1e-6, 1, "an EMA weight in (0, 1]"),
    "threshold": _Number(0, 1e6, "a number of ms from 0 to 1e6"),
    "form": _Choice(("original", "modified")),
    "alpha_c": _Number(1, 1e6, "a number from 1 to 1e6"),
    "alpha_a": _Number(1, 1e6, "a number from 1 to 1e6"),
    "beta": _Number(0, 1e9, "a number of ms from 0 to 1e9"),
    "guard": _Guard(),
    "guard_hb": _Count(0, GUARD_MS_MAX, f"whole ms from 0 (leave the interval alone) to {GUARD_MS_MAX}"),
    "seed": _Count(0, 2**64 - 1, "an unsigned 64-bit integer"),
    "hz": _Count(1, 100_000, "the kernel's HZ, 1 to 100000"),
}
SIGNAL_HYSTERESIS = _Number(0, 250, "a number of dB from 0 to 250")


def _values_problem(name: str, params: str) -> str | None:
    values = dict(item.partition("=")[::2] for item in params.split(","))
    for key, text in values.items():
        rule = SIGNAL_HYSTERESIS if (name, key) == ("signal", "hysteresis") else VALUE_RULES[key]
        allowed = rule.problem(text)
        if allowed:
            return f"bad {key} {text!r} (allowed: {allowed})"
    if name == "predictive" and not float(values.get("short", 0.667)) > float(values.get("long", 0.154)):
        return f"short={values.get('short', 0.667)} does not weigh more than long={values.get('long', 0.154)} (allowed: short above long)"
    switch = float(values.get("switch", SIGNAL_SWITCH_DEFAULT))
    if name == "signal" and "prepare" in values and not float(values["prepare"]) > switch:
        return f"prepare={values['prepare']} is not above switch={switch:g} (allowed: prepare above switch: it comes first)"
    return None

