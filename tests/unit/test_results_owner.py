"""results/ is the one owner of the results folders' files: a file whose module there reads
and writes it is named nowhere else in the package, so no other module reads it its own way
(outputs/folders.py and the ansible backend once opened backend.json themselves; the store
wrote its tables with pyarrow, and calibration, telemetry and the report read them so).

Parquet is read and written only in results/ too: a module that imports pyarrow.parquet (or
calls pandas' to_parquet/read_parquet) outside it is writing or reading a table its own way.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import ModuleType

from sctpbench.results import (
    ansible,
    backend,
    calibration,
    campaign,
    cost,
    events,
    experiment,
    guest,
    host,
    kernel,
    ledger,
    mininet,
    params,
    plan,
    summary,
    tables,
    version,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sctpbench"
FORMAT_PAGE = ROOT / "docs" / "results-format.md"
# Each owned file's name, by the module of results/ that names, reads and writes it.
OWNERS: dict[ModuleType, tuple[str, ...]] = {
    version: (version.MARKER,), plan: (plan.NAME, plan.SCRIPT), host: (host.NAME,), backend: (backend.NAME,),
    events: (events.NAME,), kernel: (kernel.KERNEL, kernel.VERSIONS), guest: (guest.NAME, guest.CONSOLE, guest.GUARDIAN_LOG),
    ansible: (ansible.NAME,), mininet: (mininet.NAME,), tables: tables.NAMES, params: (params.NAME,),
    summary: (summary.NAME,), cost: (cost.NAME,), ledger: (ledger.NAME, ledger.LOG), calibration: (calibration.NAME,),
    campaign: (campaign.INFO, campaign.LOG, campaign.RUNS_TABLE, campaign.CONFIGS_TABLE, campaign.CLAIMS, campaign.CARRIED,
               campaign.SHIPPED),
}
OWNED = tuple(name for names in OWNERS.values() for name in names)
# Owned, but still named outside: campaign/execute.py writes a campaign's experiment.yaml.
NOT_YET_ALONE: dict[ModuleType, tuple[str, ...]] = {experiment: (experiment.NAME,)}
PARQUET_MODULES = ("pyarrow.parquet",)
PARQUET_CALLS = ("to_parquet", "read_parquet")


def names_of_owned_files(source: str) -> list[tuple[int, str]]:
    """(line, string) of each string constant that is an owned file's name or ends in one as a path."""
    return sorted((node.lineno, node.value) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and any(node.value == name or node.value.endswith("/" + name) for name in OWNED))


def parquet_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) of each import of pyarrow's Parquet module and each pandas Parquet call."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name in PARQUET_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names
                      if node.module in PARQUET_MODULES or f"{node.module}.{a.name}" in PARQUET_MODULES]
        elif isinstance(node, ast.Attribute) and node.attr in PARQUET_CALLS:
            found.append((node.lineno, node.attr))
    return sorted(found)


def outside_results(find: object) -> dict[str, list[tuple[int, str]]]:
    assert callable(find)
    return {str(path.relative_to(PACKAGE)): found for path in sorted(PACKAGE.rglob("*.py"))
            if "results" not in path.relative_to(PACKAGE).parts[:1] and (found := find(path.read_text()))}


def test_only_results_names_the_files_it_owns() -> None:
    assert outside_results(names_of_owned_files) == {}


def test_only_results_reads_and_writes_parquet() -> None:
    assert outside_results(parquet_uses) == {}


def owners_on_the_page(page: str) -> dict[str, str]:
    """The format page's table of owners: file name → owner module, as `results/NAME.py`."""
    return dict(re.findall(r"^\| `([^`]+)` \| `(results/\w+\.py)` \|", page, re.MULTILINE))


def test_the_format_page_names_each_files_owner() -> None:
    """docs/results-format.md's table says which module owns each file, as the modules do."""
    expected = {name: f"results/{module.__name__.rsplit('.', 1)[1]}.py"
                for module, names in (OWNERS | NOT_YET_ALONE).items() for name in names}
    shown = owners_on_the_page(FORMAT_PAGE.read_text())
    assert {name: shown.get(name) for name in expected} == expected


def test_a_module_naming_one_is_seen() -> None:
    source = ('import json\nstatus = json.loads((run / "backend.json").read_text())\nf"{run}/kernel.json"\n'
              'MSG = "see backend.json"\nopen(run / "console.log", "wb")\n')
    assert names_of_owned_files(source) == [(2, "backend.json"), (3, "/kernel.json"), (5, "console.log")]  # not the message


def test_a_module_writing_parquet_is_seen() -> None:
    source = ("import pyarrow.parquet as pq\nfrom pyarrow import parquet\nimport pyarrow as pa\n"
              "frame.to_parquet(path)\npq.write_table(t, path)\n")
    assert parquet_uses(source) == [(1, "pyarrow.parquet"), (2, "pyarrow.parquet"), (4, "to_parquet")]
