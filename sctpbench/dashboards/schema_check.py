"""The dashboards type-checked against Grafana's own TypeScript types (npm `@grafana/schema`).

Each dashboard becomes `export const dashboard: Json<Dashboard> = <its JSON>;` and
`tsc --noEmit --strict` checks it: a value of the wrong type, a missing required field or a key
the model does not have (a typo: object literals get TypeScript's excess-property check) is an
error. `Dashboard` is the package's own (the veneer type Grafana's frontend uses for the classic
JSON model). `Json<T>` only bridges JSON and TypeScript: the types declare string enums (a value
mapping's `type` is `MappingType.ValueToText`), which a JSON file can only hold as their string
value (`"value"`), so Json<T> turns each string enum into the union of its values and leaves
everything else as declared.

A few fields Grafana reads are not in the types: they are DEVIATIONS, each with its reason,
and the check removes exactly those before type-checking. One that no dashboard holds any more,
or that the types accept by now, is reported, so the list cannot outlive its reasons.

The tools are pinned in `npm/package.json` and `npm/package-lock.json` beside this module and
installed with npm into the cache outside the clone (`install()`, run by scripts/install).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sctpbench.backends.uml.kernel import cache_root

NPM_PROJECT = Path(__file__).resolve().parent / "npm"
TS_PRELUDE = """\
import type { Dashboard } from "@grafana/schema";

// JSON holds a string enum's values, not its members (see schema_check.py).
type Json<T> = T extends string ? `${T}`
  : T extends ReadonlyArray<infer U> ? Array<Json<U>>
  : T extends object ? { [K in keyof T]: Json<T[K]> }
  : T;

export const dashboard: Json<Dashboard> = """
TSCONFIG = {
    "compilerOptions": {
        "strict": True, "noEmit": True, "module": "nodenext", "moduleResolution": "nodenext",
        "target": "es2022", "lib": ["es2022"], "types": [],
        # Only our files are checked: the package's own declarations are its authors' business.
        "skipLibCheck": True,
    },
    "include": ["*.ts"],
}
TSC_ERROR = re.compile(r"^(?P<file>[^()\s]+\.ts)\((?P<line>\d+),(?P<col>\d+)\): error (?P<message>.*)$")


@dataclass(frozen=True)
class Deviation:
    """A field Grafana reads that @grafana/schema's types do not declare."""

    path: tuple[str, ...]  # keys from the dashboard's root; "*" is every element of a list
    reason: str

    @property
    def name(self) -> str:
        return ".".join(self.path)


_INFLUX_TARGET = (
    "The InfluxDB datasource's own query fields: Grafana's InfluxDB plugin reads the annotation's "
    "`target` as its InfluxQuery; the schema types `target` as a bare DataQuery (refId, hide, "
    "datasource) and the package has no InfluxDB query type.")
_INFLUX_LEGACY = (
    "The InfluxDB datasource's legacy annotation form (Grafana before annotations had a `target`): "
    "the plugin's prepareAnnotation builds a target from the top-level query, textColumn and "
    "tagsColumn when the target has no query; the schema's AnnotationQuery is datasource-neutral.")

DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(("templating", "list", "*", "definition"),
              "A query variable's `definition` is the query text Grafana's variable editor saves and "
              "its variables list shows; @grafana/data's QueryVariableModel has it, the schema's "
              "VariableModel does not."),
    Deviation(("annotations", "list", "*", "query"), f"The annotation's InfluxQL. {_INFLUX_LEGACY}"),
    Deviation(("annotations", "list", "*", "textColumn"), f"Column shown as the annotation's text. {_INFLUX_LEGACY}"),
    Deviation(("annotations", "list", "*", "tagsColumn"), f"Column shown as the annotation's tags. {_INFLUX_LEGACY}"),
    Deviation(("annotations", "list", "*", "target", "query"), f"The annotation's InfluxQL. {_INFLUX_TARGET}"),
    Deviation(("annotations", "list", "*", "target", "rawQuery"),
              f"InfluxQL written as text, not built in the query editor. {_INFLUX_TARGET}"),
    Deviation(("annotations", "list", "*", "target", "textColumn"),
              f"Column shown as the annotation's text, where Grafana 10/11 read it. {_INFLUX_TARGET}"),
    Deviation(("annotations", "list", "*", "target", "tagsColumn"),
              f"Column shown as the annotation's tags, where Grafana 10/11 read them. {_INFLUX_TARGET}"),
)


def strip(dashboard: dict[str, Any], deviations: tuple[Deviation, ...] = DEVIATIONS) -> tuple[dict[str, Any], dict[str, int]]:
    """A copy without the deviations' fields, and how many fields each deviation removed."""
    out = copy.deepcopy(dashboard)
    return out, {d.name: _remove(out, d.path) for d in deviations}


def _remove(node: Any, path: tuple[str, ...]) -> int:
    head, rest = path[0], path[1:]
    if head == "*":
        return sum(_remove(item, rest) for item in node) if isinstance(node, list) else 0
    if not isinstance(node, dict) or head not in node:
        return 0
    if not rest:
        del node[head]
        return 1
    return _remove(node[head], rest)


def render(dashboard: dict[str, Any]) -> str:
    """The TypeScript module that holds the dashboard as a constant of Grafana's type."""
    return TS_PRELUDE + json.dumps(dashboard, indent=2) + ";\n"


@dataclass
class Result:
    errors: dict[str, list[str]] = field(default_factory=dict)  # dashboard uid -> tsc's errors
    unused: list[str] = field(default_factory=list)  # deviations no dashboard holds
    accepted: list[str] = field(default_factory=list)  # deviations the types accept by now

    @property
    def ok(self) -> bool:
        return not (any(self.errors.values()) or self.unused or self.accepted)

    def describe(self) -> str:
        lines = [f"{uid}: {e}" for uid, errs in self.errors.items() for e in errs]
        lines += [f"deviation {n} occurs in no dashboard: remove it from schema_check.DEVIATIONS" for n in self.unused]
        lines += [f"deviation {n} is accepted by @grafana/schema now: remove it from schema_check.DEVIATIONS"
                  for n in self.accepted]
        return "\n".join(lines)


def check(dashboards: dict[str, dict[str, Any]], tools: Path,
          deviations: tuple[Deviation, ...] = DEVIATIONS) -> Result:
    """Type-check every dashboard (uid -> JSON) with the deviations removed, in one tsc run.

    Beside each dashboard, one file per deviation keeps just that deviation (in the first
    dashboard holding it): it must fail, or the types have come to accept the field.
    """
    files: dict[str, str] = {}
    counts: dict[str, int] = dict.fromkeys((d.name for d in deviations), 0)
    probes: dict[str, str] = {}
    for uid, board in dashboards.items():
        stripped, removed = strip(board, deviations)
        files[f"dashboard_{_ident(uid)}.ts"] = render(stripped)
        for d in deviations:
            counts[d.name] += removed[d.name]
            if removed[d.name] and d.name not in probes:
                kept, _ = strip(board, tuple(o for o in deviations if o is not d))
                probes[d.name] = f"deviation_{len(probes)}.ts"
                files[probes[d.name]] = render(kept)
    errors = _tsc(files, tools)
    return Result(
        errors={uid: errors.get(f"dashboard_{_ident(uid)}.ts", []) for uid in dashboards},
        unused=[n for n, c in counts.items() if c == 0],
        accepted=[n for n, f in probes.items() if not errors.get(f)],
    )


def _ident(uid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", uid)


def _tsc(files: dict[str, str], tools: Path) -> dict[str, list[str]]:
    """tsc's errors per file (as `line:col message`); raises when tsc fails otherwise."""
    with tempfile.TemporaryDirectory(prefix="sctpbench-schema-") as tmp:
        work = Path(tmp)
        (work / "node_modules").symlink_to(tools / "node_modules")
        (work / "tsconfig.json").write_text(json.dumps(TSCONFIG))
        for name, text in files.items():
            (work / name).write_text(text)
        proc = subprocess.run(["node", str(tools / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json",
                               "--pretty", "false"], cwd=work, capture_output=True, text=True, timeout=300)
    out: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():
        m = TSC_ERROR.match(line)
        if m:
            out.setdefault(m["file"], []).append(f"{m['line']}:{m['col']} {m['message']}")
    if (proc.returncode == 0) == bool(out) or proc.returncode not in (0, 1, 2):
        raise RuntimeError(f"tsc failed (exit {proc.returncode}): {(proc.stdout + proc.stderr).strip()[:2000]}")
    return out


def pinned() -> dict[str, str]:
    """The npm packages and their exact versions, from npm/package.json."""
    deps: dict[str, str] = json.loads((NPM_PROJECT / "package.json").read_text())["dependencies"]
    return deps


def tools_dir() -> Path:
    """Where install() puts the pinned packages: named by their versions, outside the clone."""
    versions = "-".join(f"{name.lstrip('@').replace('/', '-')}-{v}" for name, v in sorted(pinned().items()))
    return cache_root() / f"npm-schema-{versions}"


def installed() -> bool:
    return (tools_dir() / "node_modules" / "typescript" / "bin" / "tsc").is_file() and (
        tools_dir() / "node_modules" / "@grafana" / "schema" / "package.json").is_file()


def install() -> Path:
    """Install the pinned packages once (npm ci from the lockfile); a second call does nothing.

    npm works in a fresh folder renamed into place at the end, so an interrupted install
    leaves no half-filled cache behind.
    """
    target = tools_dir()
    if installed():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (Debian packages nodejs and npm)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{target.name}-", dir=target.parent) as tmp:
        staging = Path(tmp) / "tools"
        staging.mkdir()
        for name in ("package.json", "package-lock.json"):
            shutil.copy(NPM_PROJECT / name, staging / name)
        subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                       cwd=staging, check=True, timeout=600)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return target
