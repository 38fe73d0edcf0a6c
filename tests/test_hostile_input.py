"""Hostile input: every bad file, value, flag or folder is exit 2 with exactly one stderr
line naming the file, the line (where there is one), the key and what is allowed; no
traceback, nothing built, nothing created. In-process (cli.main) for speed; a few cases
as a subprocess prove that no traceback escapes the real command."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sctpbench import cli

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).parent / "hostile_inputs"
FILES = sorted(CASES.glob("*.yaml"))
BASE = "topology: dual-homed\nworkload: {client: client, server: server, duration: 5s}\n"


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command in-process; the one stderr line, after checking the contract."""
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert code == 2, (code, captured.err, captured.out[:500])
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("sctpbench: ") and "Traceback" not in captured.err
    assert len(lines[0]) < 1000, lines[0][:300]
    return lines[0].removeprefix("sctpbench: ")


def expectation(case: Path) -> str:
    return case.read_text(errors="replace").splitlines()[0].removeprefix("# expect: ")


def empty(folder: Path) -> bool:
    return not folder.exists() or not any(folder.iterdir())


# ---------------------------------------------------------------------------- the folder of case files


@pytest.mark.parametrize("command", ["plan", "run"])
@pytest.mark.parametrize("case", FILES, ids=[p.stem for p in FILES])
def test_case_file(case: Path, command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = [command, case] + (["--out", out] if command == "run" else [])
    line = refused(argv, capsys)
    assert line.startswith(f"{case.parent}/{expectation(case)}"), line[:400]
    assert not out.exists()


# ---------------------------------------------------------------------------- binary and encoding, every file kind

PAYLOADS = {
    "random": bytes(range(256)) * 4,
    "nul": b"topology: dual-homed\n\0\0\0\n",
    "latin1": "description: caf\xe9\n".encode("latin-1"),
    "utf16": "topology: dual-homed\n".encode("utf-16"),
    "png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + b"\0" * 64,
    "gzip": gzip.compress(b"topology: dual-homed\n" * 10),
}


def _kind_setup(kind: str, tmp_path: Path, payload: bytes) -> tuple[list[object], str]:
    """Files for one kind of input with `payload` in the file under test; argv and the
    start of the expected message (the file that holds the payload, or the key that names it)."""
    bad = tmp_path / "bad.bin"
    bad.write_bytes(payload)
    exp = tmp_path / "e.yaml"
    if kind == "experiment":
        return ["plan", bad], f"{bad}:"
    if kind == "topology":
        exp.write_text(f"topology: {bad}\nworkload: {{client: c, server: s, duration: 5s}}\n")
        return ["plan", exp], f"{exp}:1: topology: {bad}:"
    if kind == "trace":
        exp.write_text(BASE + f"events:\n  - {{at: 1s, trace: primary, field: delay, file: {bad}}}\n")
        return ["plan", exp], f"{exp}:4: events.0.file: {bad} is not a text file"
    if kind == "pattern":
        exp.write_text(f"topology:\n  use: dual-homed\n  emulator: true\n  paths: {{primary: {{drop_packets: {{file: {bad}}}}}}}\n"
                       "workload: {client: client, server: server, duration: 5s}\n")
        return ["plan", exp], f"{exp}:4: topology.paths.primary.drop_packets.file: {bad} is not a text file"
    if kind == "campaign":
        return ["campaign", "run", bad, "--out", tmp_path / "out"], f"{bad}:"
    if kind == "campaign-experiment":
        camp = tmp_path / "c.yaml"
        camp.write_text(f"experiment: {bad}\n")
        return ["campaign", "run", camp, "--out", tmp_path / "out"], f"{camp}: configuration (base): {bad}:"
    if kind == "mahimahi":
        return ["trace", "mahimahi", bad], f"{bad}:"
    raise AssertionError(kind)


KINDS = ["experiment", "topology", "trace", "pattern", "campaign", "campaign-experiment", "mahimahi"]


@pytest.mark.parametrize("payload", PAYLOADS, ids=list(PAYLOADS))
@pytest.mark.parametrize("kind", KINDS)
def test_binary_file(kind: str, payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, start = _kind_setup(kind, tmp_path, PAYLOADS[payload])
    line = refused(argv, capsys)
    assert line.startswith(start), line
    assert "not a text file" in line and "allowed: a UTF-8 text file" in line, line
    assert empty(tmp_path / "out")


# ---------------------------------------------------------------------------- YAML structure, aliases, size


def laughs(levels: int, width: int = 9) -> str:
    text = "a0: &a0 [" + ", ".join(["lol"] * width) + "]\n"
    for i in range(1, levels):
        text += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]\n"
    return text


STRUCTURE = {
    "laughs-9": (laughs(9), "more than 100000 values once aliases are expanded"),
    "laughs-6": (laughs(6), "more than 100000 values once aliases are expanded"),
    "laughs-wide": (laughs(3, 100), "more than 100000 values once aliases are expanded"),
    "laughs-maps": ("a: &a {x: 1, y: 1, z: 1, w: 1, v: 1, u: 1, t: 1, s: 1, r: 1, q: 1}\n"
                    + "".join(f"b{i}: &b{i} [" + ", ".join([f"*{'a' if i == 0 else f'b{i - 1}'}"] * 10) + "]\n" for i in range(6)),
                    "more than 100000 values once aliases are expanded"),
    "recursive": ("a: &a [1, *a]\n", ":1: an alias refers to a node that contains it"),
    "recursive-map": ("a: &a {b: *a}\n", ":1: an alias refers to a node that contains it"),
    "undefined-alias": ("a: *b\n", ":1: not valid YAML: found undefined alias"),
    "deep-list-65": ("a: " + "[" * 65 + "]" * 65 + "\n", ":1: nested more than 64 levels deep"),
    "deep-list-100k": ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", ":1: nested more than 64 levels deep"),
    "deep-map-1000": ("a: " + "{b: " * 1000 + "1" + "}" * 1000 + "\n", ":1: nested more than 64 levels deep"),
    "deep-block": ("".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "v\n", "nested more than 64 levels deep"),
    "unclosed": ("a: [1, 2\n", "not valid YAML"),
    "bad-indent": ("a:\n  b: 1\n c: 2\n", ":3: not valid YAML"),
    "tab": ("a:\n\tb: 1\n", ":2: not valid YAML"),
    "directive": ("%YAML 9.9\n---\na: 1\n", "not valid YAML"),
    "two-documents": ("a: 1\n---\nb: 2\n", "not valid YAML"),
    "python-tag": ("a: !!python/object/apply:os.system [true]\n", ":1: not valid YAML"),
    "unknown-tag": ("a: !custom 1\n", ":1: not valid YAML"),
    "bad-timestamp": ("a: 2024-02-30\n", ":1: '2024-02-30' cannot be read"),
    "long-int": ("a: " + "1" * 5000 + "\n", ":1: a number of 5000 characters; allowed: at most 100"),
    "long-float": ("a: 1." + "1" * 5000 + "\n", ":1: a number of 5002 characters"),
    "long-hex": ("a: 0x" + "f" * 5000 + "\n", ":1: a number of 5002 characters"),
    "dup-top": ("a: 1\nb: 2\na: 3\n", ":3: key 'a' is given twice (lines 1 and 3)"),
    "dup-deep": ("a:\n  b:\n    c: 1\n    c: 2\n", ":4: key 'c' is given twice (lines 3 and 4)"),
    "dup-in-list": ("a:\n  - {x: 1, y: 2, x: 3}\n", ":2: key 'x' is given twice"),
    "dup-int-key": ("1: a\n1: b\n", ":2: key '1' is given twice"),
    "unhashable": ("? [a]\n: 1\n", "not valid YAML"),
    "too-big": ("a: " + "x" * 1_100_000 + "\n", ": is larger than 1 MB; allowed: a UTF-8 text file of at most 1 MB"),
}
YAML_KINDS = ["experiment", "campaign", "topology"]


def _yaml_case(kind: str, tmp_path: Path, text: str) -> tuple[list[object], Path, str]:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    if kind == "experiment":
        return ["run", bad, "--out", tmp_path / "out"], bad, f"{bad}"
    if kind == "campaign":
        return ["campaign", "run", bad, "--out", tmp_path / "out"], bad, f"{bad}"
    exp = tmp_path / "e.yaml"
    exp.write_text(f"topology: {bad}\nworkload: {{client: c, server: s, duration: 5s}}\n")
    return ["run", exp, "--out", tmp_path / "out"], bad, f"{exp}:1: topology: {bad}"


@pytest.mark.parametrize("case", STRUCTURE, ids=list(STRUCTURE))
@pytest.mark.parametrize("kind", YAML_KINDS)
def test_yaml_structure(kind: str, case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = STRUCTURE[case]
    argv, bad, start = _yaml_case(kind, tmp_path, text)
    began = time.monotonic()
    line = refused(argv, capsys)
    assert time.monotonic() - began < 5, "a hostile file must fail fast"
    assert line.startswith(start) and expected in line, line
    assert empty(tmp_path / "out")
