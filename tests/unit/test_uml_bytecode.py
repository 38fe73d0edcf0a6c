"""The guest imports the project from the host's tree, read-only: the host writes the bytecode
of everything the guest's engines import before each boot, or the guest compiles those
modules again at every boot (backends/uml/backend.py: compile_guest_side)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

from sctpbench.backends.mininet.backend import GUEST_ENTRY as MININET_ENTRY
from sctpbench.backends.protocol import OFF_HOST, PACKAGE
from sctpbench.backends.uml import backend

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_the_guest_imports_is_in_what_the_host_compiles() -> None:
    # As the guest starts them (init.sh): -S, from the project root.
    listing = "import sys, importlib; [importlib.import_module(m) for m in sys.argv[1:]]; " \
              "print('\\n'.join(m.__file__ for n, m in sys.modules.items() if n.startswith('sctpbench')))"
    files = subprocess.run([sys.executable, "-S", "-c", listing, backend.GUEST_ENTRY, MININET_ENTRY], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    parts = [Path(f).resolve().relative_to(PACKAGE).parts for f in files]
    assert parts
    outside = sorted("/".join(p) for p in parts if p[0] not in OFF_HOST)
    assert not outside, f"the guest imports modules the host does not compile: {outside}"


def test_the_host_writes_current_bytecode_for_the_guest_side(tmp_path: Path) -> None:
    package = tmp_path / "sctpbench"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    backend.compile_guest_side(package)
    for part in OFF_HOST:
        for source in [package / part] if part.endswith(".py") else (package / part).rglob("*.py"):
            cached = Path(importlib.util.cache_from_source(str(source)))
            assert cached.exists(), cached
            header = cached.read_bytes()[:16]
            assert header[:4] == importlib.util.MAGIC_NUMBER
            assert int.from_bytes(header[8:12], "little") == int(source.stat().st_mtime), source
    assert not list((package / "analysis").rglob("*.pyc")), "only what the guest imports"
