"""Issue 35's table made again (scripts/mutation --table; docs/development.md, "How a test is judged").

Each mutation of table.toml is made in a copy of the project (never in the checkout), the unit
test named beside it is run, and the mutation undone: the test must pass on the code and fail
on the mutation. Prints one line a mutation; exits 1 when a test passed on its mutation.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from run import COPIED, SKIPPED

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Mutation:
    what: str
    file: str
    old: str
    new: str
    test: str


def mutations() -> list[Mutation]:
    return [Mutation(**m) for m in tomllib.loads((HERE / "table.toml").read_text())["mutation"]]


def copy(work: Path) -> None:
    """The project's current files, fresh: a mutation left by a stopped run must not stay."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in COPIED:
        source, target = ROOT / name, work / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=SKIPPED)
        else:
            shutil.copy2(source, target)


def fails(work: Path, *tests: str) -> bool:
    """Whether the tests fail, run in the copy (its sctpbench/ comes first on the path, ahead of the checkout's)."""
    command = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    return subprocess.run(command, cwd=work, capture_output=True, text=True).returncode != 0


def verdict(work: Path, mutation: Mutation) -> str:
    path = work / mutation.file
    text = path.read_text()
    if text.count(mutation.old) != 1:
        return f"gone: {mutation.what}: its line is not once in {mutation.file} (the code moved: table.toml's line to update)"
    path.write_text(text.replace(mutation.old, mutation.new))
    try:
        caught = fails(work, mutation.test)
    finally:
        path.write_text(text)
    return f"{'caught' if caught else 'SURVIVED'}: {mutation.what} ({mutation.test} {'failed' if caught else 'passed'})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/mutation --table", description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "sctpbench-mutation" / "table",
                        help="the copy of the project the mutations are made in (default: %(default)s)")
    args = parser.parse_args(argv)
    table = mutations()
    copy(args.work)
    if fails(args.work, *sorted({m.test for m in table})):
        print("the named tests fail on the code itself: a failure on a mutation would prove nothing", file=sys.stderr)
        return 1
    survived = 0
    for mutation in table:
        line = verdict(args.work, mutation)
        survived += not line.startswith("caught")
        print(line, flush=True)
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
