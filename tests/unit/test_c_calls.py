"""The C programs' files call downward: no two files of an agent or of udpgen need each
other, directly or round a longer loop, so each file can be read (and tested) after the
ones it uses; and the agents' shared part (common/) needs neither stack.

Each file is compiled on its own and `nm` says which global symbols its object defines and
which it needs; a file needs another when it uses a symbol the other defines. Symbols from
outside the program's folders (libc, libsctp, usrsctp, the agent files udpgen borrows) are
not edges.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.graph import cycles

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "sctpbench/workloads/agent"
STACKS = ("linux", "usrsctp")
# Each program: the folder its sources name others from (the Makefile's -I.) and its folders.
PROGRAMS = {"agent": (AGENT, ("linux", "common")), "agent-usrsctp": (AGENT, ("usrsctp", "common")),
            "udpgen": (ROOT / "sctpbench/workloads/udpgen", (".",))}
# As the Makefiles build them, minus optimisation: the symbols are what matters.
CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", '-DAGENT_REVISION="test"', '-DUDPGEN_REVISION="test"']


def _symbols(obj: Path, *options: str) -> set[str]:
    """Global symbol names `nm -P` lists for the object with these options."""
    out = subprocess.run(["nm", "-P", *options, str(obj)], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.split() and line.split()[1] not in "abdrtvw"}


def call_graph(sources: list[Path], build: Path, root: Path | None = None) -> dict[str, set[str]]:
    """File (its path under root, the sources' folder by default) → the files whose functions or data it uses."""
    defined: dict[str, str] = {}
    needed: dict[str, set[str]] = {}
    for source in sources:
        top = root or source.parent
        name = source.relative_to(top).as_posix()
        obj = build / f"{name.replace('/', '.')}.o"
        subprocess.run(["cc", *CFLAGS, "-I", str(top), "-c", str(source), "-o", str(obj)], check=True)
        defined |= {symbol: name for symbol in _symbols(obj, "--defined-only")}
        needed[name] = _symbols(obj, "--undefined-only")
    return {name: {defined[s] for s in symbols if s in defined and defined[s] != name} for name, symbols in needed.items()}


def _program_graph(program: str, build: Path) -> dict[str, set[str]]:
    root, folders = PROGRAMS[program]
    return call_graph(sorted(source for folder in folders for source in (root / folder).glob("*.c")), build, root)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_no_two_files_call_each_other(program: str, tmp_path: Path) -> None:
    assert cycles(_program_graph(program, tmp_path)) == []


@pytest.mark.parametrize("program", ["agent", "agent-usrsctp"])
def test_the_shared_part_calls_no_stack(program: str, tmp_path: Path) -> None:
    graph = _program_graph(program, tmp_path)
    assert {name: sorted(uses) for name, uses in graph.items()
            if name.startswith("common/") and any(use.split("/")[0] in STACKS for use in uses)} == {}


def stack_includes(source: Path) -> list[str]:
    """The includes of a file that name a stack: a stack's folder, the lksctp or the usrsctp header."""
    names = re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', source.read_text(), re.MULTILINE)
    return [n for n in names if n.split("/")[0] in STACKS or n.startswith("../") or n in ("netinet/sctp.h", "usrsctp.h")]


def test_the_shared_part_names_no_stack() -> None:
    shared = sorted((AGENT / "common").glob("*.[ch]"))
    assert shared
    assert {s.name: stack_includes(s) for s in shared if stack_includes(s)} == {}


def test_a_stack_include_is_seen(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text('#include "linux/sockopts.h"\n#include <netinet/sctp.h>\n#include "records.h"\n')
    assert stack_includes(tmp_path / "a.h") == ["linux/sockopts.h", "netinet/sctp.h"]


def test_the_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "ping.c").write_text("int pong(int n);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n")
    (tmp_path / "pong.c").write_text("int ping(int n);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n")
    (tmp_path / "main.c").write_text("int ping(int n);\nint main(void) { return ping(3); }\n")
    graph = call_graph(sorted(tmp_path.glob("*.c")), tmp_path)
    assert graph["main.c"] == {"ping.c"}
    assert cycles(graph) == [["ping.c", "pong.c"]]
