"""The seeds' verdict table (docs/seeds.md#verdicts), made from the shipped tables.

One line per claims file under reproductions/: its campaign's shipped tables
(campaign/shipped.py: results/ beside campaign.yaml, results-NAME/ beside campaign-NAME.yaml)
checked as `sctpbench campaign check FOLDER CLAIMS` checks them, with the totals of
shipped.json (runs, repetitions, run time, commits, where they ran). docs/hooks/verdicts.py
puts it in the page at every `mkdocs build`, so the page cannot drift from the tables;
tests/unit/test_verdict_table.py holds it to `campaign check` and to each shipped.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.analysis import claims
from sctpbench.campaign import check, shipped
from sctpbench.campaign import spec as campaign_spec
from sctpbench.results import campaign as campaign_files

VERDICTS = ("holds", "contradicted", "not exercised", "inconclusive")


@dataclass(frozen=True)
class Line:
    claims_file: Path  # relative to the checkout
    tables: Path  # the shipped tables' folder, relative
    description: str  # the campaign file's
    claims: int
    counts: dict[str, int] = field(default_factory=dict)  # verdict → claims; empty without tables
    totals: dict[str, Any] = field(default_factory=dict)  # shipped.json
    missing: str | None = None  # why there are no verdicts

    def command(self) -> str:
        return f"sctpbench campaign check {self.tables} {self.claims_file}"


def claims_files(root: Path) -> list[Path]:
    return sorted((root / "reproductions").glob("*/claims*.yaml"))


def line(root: Path, claims_path: Path) -> Line:
    """One claims file's line: its verdicts on its campaign's shipped tables, or why there are none."""
    loaded = claims.load(claims_path)
    campaign_file = claims_path.parent / loaded.claims.campaign
    description = campaign_spec.load(campaign_file).campaign.description or campaign_file.stem
    tables = shipped.default_folder(campaign_file)
    base = Line(claims_path.relative_to(root), tables.relative_to(root), description, len(loaded.claims.claims))
    if not (tables / campaign_files.RUNS_TABLE).is_file():
        return Line(**base.__dict__ | {"missing": "no shipped tables yet"})
    for name, other in check.other_folders(tables, loaded, []).items():
        if not (other / campaign_files.RUNS_TABLE).is_file():
            return Line(**base.__dict__ | {"missing": f"no shipped tables of the compared campaign {name} yet"})
    # anything else a check refuses (a claim naming a value the table lacks) fails the build
    results, _, _, _ = check.evaluate(tables, claims_path, [], say=lambda _: None)
    return Line(**base.__dict__ | {"counts": claims.counts(results),
                                   "totals": campaign_files.read_shipped(tables) or {}})


def lines(root: Path) -> list[Line]:
    return [line(root, p) for p in claims_files(root)]


def _run_time(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 5400 else f"{seconds / 60:.0f} min"


def _row(item: Line) -> str:
    name = f"`{item.claims_file.parent.name}`" + (f" (`{item.claims_file.name}`)" if item.claims_file.name != "claims.yaml" else "")
    if item.missing:
        return f"| {name} | {item.description} | {item.missing} | | | | | {item.claims} (unchecked) | |"
    t = item.totals
    reps = f"{t.get('repetitions_min')}–{t.get('repetitions_max')}" if t.get("repetitions_min") != t.get("repetitions_max") \
        else str(t.get("repetitions_min"))
    made = f"{_run_time(float(t.get('run_seconds') or 0))} on {', '.join(t.get('hosts') or ['?'])}, " \
           f"{', '.join(c[:8] + ('+dirty' if c.endswith('+dirty') else '') for c in t.get('commits') or ['?'])}"
    counts = " | ".join(str(item.counts.get(v, 0)) for v in VERDICTS)
    return f"| {name} | {item.description} | {t.get('runs')} ({t.get('ok')} ok) | {reps} | {counts} | {made} |"


def markdown(items: list[Line]) -> str:
    head = ("| reproduction | campaign | runs | repetitions | holds | contradicted | not exercised | inconclusive "
            "| run time, host, commit |\n|---|---|---|---|---|---|---|---|---|\n")
    return head + "\n".join(_row(i) for i in items) + "\n"
