"""The agent's path-selection policy as an experiment writes it, NAME[:KEY=VALUE,...]:
its names and keys (and the signal policy's thresholds) checked before anything is built.
The agent checks the values again (workloads/agent/policy.c, RECORDS.md).
"""

from __future__ import annotations

from sctpbench.model import signaltrace

# The agent's --policy (workloads/agent/policy.c checks values; here names and keys, before anything is built).
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
    return _signal_values(params) if name == "signal" else None


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
# The signal policy's thresholds, checked here because a wrong one silently never fires.
SIGNAL_RANGES = {"switch": (signaltrace.DBM_MIN, signaltrace.DBM_MAX, "dBm"), "prepare": (signaltrace.DBM_MIN, signaltrace.DBM_MAX, "dBm"),
                 "hysteresis": (0.0, 250.0, "dB")}


def _signal_values(params: str) -> str | None:
    values: dict[str, float] = {}
    for key, _, text in (item.partition("=") for item in params.split(",")):
        if key not in SIGNAL_RANGES:
            continue
        lo, hi, unit = SIGNAL_RANGES[key]
        try:
            values[key] = float(text)
        except ValueError:
            values[key] = float("nan")
        if not lo <= values[key] <= hi:
            return f"bad {key} {text!r} (allowed: a number of {unit} from {lo:g} to {hi:g})"
    if "prepare" in values and not values["prepare"] > values.get("switch", SIGNAL_SWITCH_DEFAULT):
        return (f"prepare={values['prepare']:g} is not above switch={values.get('switch', SIGNAL_SWITCH_DEFAULT):g} "
                "(allowed: prepare above switch: it comes first)")
    return None

