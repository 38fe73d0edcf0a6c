"""The agent's multipath scheduler as an experiment writes it, NAME[:KEY=VALUE,...]: which path
each message is sent on (concurrent multipath transfer, seed 000 Paper III). Names and keys are
checked here, before anything is built; the agent checks the values again
(workloads/agent/common/sched.c, RECORDS.md "Multipath scheduling").
"""

from __future__ import annotations

from sctpbench.model.policy import parameters_problem

SCHEDULER_DEFAULT = "primary"
# The agent's --scheduler: each name with the keys it takes.
SCHEDULER_KEYS: dict[str, tuple[str, ...]] = {
    "primary": (),
    "round-robin": (),
    "static-stream": (),
    "dynamic-path": ("hz",),
    "stream-aware": ("margin", "hz"),
}
# The agent's ranges (common/sched.c), so a bad value fails at load time with the file's words.
SCHEDULER_RANGES: dict[str, tuple[float, float, str]] = {"hz": (1, 10000, "an integer"), "margin": (0, 60000, "ms")}


def scheduler_problem(text: str) -> str | None:
    """What is wrong with a scheduler text NAME[:KEY=VALUE,...], or None."""
    name, colon, params = text.partition(":")
    if name not in SCHEDULER_KEYS:
        return f"unknown scheduler {name!r} (allowed: {', '.join(SCHEDULER_KEYS)})"
    if not colon:
        return None
    allowed = SCHEDULER_KEYS[name]
    if not allowed:
        return f"{name} takes no parameters"
    problem = parameters_problem(name, params, allowed)
    if problem:
        return problem
    for key, _, value in (item.partition("=") for item in params.split(",")):
        problem = _value_problem(key, value)
        if problem:
            return problem
    return None


def _value_problem(key: str, text: str) -> str | None:
    lo, hi, unit = SCHEDULER_RANGES[key]
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not lo <= value <= hi or (key == "hz" and value != int(value)):
        return f"bad {key} {text!r} (allowed: {unit} from {lo:g} to {hi:g})"
    return None
