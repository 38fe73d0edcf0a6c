"""`sctpbench campaign run FILE --until-conclusive CLAIMS`: repetitions added where claims are undecided.

Round after round: the campaign's runs so far are checked against the claims file with the
sequential verdicts (analysis/sequential.py: each interval at the confidence its sample size
spends, so stopping on a verdict leaves it valid), and every configuration an inconclusive
claim's undecided checks look at gets more repetitions — as many again as it has (doubling),
or --step — up to --max-repetitions (default: the claims file's `repetitions:`, the paper's).
A configuration whose claims are settled (holds, contradicted, or not exercised) gets none.
It stops when no configuration needs more or every one that does is at the maximum; the
verdicts it stops on are in the folder's claims.json, as `campaign check --sequential` prints
them. Interrupted, the same command resumes: done runs are found again, and the verdicts do
not depend on how many rounds came before (the spending is by sample size, not by round).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sctpbench.analysis import sequential
from sctpbench.campaign import check, expand, spec
from sctpbench.model.errors import SpecError

# Runs one round: the campaign (its repetitions raised), its runs, the run keys to run; returns an exit status.
Execute = Callable[[spec.Loaded, list[expand.Run], frozenset[str] | None], int]


@dataclass(frozen=True)
class Round:
    """The runs a round adds: per configuration (its label), the repetitions it is run to."""

    targets: dict[str, int]
    waiting: list[sequential.Needs]  # configurations that need more but are at the maximum


def maximum(given: int | None, claims_repetitions: int | None, where: str) -> int:
    if given is not None:
        if given < 2:
            raise SpecError(f"--max-repetitions {given}: allowed: a whole number from 2")
        return given
    if claims_repetitions is None:
        raise SpecError(f"{where}: no repetitions: in the claims file and no --max-repetitions; allowed: "
                        "--max-repetitions N, or repetitions: N (the paper's) in the claims file")
    return claims_repetitions


def next_round(needs: list[sequential.Needs], rows: list[dict[str, Any]], most: int, step: int | None) -> Round:
    """Each configuration that needs more, run to its repetitions so far plus `step` (default:
    as many again), at most `most`."""
    have: dict[str, int] = {}
    for r in rows:
        have[r["config"]] = max(have.get(r["config"], 0), int(r["repetition"]))
    targets, waiting = {}, []
    for need in needs:
        now = have.get(need.config, 0)
        target = min(most, now + (step or max(now, 1)))
        if target > now:
            targets[need.config] = target
        else:
            waiting.append(need)
    return Round(targets, waiting)


def _report(rounds: int, results: list[Any], plan: Round, say: Callable[[str], None]) -> None:
    tally = check.claims.counts(results)
    say(f"round {rounds}: {tally['holds']} hold, {tally['contradicted']} contradicted, {tally['inconclusive']} "
        f"inconclusive{', ' + str(tally['not exercised']) + ' not exercised' if tally.get('not exercised') else ''} "
        f"(sequential verdicts); {len(plan.targets)} configurations get more runs")
    for config, target in sorted(plan.targets.items()):
        say(f"  more runs: {config} to {target} repetitions")


def plan(loaded: spec.Loaded, folder: Path, claims_path: Path, most: int | None, step: int | None,
         say: Callable[[str], None]) -> int:
    """--dry-run: the next round from the runs so far, without running anything."""
    mine = {r.config.label for r in expand.runs(loaded)}
    results, claims_file, rows = check.verdicts(folder, claims_path, [], sequential=True, say=lambda _: None)
    limit = maximum(most, claims_file.claims.repetitions, str(claims_path))
    planned = next_round([n for n in sequential.needs_more(results) if n.config in mine], rows, limit, step)
    _report(0, results, planned, say)
    for need in planned.waiting:
        say(f"  still inconclusive at {limit} repetitions: {need.config} ({', '.join(need.claims)})")
    return 0


def run(loaded: spec.Loaded, folder: Path, claims_path: Path, others: list[str], most: int | None, step: int | None,
        execute: Execute, say: Callable[[str], None], settled: frozenset[int]) -> int:
    """The rounds, from the campaign's own runs (its file's repetitions) to settled claims.
    `settled`: the exit statuses of a round after which the next may start (not interrupted)."""
    if step is not None and step < 1:
        raise SpecError(f"--step {step}: allowed: a whole number from 1")
    mine = {r.config.label for r in expand.runs(loaded)}  # not the configurations of campaigns compared with
    status = execute(loaded, expand.runs(loaded), None)
    rounds, before = 0, None
    while status in settled:
        results, claims_file, rows = check.verdicts(folder, claims_path, others, sequential=True, say=lambda _: None)
        limit = maximum(most, claims_file.claims.repetitions, str(claims_path))
        planned = next_round([n for n in sequential.needs_more(results) if n.config in mine], rows, limit, step)
        if planned.targets and planned.targets == before:
            say(f"round {rounds}: the last round added no runs to {', '.join(sorted(planned.targets))}; stopped")
            return status
        _report(rounds, results, planned, say)
        if not planned.targets:
            for need in planned.waiting:
                say(f"  still inconclusive at {limit} repetitions: {need.config} ({', '.join(need.claims)})")
            for result in results:
                say(result.line())
            return status
        grown = loaded.model_copy(update={"campaign": loaded.campaign.model_copy(
            update={"repetitions": max(planned.targets.values())})})
        runs = expand.runs(grown)
        part = frozenset(r.run_key for r in runs if r.repetition <= planned.targets.get(r.config.label, 0))
        status = max(status, execute(grown, runs, part))
        rounds, before = rounds + 1, planned.targets
    return status
