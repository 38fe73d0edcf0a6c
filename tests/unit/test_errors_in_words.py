"""Errors in the user's words (issue 34): a campaign whose experiment is a folder, a topology
named by --set, and a plan.json that is not a plan are refused with one line that says what
is wrong and what is allowed, worded as the same mistake elsewhere is, and with no Python
exception's name in it. The cases are data files (tests/data/hostile_inputs/in_words)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from sctpbench import cli

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests/data/hostile_inputs/in_words"
FILES = sorted(CASES.glob("*.yaml"))
# Words of Python, not of the person: an exception's class or pydantic's phrasing.
INTERNALS = ("KeyError", "JSONDecodeError", "TypeError", "AttributeError", "ValidationError", "Traceback",
             "valid dictionary or instance", "Input should be")


def _filled(text: str, tmp: Path) -> str:
    return text.replace("{tmp}", str(tmp)).replace("{root}", str(ROOT))


@pytest.mark.parametrize("case", FILES, ids=[p.stem for p in FILES])
def test_refused_in_words(case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec: dict[str, Any] = yaml.safe_load(case.read_text())
    for name, content in (spec.get("files") or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    code = cli.main([_filled(a, tmp_path) for a in spec["argv"]])
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("sctpbench: ")
    assert _filled(spec["expect"], tmp_path) in lines[0], lines[0]
    assert not [w for w in INTERNALS if w in lines[0]], lines[0]
    assert not (tmp_path / "out").exists()


def test_a_topology_by_set_is_worded_as_in_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    experiment = tmp_path / "e.yaml"
    experiment.write_text("topology: nosuch\nworkload: {client: client, server: server, duration: 5s}\n")
    assert cli.main(["plan", str(experiment)]) == 2
    in_file = capsys.readouterr().err.strip().removeprefix(f"sctpbench: {experiment}:1: ")
    assert cli.main(["plan", str(ROOT / "examples/failover.yaml"), "--set", "topology=nosuch"]) == 2
    by_set = capsys.readouterr().err.strip().removeprefix("sctpbench: --set topology=nosuch: ")
    assert by_set == in_file


def test_a_topology_by_set_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--set topology=NAME loads the named topology, as the key in the file does."""
    assert cli.main(["plan", str(ROOT / "examples/failover.yaml"), "--set", "topology=dual-homed"]) == 0
