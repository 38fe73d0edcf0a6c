"""The C programs' files call downward: no two files of the agent or of udpgen need each
other, directly or round a longer loop, so each file can be read (and tested) after the
ones it uses.

Each file is compiled on its own and `nm` says which global symbols its object defines and
which it needs; a file needs another when it uses a symbol the other defines. Symbols from
outside the folder (libc, libsctp, the agent files udpgen borrows) are not edges.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.graph import cycles

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = {"agent": ROOT / "sctpbench/workloads/agent", "udpgen": ROOT / "sctpbench/workloads/udpgen"}
# As the Makefiles build them, minus optimisation: the symbols are what matters.
CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", '-DAGENT_REVISION="test"', '-DUDPGEN_REVISION="test"']


def _symbols(obj: Path, *options: str) -> set[str]:
    """Global symbol names `nm -P` lists for the object with these options."""
    out = subprocess.run(["nm", "-P", *options, str(obj)], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.split() and line.split()[1] not in "abdrtvw"}


def call_graph(sources: list[Path], build: Path) -> dict[str, set[str]]:
    """File name → the files whose functions or data it uses."""
    defined: dict[str, str] = {}
    needed: dict[str, set[str]] = {}
    for source in sources:
        obj = build / f"{source.stem}.o"
        subprocess.run(["cc", *CFLAGS, "-I", str(source.parent), "-c", str(source), "-o", str(obj)], check=True)
        defined |= {symbol: source.name for symbol in _symbols(obj, "--defined-only")}
        needed[source.name] = _symbols(obj, "--undefined-only")
    return {name: {defined[s] for s in symbols if s in defined and defined[s] != name} for name, symbols in needed.items()}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_no_two_files_call_each_other(program: str, tmp_path: Path) -> None:
    graph = call_graph(sorted(PROGRAMS[program].glob("*.c")), tmp_path)
    assert cycles(graph) == []


def test_the_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "ping.c").write_text("int pong(int n);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n")
    (tmp_path / "pong.c").write_text("int ping(int n);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n")
    (tmp_path / "main.c").write_text("int ping(int n);\nint main(void) { return ping(3); }\n")
    graph = call_graph(sorted(tmp_path.glob("*.c")), tmp_path)
    assert graph["main.c"] == {"ping.c"}
    assert cycles(graph) == [["ping.c", "pong.c"]]
