"""Mutation testing, module by module (scripts/mutation; docs/development.md, "How a test is judged").

For each module of modules.toml: a copy of the project (sctpbench/, tests/, pyproject.toml) in
a work folder of its own, a mutmut configuration (setup.cfg there) that mutates that module
only and runs only its unit tests, `mutmut run` under nice, then the score: killed over all
mutants less the equivalent ones that survivors.md names. The work folder is kept, so a second
run only tries what changed (and `--again` re-tries the survivors after a new test).

A module named by a glob (sctpbench/results/*) may be run one file at a time: `scripts/mutation
sctpbench/results/cost.py` tries only that file's mutants, in the glob's work folder with its
tests, and scores that file; a run stopped part way still leaves each finished file's score.
"""

from __future__ import annotations

import argparse
import fnmatch
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


def statuses(work: Path, prefix: str = "") -> dict[str, str]:
    """Each mutant's status as mutmut gives it (killed, survived, timeout, not checked, …), of the
    mutants whose names start with prefix (one file's: `sctpbench.results.cost.`)."""
    listed = mutmut(work, "results", "--all", "true").stdout
    found = (line.strip().rsplit(": ", 1) for line in listed.splitlines() if ": " in line)
    return {name: status for name, status in found if name.startswith(prefix)}


def survivors(work: Path, prefix: str = "") -> list[str]:
    return sorted(name for name, status in statuses(work, prefix).items() if status == "survived")


def score(work: Path, module: str, known: set[str], prefix: str = "") -> str:
    found = statuses(work, prefix)
    alive = sorted(name for name, status in found.items() if status == "survived")
    equivalent = [s for s in alive if s in known]
    counted = len(found) - len(equivalent)
    killed = sum(status in ("killed", "timeout") for status in found.values())
    untried = sum(status == "not checked" for status in found.values())
    no_tests = sum(status == "no tests" for status in found.values())
    percent = 100 * killed / counted if counted else 100.0
    lines = [f"{module}: {percent:.1f} % ({killed} killed of {counted}; {len(found)} mutants, "
             f"{len(equivalent)} equivalent, {len(alive) - len(equivalent)} survived, {no_tests} without a test"
             + (f", {untried} untried: the run was stopped" if untried else "") + ")"]
    lines += [f"  survived: {s}" for s in alive if s not in known]
    return "\n".join(lines)


def entry(name: str, every: dict[str, list[str]]) -> tuple[str, str] | None:
    """modules.toml's entry for a module named on the command line, and the prefix of its
    mutants' names when it is one file of an entry's glob; None when no entry has it."""
    if name in every:
        return name, ""
    glob = next((g for g in every if "*" in g and fnmatch.fnmatch(name, g) and name.endswith(".py")), None)
    return None if glob is None else (glob, name.removesuffix(".py").replace("/", ".") + ".")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/mutation", description=__doc__.splitlines()[0])
    parser.add_argument("module", nargs="*", help="modules as modules.toml names them (default: every one, in order)")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "sctpbench-mutation",
                        help="where the copies and mutmut's state are kept (default: %(default)s)")
    parser.add_argument("--children", type=int, default=2, help="mutants tried at once (default: %(default)s)")
    parser.add_argument("--again", action="store_true", help="re-try the last run's survivors (after a new test)")
    args = parser.parse_args(argv)
    every = modules()
    unknown = [m for m in args.module if entry(m, every) is None]
    if unknown:
        parser.error(f"{unknown[0]} is not in {HERE / 'modules.toml'}; allowed: {', '.join(every)} "
                     "(or one file of a glob)")
    known = equivalents()
    for name in args.module or list(every):
        module, prefix = entry(name, every) or (name, "")
        work = work_folder(args.work, module)
        prepare(work, module, every[module])
        again = args.again and (work / "mutants").exists()
        names = survivors(work, prefix) if again else []
        if prefix and not names:
            if again:  # none survived: nothing of the glob's other files to try
                print(score(work, name, known, prefix), flush=True)
                continue
            names = [prefix + "*"]  # the file's mutants, each tried again
        run = mutmut(work, "run", "--max-children", str(args.children), *names)
        if run.returncode != 0 and prefix and not statuses(work, prefix):
            print(f"{name}: no mutants (no function to mutate)", flush=True)
            continue
        if run.returncode != 0:
            print(f"{name}: mutmut failed ({run.returncode}); its output: {work}", file=sys.stderr)
            (work / "run.log").write_text(run.stdout + run.stderr)
            return 1
        print(score(work, name, known, prefix), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
