"""results/ is the one owner of the run folder's files: a file whose module there reads and
writes it is named nowhere else in the package, so no other module reads it its own way
(outputs/folders.py and the ansible backend once opened backend.json themselves)."""

from __future__ import annotations

import ast
from pathlib import Path

from sctpbench.results import backend, kernel

PACKAGE = Path(__file__).resolve().parents[2] / "sctpbench"
OWNED = (backend.NAME, kernel.KERNEL, kernel.VERSIONS)


def names_of_owned_files(source: str) -> list[tuple[int, str]]:
    """(line, string) of each string constant that is an owned file's name or ends in one as a path."""
    return sorted((node.lineno, node.value) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and any(node.value == name or node.value.endswith("/" + name) for name in OWNED))


def test_only_results_names_the_files_it_owns() -> None:
    found = {str(path.relative_to(PACKAGE)): names for path in sorted(PACKAGE.rglob("*.py"))
             if "results" not in path.relative_to(PACKAGE).parts[:1] and (names := names_of_owned_files(path.read_text()))}
    assert found == {}


def test_a_module_naming_one_is_seen() -> None:
    source = 'import json\nstatus = json.loads((run / "backend.json").read_text())\nf"{run}/kernel.json"\nMSG = "see backend.json"\n'
    assert names_of_owned_files(source) == [(2, "backend.json"), (3, "/kernel.json")]  # not the message
