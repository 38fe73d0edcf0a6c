"""Hostile input: every bad file, value, flag or folder is exit 2 with exactly one stderr
line naming the file, the line (where there is one), the key and what is allowed; no
traceback, nothing built, nothing created. In-process (cli.main) for speed; a few cases
as a subprocess prove that no traceback escapes the real command."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sctpbench import cli

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parents[1] / "data" / "hostile_inputs"
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
    began = time.process_time()  # CPU time: what a blow-up costs, whatever the machine's load
    line = refused(argv, capsys)
    assert time.process_time() - began < 5, "a hostile file must be refused without seconds of work"
    assert line.startswith(start) and expected in line, line
    assert empty(tmp_path / "out")


# ---------------------------------------------------------------------------- values out of bounds, through --set

# (KEY=VALUE, what the message says after "--set KEY=VALUE: KEY:")
BOUNDS = [
    ("workload.rate=.inf", "inf is not a finite number"),
    ("workload.rate=.nan", "nan is not a finite number"),
    ("workload.rate=-.inf", "-inf is not a finite number"),
    ("workload.rate=1000000000", "out of range; allowed: 0.001 to 1e+06 messages per second"),
    ("workload.rate=1000001/s", "out of range"),
    ("workload.rate=0", "not a positive message rate"),
    ("workload.rate=-5", "not a positive message rate"),
    ("workload.rate=" + "9" * 90, "not a finite number"),
    ("workload.duration=1000000min", "too large; allowed: a duration up to 604800s"),
    ("workload.duration=" + "9" * 5000 + "ms", "is not a duration"),
    ("workload.duration=1e400s", "is not a duration"),
    ("workload.duration=0", "out of range; allowed: at least 1ms"),
    ("workload.duration=999us", "out of range; allowed: at least 1ms"),
    ("workload.duration=5", "the unit is missing"),
    ("workload.duration=.nan", "is not a duration"),
    ("workload.start=604800s", "start + duration is 604809s"),
    ("workload.size=1MB", "out of range; allowed: at most 65536"),
    ("workload.size=" + "9" * 5000, "is not a size; allowed: a number of bytes"),
    ("workload.streams=70000", "out of range; allowed: at most 65535"),
    ("workload.port=0", "out of range; allowed: at least 1"),
    ("workload.port=65536", "out of range; allowed: at most 65535"),
    ("topology.paths.primary.rate=100000000000000gbit", "too large; allowed: a rate up to 34000gbit"),
    ("topology.paths.primary.rate=1e300gbit", "is not a rate"),
    ("topology.paths.primary.rate=999bit", "too small; allowed: a rate from 1kbit"),
    ("topology.paths.primary.rate=0mbit", "not a positive rate"),
    ("topology.paths.primary.delay=100000min", "too large; allowed: a delay up to 274s"),
    ("topology.paths.primary.delay=275s", "too large; allowed: a delay up to 274s"),
    ("topology.paths.primary.delay=-1ms", "is not a duration"),
    ("topology.paths.primary.jitter=3s", "too large; allowed: a jitter up to 2147ms"),
    ("topology.paths.primary.loss=101%", "out of range; allowed: a percentage"),
    ("topology.paths.primary.loss=.nan", "not a finite number"),
    ("topology.paths.primary.loss=" + "1" * 200, "is not a percentage"),
    ("topology.paths.primary.queue=0", "out of range; allowed: at least 1"),
    ("topology.paths.primary.queue=4294967296", "out of range; allowed: at most 4294967295"),
    ("topology.paths.primary.reverse.delay=1000s", "too large; allowed: a delay up to 274s"),
    ("sctp.rto_max=2day", "is not a duration"),
    ("sctp.rto_max=1441min", "out of range; allowed: at most 86400s"),
    ("sctp.rto_initial=86401s", "out of range; allowed: at most 86400s"),
    ("sctp.hb_interval=86401s", "out of range; allowed: at most 86400s"),
    ("sctp.sack_delay=501ms", "allowed: 1ms to 500ms"),
    ("sctp.rto_min=100500us", "the kernel takes whole milliseconds"),
    ("sctp.pf_retrans=65536", "out of range; allowed: at most 65535"),
    ("sctp.path_max_retrans=2147483648", "out of range; allowed: at most 2147483647"),
    ("sctp.association_max_retrans=0", "out of range; allowed: at least 1"),
    ("sctp.streams=0", "out of range; allowed: at least 1"),
    ("sctp.rcvbuf=3000MiB", "too large; allowed: a size up to 2147483647B"),
    ("sctp.sndbuf=1KB", "out of range; allowed: at least 4096"),
    ("seed=-1", "out of range; allowed: at least 0"),
    ("seed=18446744073709551616", "out of range; allowed: at most 18446744073709551615"),
    ("repeat=0", "out of range; allowed: at least 1"),
    ("repeat=10001", "out of range; allowed: at most 10000"),
    ("name=" + "n" * 101, "too long; allowed: at most 100 characters"),
    ("name=" + "n" * 100_000, "too long; allowed: at most 100 characters"),
    ("name=a/b", "not a valid name; allowed: letters, digits, _ . -"),
    ("name=.hidden", "not a valid name"),
    ("clock=wall", "is not allowed; allowed: 'virtual', 'paced' or 'real'"),
    ("influx.url=ftp://db", "'ftp://db' is not a"),
    ("influx.url=http://db:8086/path", "allowed: http"),
    ("influx.url=" + "h" * 5000, "allowed: http"),
    ("influx.batch=0", "out of range; allowed: at least 1"),
    ("measure.sample_interval=2000000min", "too large; allowed: a duration up to 604800s"),
    ("measure.calibration_tolerance=.inf", "not a finite number"),
    ("vary.start=-1s", "is not a duration"),
]


@pytest.mark.parametrize("override, expected", BOUNDS, ids=[b[0][:40] for b in BOUNDS])
def test_bound_via_set_is_blamed_on_set(override: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = override.split("=", 1)[0]
    line = refused(["run", ROOT / "examples/failover.yaml", "--set", override, "--out", tmp_path / "out"], capsys)
    assert line.startswith(f"--set {override[:60]}"), line[:200]
    assert f": {key}" in line or "start + duration" in expected
    assert "lower-case letters" not in line or ".url" not in key  # a URL is not judged by the rule for names
    assert expected in line, line[:400]
    assert not (tmp_path / "out").exists()


IN_FILE = [b for b in BOUNDS if len(b[0]) < 100][:40]


@pytest.mark.parametrize("override, expected", IN_FILE, ids=[b[0][:40] for b in IN_FILE])
def test_bound_in_a_file_is_blamed_on_its_line(override: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same values written into a file: the message names the file and the key's line."""
    key, value = override.split("=", 1)
    parts = key.split(".")
    doc: dict = {}
    node = doc
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = "@@"
    base = "topology:\n  use: dual-homed\nworkload: {client: client, server: server, duration: 5s}\n"
    if parts[0] == "topology":
        text = base.replace("  use: dual-homed\n", "  use: dual-homed\n  paths:\n    primary:\n      " +
                            (f"{parts[3]}:\n        {parts[4]}: {value}\n" if len(parts) == 5 else f"{parts[3]}: {value}\n"))
        line_no = 5 if len(parts) == 4 else 6
    elif parts[0] == "workload":
        text = base.replace("duration: 5s}", f"duration: 5s, {parts[1]}: {value}}}") if parts[1] != "duration" else \
            base.replace("duration: 5s}", f"duration: {value}}}")
        line_no = 3
    else:
        text = base + f"{parts[0]}:\n  {parts[1]}: {value}\n"
        line_no = 5
    exp = tmp_path / "e.yaml"
    exp.write_text(text)
    line = refused(["plan", exp], capsys)
    if "start + duration" in expected:
        line_no, key, expected = 3, "workload.duration", "start + duration is 604805s"
    assert line.startswith(f"{exp}:{line_no}: {key}: "), (line[:300], text[:300])
    assert expected in line, line[:300]


# ---------------------------------------------------------------------------- --set itself

SET_ERRORS = [
    ("sctp.rto_min", "expected KEY=VALUE"),
    ("=5", "expected KEY=VALUE"),
    ("sctp..rto_min=1s", "expected KEY=VALUE"),
    ("events.9.at=1s", "events.9: no such list item"),
    ("events.x.at=1s", "events.x: no such list item"),
    ("events." + "9" * 5000 + ".at=1s", "no such list item"),
    ("name.first=x", "name is not a mapping"),
    ("sctp.rto_min.value=1s", "sctp.rto_min is not a mapping"),
    ("colour=red", "colour: unknown key"),
    ("sctp.rto_minimum=1s", "sctp.rto_minimum: unknown key"),
    ("sctp={rto_min: soon}", "sctp.rto_min: 'soon' is not a duration"),
    ("sctp={rto_min: 1s, rto_min: 2s}", "sctp: "),
    ("workload=[1, 2]", "workload: "),
    ("topology=/etc/passwd", "topology: "),
    ("events=&a [*a]", "events: "),
    ("events.0={at: 1s, fail: nowhere}", "events.0.fail: unknown path 'nowhere'"),
    ("events.0.fail=" + "p" * 1000, "events.0.fail: "),
]


@pytest.mark.parametrize("override, expected", SET_ERRORS, ids=[s[0][:40] for s in SET_ERRORS])
def test_set_errors_name_the_set(override: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["run", ROOT / "examples/failover.yaml", "--set", override, "--out", tmp_path / "out"], capsys)
    assert line.startswith(f"--set {override[:60]}"), line[:200]
    assert expected in line, line[:300]
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------- output paths and flags


def _out_cases(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    return {
        "file": (a_file, "is a file; allowed: a folder"),
        "under-file": (a_file / "sub", "is a file, not a folder"),
        "proc": (Path("/proc/sctpbench-results"), "under /proc, a kernel file system"),
        "proc-self": (Path("/proc/self/results"), "a kernel file system"),
        "sys": (Path("/sys/kernel/x"), "a kernel file system"),
        "dev": (Path("/dev/null"), "a kernel file system"),
        "long-name": (tmp_path / ("n" * 300), "too long"),
        "long-path": (tmp_path / "/".join(["d" * 200] * 30), "too long"),
        "unwritable": (locked / "out", "is not writable"),
        "locked": (locked, "is not writable"),
    }


def _lock_for_root_too(folder: Path, request: pytest.FixtureRequest) -> None:
    """Mode 0500 stops anyone but root, and the tests run as root in CI: an immutable folder
    (chattr +i) refuses every write, root's too; undone at teardown so tmp_path can go."""
    if os.geteuid() != 0:
        return
    made = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True)
    if made.returncode != 0:  # no CAP_LINUX_IMMUTABLE, or a file system without the flag
        pytest.skip(f"root writes anywhere, and chattr +i failed: {made.stderr.strip()}")
    request.addfinalizer(lambda: subprocess.run(["chattr", "-i", str(folder)], check=True))


OUT_KINDS = ["file", "under-file", "proc", "proc-self", "sys", "dev", "long-name", "long-path", "unwritable", "locked"]


@pytest.mark.parametrize("out", OUT_KINDS)
@pytest.mark.parametrize("command", ["run", "campaign", "check", "influx", "dashboards", "report"])
def test_bad_output_path(command: str, out: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                         request: pytest.FixtureRequest) -> None:
    path, expected = _out_cases(tmp_path)[out]
    if out in ("unwritable", "locked"):
        _lock_for_root_too(tmp_path / "locked", request)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "plan.json").write_text("{}")
    argv: list[object] = {
        "run": ["run", ROOT / "examples/failover.yaml", "--out", path],
        "campaign": ["campaign", "run", ROOT / "tests/data/campaigns/tiny.yaml", "--out", path],
        "check": ["check", "--calibrate", ROOT / "examples/failover.yaml", "--out", path],
        "influx": ["influx", "start", "--dir", path, "--port", "18086"],
        "dashboards": ["dashboards", "export", path],
        "report": ["report", run_dir, "--out", path],
    }[command]
    if command == "report" and out == "file":
        path, expected = tmp_path / "run", "is a folder; allowed: a file to write"
        argv = ["report", run_dir, "--out", path]
    if command == "run":  # the run's own check (cli/run.py's check_results_folder) words these
        expected = {"file": "not a folder", "under-file": "cannot create the results folder: Not a directory",
                    "unwritable": "cannot create the results folder", "locked": "cannot write into the results folder"
                    }.get(out, expected)
    before = sorted(p.name for p in tmp_path.iterdir())
    line = refused(argv, capsys)
    assert expected in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert sorted(p.name for p in run_dir.iterdir()) == ["plan.json"]


FLAGS = [
    (["influx", "start", "--port", "99999"], "--port 99999: out of range; allowed: a TCP port from 1 to 65535"),
    (["influx", "start", "--port", "0"], "--port 0: out of range"),
    (["influx", "start", "--port", "-1"], "--port -1: out of range"),
    (["influx", "status", "--port", "70000"], "--port 70000: out of range"),
    (["campaign", "run", ROOT / "tests/data/campaigns/tiny.yaml", "--parallel", "0"], "--parallel 0"),
    (["campaign", "run", ROOT / "tests/data/campaigns/tiny.yaml", "--max-runs", "0"], "--max-runs 0"),
    (["campaign", "run", ROOT / "tests/data/campaigns/tiny.yaml", "--retries", "-1"], "--retries -1"),
    (["campaign", "run", ROOT / "tests/data/campaigns/tiny.yaml", "--set", "sctp.rto_min=soon"],
     "--set sctp.rto_min=soon: set.sctp.rto_min: 'soon' is not a duration"),
    (["trace", "mahimahi", ROOT / "examples/failover.yaml", "--window", "soon"], "--window"),
    (["trace", "mahimahi", "/nonexistent/trace"], "cannot read"),
    (["trace", "mahimahi", "/tmp"], "is a folder"),
    (["plan", "/nonexistent/x.yaml"], "/nonexistent/x.yaml: cannot read"),
    (["plan", "/tmp"], "/tmp: is a folder"),
    (["plan", "/dev/null"], "the experiment must be a mapping"),
    (["run", "/nonexistent/x.yaml"], "/nonexistent/x.yaml: cannot read"),
    (["run", ROOT / "examples/failover.yaml", "--repeat", "0"], "repeat: 0 is out of range; allowed: at least 1"),
    (["run", ROOT / "examples/failover.yaml", "--repeat", "100000"], "repeat: 100000 is out of range"),
    (["run", ROOT / "examples/failover.yaml", "--influx", "ftp://x"], "--set influx.url=ftp://x: influx.url: 'ftp://x' is not a"),
    (["check", "--calibrate", "/nonexistent.yaml"], "/nonexistent.yaml: cannot read"),
    (["campaign", "run", "/nonexistent.yaml"], "/nonexistent.yaml: cannot read"),
    (["campaign", "compare", "/nonexistent", "/nonexistent2"], "/nonexistent"),
    (["campaign", "compare", ROOT / "tests", ROOT / "tests", "--alpha", "2"], "--alpha 2"),
    (["verify", "/nonexistent"], "/nonexistent"),
    (["push", "/nonexistent"], "/nonexistent: not a run, session or campaign folder"),
    (["report", "/nonexistent"], "/nonexistent"),
]


@pytest.mark.parametrize("argv, expected", FLAGS, ids=[" ".join(str(a) for a in f[0])[-50:] for f in FLAGS])
def test_bad_flag(argv: list[object], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a default ./results must not appear either
    if argv[0] == "influx":
        argv = [*argv, "--dir", tmp_path / "influx"]
    line = refused(argv, capsys)
    assert expected in line, line
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- broken results folders


@pytest.fixture(scope="module")
def plan_json(tmp_path_factory: pytest.TempPathFactory) -> str:
    from sctpbench.model import spec
    from sctpbench.plan import build as planning

    return planning.build(spec.load(ROOT / "examples/failover.yaml"), 1, "agent").to_json()


BROKEN = {
    "plan-garbage": {"plan.json": b"{not json"},
    "plan-binary": {"plan.json": bytes(range(256))},
    "plan-list": {"plan.json": b"[1, 2]"},
    "plan-string": {"plan.json": b'"plan"'},
    "plan-empty-object": {"plan.json": b"{}"},
    "plan-truncated": {"plan.json": None, "cut": b""},
    "summary-garbage": {"summary.json": b"\x00\x01"},
    "summary-list": {"summary.json": b"[]"},
    "summary-truncated": {"summary.json": b'{"metrics": {'},
    "summary-wrong-types": {"summary.json": b'{"metrics": 5, "status": [1], "events": "x"}'},
    "params-garbage": {"params.json": b"nope"},
    "backend-garbage": {"backend.json": b"{"},
    "telemetry-garbage": {"telemetry.json": b"{"},
    "messages-garbage": {"messages.parquet": b"PAR1 this is not parquet PAR1"},
    "messages-text": {"messages.parquet": b"seq,mtt\n1,2\n"},
    "messages-empty": {"messages.parquet": b""},
    "samples-garbage": {"path_samples.parquet": b"\x00" * 100},
    "events-garbage": {"path_events.parquet": b"PAR1"},
}


def _broken_run(tmp_path: Path, plan: str, case: str) -> Path:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    files = dict(BROKEN[case])
    cut = files.pop("cut", None)
    (run_dir / "plan.json").write_text(plan if cut is None else plan[: len(plan) // 2])
    for name, content in files.items():
        if content is not None:
            (run_dir / name).write_bytes(content)
    return run_dir


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
@pytest.mark.parametrize("command", ["report", "push"])
def test_broken_results_folder(command: str, case: str, plan_json: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = _broken_run(tmp_path, plan_json, case)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    argv: list[object] = [command, run_dir] + (["--influx", "http://127.0.0.1:9"] if command == "push" else [])
    if command == "push" and case.startswith(("messages", "samples", "events")):
        pytest.skip("push reads the Parquet files only after reaching InfluxDB")
    if command == "report" and case in ("telemetry-garbage", "backend-garbage"):
        pytest.skip("report does not read telemetry.json or backend.json")
    if command == "push" and case == "summary-wrong-types":
        pytest.skip("push writes summary.json only after sending, and then as an object again")
    line = refused(argv, capsys)
    assert str(run_dir) in line and "allowed:" in line, line
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before  # no report.html, no telemetry.json


def test_report_on_a_session_with_a_broken_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str], plan_json: str) -> None:
    session = tmp_path / "session"
    (session / "run-1").mkdir(parents=True)
    (session / "run-1" / "plan.json").write_text(plan_json)
    (session / "summary.json").write_text("{broken")
    line = refused(["report", session], capsys)
    assert f"{session}/summary.json: not readable JSON" in line
    assert not (session / "report.html").exists()


def test_report_on_a_campaign_with_broken_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    (campaign / "campaign.json").write_text("{}")
    (campaign / "campaign.parquet").write_bytes(b"not parquet")
    line = refused(["report", campaign], capsys)
    assert f"{campaign}/campaign.parquet: not a readable Parquet file" in line
    assert not (campaign / "report.html").exists()


# ---------------------------------------------------------------------------- campaign files

EXPERIMENT = "experiment: ../campaigns/tiny-experiment.yaml\n"
CAMPAIGNS = {
    "set-list": (EXPERIMENT + "set: [a, b]\n", "c.yaml:2: set: ['a', 'b'] is not a mapping; allowed: {KEY: VALUE, …}"),
    "set-string": (EXPERIMENT + "set: workload.duration=6s\n", "c.yaml:2: set: 'workload.duration=6s' is not a mapping"),
    "set-bad-value": (EXPERIMENT + "set: {workload.rate: .inf}\n", "c.yaml:2: set.workload.rate: 'inf' is not a message rate"),
    "set-bad-key": (EXPERIMENT + "set: {colour: red}\n", "c.yaml:2: set.colour: unknown key"),
    "sweep-list": (EXPERIMENT + "sweep: [a]\n", "c.yaml:2: sweep: "),
    "sweep-scalar-values": (EXPERIMENT + "sweep: {sctp.rto_min: 100ms}\n",
                            "c.yaml:2: sweep.sctp.rto_min: '100ms' is not a list of values or a range"),
    "sweep-huge-range": (EXPERIMENT + "sweep: {sctp.rto_min: {from: 1ms, to: 100000ms, step: 1ms}}\n", "values; allowed: at most 1000"),
    "sweep-bad-value": (EXPERIMENT + "sweep: {workload.duration: [1s, 1000000min]}\n",
                        "c.yaml:2: sweep.workload.duration: '1000000min' is too large"),
    "sweep-delay-bound": (EXPERIMENT + "sweep: {topology.paths.primary.delay: [10ms, 300s]}\n",
                          "sweep.topology.paths.primary.delay: '300s' is too large; allowed: a delay up to 274s"),
    "dup-key": (EXPERIMENT + "repetitions: 2\nrepetitions: 3\n", "c.yaml:3: key 'repetitions' is given twice (lines 2 and 3)"),
    "dup-sweep-key": (EXPERIMENT + "sweep:\n  sctp.rto_min: [1s]\n  sctp.rto_min: [2s]\n", "c.yaml:4: key 'sctp.rto_min' is given twice"),
    "name-long": (EXPERIMENT + "name: " + "c" * 5000 + "\n", "c.yaml:2: name: 'cccc"),
    "name-slash": (EXPERIMENT + "name: ../../x\n", "c.yaml:2: name: '../../x' is not a valid name; allowed: letters, digits"),
    "experiment-list": ("experiment: [a, b]\n", "c.yaml:1: experiment: "),
    "experiment-missing": ("experiment: nowhere.yaml\n", "c.yaml:1: experiment: no file 'nowhere.yaml'"),
    "experiment-long": ("experiment: " + "e" * 5000 + "\n", "c.yaml:1: experiment: no file"),
    "experiment-passwd": ("experiment: /etc/passwd\n", "/etc/passwd: the experiment must be a mapping"),
    "repetitions-huge": (EXPERIMENT + "repetitions: 100000\n", "c.yaml:2: repetitions: 100000 is out of range; allowed: at most 10000"),
    "seed-negative": (EXPERIMENT + "seed: -1\n", "c.yaml:2: seed: -1 is out of range; allowed: at least 0"),
    "retries-huge": (EXPERIMENT + "disturbed_retries: 99\n", "c.yaml:2: disturbed_retries: 99 is out of range; allowed: at most 10"),
    "budget-bad": (EXPERIMENT + "budgets: [{metric: nope, max: 1s}]\n", "c.yaml:2: budgets.0.metric: 'nope' is not allowed"),
    "adjust-not-list": (EXPERIMENT + "adjust: {when: 1}\n", "c.yaml:2: adjust: "),
    "unknown-key": (EXPERIMENT + "sweeps: {}\n", "c.yaml:2: sweeps: unknown key; allowed: name, description, experiment"),
    "top-list": ("- experiment: x\n", "c.yaml: a campaign must be a mapping"),
    "laughs": (laughs(8), "more than 100000 values once aliases are expanded"),
}


@pytest.mark.parametrize("case", CAMPAIGNS, ids=list(CAMPAIGNS))
def test_campaign_file(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = CAMPAIGNS[case]
    folder = tmp_path / "tests" / "c"
    folder.mkdir(parents=True)
    (tmp_path / "tests" / "campaigns").mkdir()
    (tmp_path / "tests" / "campaigns" / "tiny-experiment.yaml").write_text((ROOT / "tests/data/campaigns/tiny-experiment.yaml").read_text())
    camp = folder / "c.yaml"
    camp.write_text(text)
    line = refused(["campaign", "run", camp, "--out", tmp_path / "out"], capsys)
    assert expected in line, line[:300]
    assert line.startswith(str(folder)) or line.startswith("/etc/passwd"), line[:200]
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------- the real command, as a process


def _sctpbench(*argv: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The timeout only guards against a hang; how much work a refusal costs is judged in CPU time.
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.parametrize("name, content", [
    ("laughs", laughs(9).encode()),
    ("binary", bytes(range(256))),
    ("deep", ("a: " + "[" * 100_000 + "]" * 100_000 + "\n").encode()),
    ("digits", (BASE + "seed: " + "9" * 5000 + "\n").encode()),
    ("bounds", (BASE.replace("5s}", "1000000min, rate: .inf}")).encode()),
])
def test_no_traceback_escapes_the_command(name: str, content: bytes, tmp_path: Path) -> None:
    bad = tmp_path / f"{name}.yaml"
    bad.write_bytes(content)
    began = _children_cpu_s()
    r = _sctpbench("run", bad, "--out", tmp_path / "out", cwd=tmp_path)
    assert _children_cpu_s() - began < 20, "refused without seconds of work (CPU time, not wall time)"
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(f"sctpbench: {bad}"), r.stderr[:500]
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert not (tmp_path / "out").exists()


def test_influx_bad_port_as_a_process_creates_nothing(tmp_path: Path) -> None:
    r = _sctpbench("influx", "start", "--port", "99999", "--dir", tmp_path / "db", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip() == "sctpbench: --port 99999: out of range; allowed: a TCP port from 1 to 65535"
    assert not (tmp_path / "db").exists()
