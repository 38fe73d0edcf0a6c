"""Mutation testing, module by module (scripts/mutation; docs/development.md, "How a test is judged").

For each module of modules.toml: a copy of the project (sctpbench/, tests/, pyproject.toml) in
a work folder of its own, a mutmut configuration (setup.cfg there) that mutates that module
only and runs only its unit tests, `mutmut run` under nice, then the score: killed over all
mutants less the equivalent ones that survivors.md names. The work folder is kept, so a second
run only tries what changed (and `--again` re-tries the survivors after a new test).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
COPIED = ("sctpbench", "tests", "examples", "reproductions", "pyproject.toml")  # tests read examples/ and the shipped tables too
DATA = ("examples", "reproductions")  # what mutmut copies beside its mutants (also_copy)
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "mutants", ".pytest_cache")
EQUIVALENT = re.compile(r"^- `(?P<name>[^`]+)`.*\bequivalent\b", re.MULTILINE)


def modules() -> dict[str, list[str]]:
    return dict(tomllib.loads((HERE / "modules.toml").read_text())["modules"])


def equivalents() -> set[str]:
    """Mutants survivors.md explains as equivalent: `- `NAME` … equivalent …` lines."""
    return {m["name"] for m in EQUIVALENT.finditer((HERE / "survivors.md").read_text())}


def work_folder(base: Path, module: str) -> Path:
    return base / re.sub(r"[^A-Za-z0-9]+", "-", module.removeprefix("sctpbench/").removesuffix(".py")).strip("-")


def prepare(work: Path, module: str, tests: list[str]) -> None:
    """The project's current files over the last copy (mutmut keeps its own under mutants/)."""
    work.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        source, target = ROOT / name, work / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=SKIPPED, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
    selection = "\n    ".join(tests)
    data = "\n    ".join(DATA)
    (work / "setup.cfg").write_text(f"[mutmut]\nsource_paths=sctpbench\nonly_mutate={module}\nalso_copy=\n    {data}\n"
                                    f"pytest_add_cli_args_test_selection=\n    {selection}\n")


def mutmut(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = ["nice", "-n", "19", str(Path(sys.executable).parent / "mutmut"), *args]
    return subprocess.run(command, cwd=work, capture_output=True, text=True, env=os.environ | {"TERM": "dumb"})


def survivors(work: Path) -> list[str]:
    listed = mutmut(work, "results").stdout
    return sorted(line.strip().rsplit(":", 1)[0] for line in listed.splitlines() if line.strip().endswith(": survived"))


def score(work: Path, module: str, known: set[str]) -> str:
    mutmut(work, "export-cicd-stats")
    stats = json.loads((work / "mutants/mutmut-cicd-stats.json").read_text())
    alive = survivors(work)
    equivalent = [s for s in alive if s in known]
    counted = stats["total"] - len(equivalent)
    killed = stats["killed"] + stats["timeout"]
    percent = 100 * killed / counted if counted else 100.0
    lines = [f"{module}: {percent:.1f} % ({killed} killed of {counted}; {stats['total']} mutants, "
             f"{len(equivalent)} equivalent, {len(alive) - len(equivalent)} survived, {stats['no_tests']} without a test)"]
    lines += [f"  survived: {s}" for s in alive if s not in known]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/mutation", description=__doc__.splitlines()[0])
    parser.add_argument("module", nargs="*", help="modules as modules.toml names them (default: every one, in order)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "sctpbench-mutation",
                        help="where the copies and mutmut's state are kept (default: %(default)s)")
    parser.add_argument("--children", type=int, default=2, help="mutants tried at once (default: %(default)s)")
    parser.add_argument("--again", action="store_true", help="re-try the last run's survivors (after a new test)")
    args = parser.parse_args(argv)
    every = modules()
    unknown = [m for m in args.module if m not in every]
    if unknown:
        parser.error(f"{unknown[0]} is not in {HERE / 'modules.toml'}; allowed: {', '.join(every)}")
    known = equivalents()
    for module in args.module or list(every):
        work = work_folder(args.work, module)
        prepare(work, module, every[module])
        names = survivors(work) if args.again and (work / "mutants").exists() else []
        run = mutmut(work, "run", "--max-children", str(args.children), *names)
        if run.returncode != 0:
            print(f"{module}: mutmut failed ({run.returncode}); its output: {work}", file=sys.stderr)
            (work / "run.log").write_text(run.stdout + run.stderr)
            return 1
        print(score(work, module, known), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
