"""The package's import graph: imports only run downward through the layers of the data
flow (docs/development.md, "Layers"), and no module imports itself back through others.

Every import counts, the ones inside functions too: a lazy import is still a dependency.
`python -m tests.unit.test_import_graph` (from the project root) prints the graph as Graphviz dot.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.support.graph import cycles

PACKAGE = Path(__file__).resolve().parents[2] / "sctpbench"

# Bottom to top: a module may import from its own layer and the ones before it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("model",),          # the experiment file: spec, units, topology, events
    ("plan",),           # one run as backend-neutral data
    ("results",),        # the one owner of run, session and campaign folders (backends write into them)
    ("backends",),       # realising a plan: netns, uml, …
    ("collectors",),     # reading what a run left: records, captures
    ("analysis",),       # metrics, tables, the self-check, verify
    ("telemetry",),      # InfluxDB
    ("orchestration",),  # runner, calibration, clocks, capabilities
    ("outputs", "dashboards"),
    ("campaign", "lab"),  # lab: guests for the ansible backend, from a plan
    ("fileschema", "cli"),
)


def layer_of(module: str) -> int:
    part = module.split(".")[1] if "." in module else ""
    for index, names in enumerate(LAYERS):
        if part in names:
            return index
    raise AssertionError(f"{module} is in no layer: add its folder to LAYERS and the README's module map")


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "build" in path.parts:
            continue
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(path: Path, known: set[str]) -> set[str]:
    """The package's modules that `path` imports (a package import counts as its __init__)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for name in names:
            if name in known:
                found.add(name)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    packages = {m for m, p in mods.items() if p.name == "__init__.py"}
    return {m: {d for d in imports(p, known) if d != m and d not in packages} for m, p in mods.items()}


def test_every_module_is_in_a_layer() -> None:
    for module in graph():
        if module != "sctpbench":
            layer_of(module)


def test_no_upward_import() -> None:
    upward = [f"{m} → {d}" for m, deps in graph().items() if m != "sctpbench"
              for d in sorted(deps) if d != "sctpbench" and layer_of(d) > layer_of(m)]
    assert upward == []


def test_no_cycle() -> None:
    assert cycles(graph()) == []


def test_the_checks_can_fail() -> None:
    g = {"sctpbench.model.a": {"sctpbench.model.b"}, "sctpbench.model.b": {"sctpbench.model.a"}}
    assert cycles(g) == [["sctpbench.model.a", "sctpbench.model.b"]]
    assert layer_of("sctpbench.analysis.metrics") > layer_of("sctpbench.model.spec")


def dot(g: dict[str, set[str]]) -> str:
    lines = ["digraph sctpbench {", "  rankdir=BT;"]
    lines += [f'  "{m}" -> "{d}";' for m, deps in sorted(g.items()) for d in sorted(deps)]
    return "\n".join(lines + ["}"]) + "\n"


if __name__ == "__main__":
    sys.stdout.write(dot(graph()))
