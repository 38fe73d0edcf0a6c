"""Which clock a run uses, decided before anything is built.

virtual  the guest's clock moves only while the guest is idle (UML time travel,
         `time-travel=inf-cpu`): processing costs no time, so host load changes the
         wall time a run takes, never its results.
paced    virtual time that never runs ahead of the wall clock (`time-travel=ext:` with
         the project's scheduler): the same results as virtual, watchable live.
real     the host's clock: the only one on a real host (the netns backend), where the
         run's timing self-check is what protects the results.

Which of them a backend can give here is the backend's to say (`clocks`, `available(clock)`).
Machines that share one calendar (the ansible backend on a lab of guests on virtual time)
give paced time only: their SSH sessions with this host need the wall clock's pace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sctpbench.backends import registry
from sctpbench.model.errors import SpecError
from sctpbench.model.fields import DirectionOverride

VIRTUAL_CLOCKS = ("virtual", "paced")


@dataclass(frozen=True)
class Decision:
    experiment: Any  # the experiment with `clock` set to the clock that will be used
    note: str  # why the clock differs from the default, or ""


def for_backend(experiment: Any, backend: str, source: str) -> Decision:
    """The experiment as it will run on `backend`; SpecError when the asked clock cannot be had.

    A clock the experiment names is a requirement; the default (virtual) gives way to the
    real clock, with a note, where virtual time is not available.
    """
    asked = "clock" in experiment.model_fields_set
    clock = experiment.clock
    if clock not in VIRTUAL_CLOCKS:
        return Decision(experiment, "")
    ok, why = registry.get(backend).available(clock)
    if ok:
        return Decision(experiment, "")
    if asked:
        raise SpecError(f"{source}: clock: {clock!r} is not available here: {why}; allowed: real")
    if clock == "virtual" and registry.get(backend).available("paced")[0]:
        # Machines sharing one calendar (a lab on virtual time) give virtual time paced by the wall clock.
        paced = experiment.model_copy(update={"clock": "paced"})
        return Decision(paced, "clock paced: the machines share one virtual time, paced by the wall clock "
                               "(their SSH sessions with this host need its pace)")
    real = experiment.model_copy(update={"clock": "real"})
    return Decision(real, f"clock real: virtual time is not available ({why})")


# netem's draws: from the guest kernel's random numbers, which come from each repetition's seed.
NETEM_DRAWS = ("jitter", "loss", "gilbert_elliott", "reorder", "duplicate", "corrupt")


def netem_draws(experiment: Any) -> bool:
    """Whether a path, or a `degrade` event's new values, has netem draw at random."""
    shapings = [path.merged(which) for path in experiment.topology.paths.values() for which in ("forward", "reverse")]
    shapings += [dict(event.set) for event in experiment.events if isinstance(getattr(event, "set", None), DirectionOverride)]
    return any(shaping.get(key) for shaping in shapings for key in NETEM_DRAWS)


def repetition_note(experiment: Any) -> str:
    """A warning worth a line: repetitions that can only repeat each other."""
    varied = (experiment.vary.start or experiment.vary.event_phase or any(a.random for a in experiment.associations)
              or netem_draws(experiment))
    if experiment.repeat > 1 and experiment.clock in VIRTUAL_CLOCKS and not varied:
        return (f"note: on {experiment.clock} time a run without random elements repeats itself; these "
                f"{experiment.repeat} repetitions will agree (vary: draws event phases and start offsets per repetition)")
    return ""
