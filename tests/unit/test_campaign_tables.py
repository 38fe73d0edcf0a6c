"""A campaign's tables kept in memory (table.Tables) while execute.Session runs stand-in runs
equal the tables sctpbench wrote before (every table rewritten from every run folder after
each run): at the end, at every write on the way, and after a campaign interrupted, killed
and resumed.

tests/data/campaign-tables/expected.json holds the tables the earlier code (main at f5d2034,
table.write) made of the final folder; its run keys do not depend on where the files are.
To make it again: `.venv/bin/python tests/unit/test_campaign_tables.py OUT.json` with that
sctpbench first on sys.path."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sctpbench.campaign import execute, expand, spec, table
from sctpbench.campaign.expand import Run
from sctpbench.results import summary as results_summary
from sctpbench.results import version

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "tests/data/campaign-tables/expected.json"
REAL_RUNS = ROOT / "tests/data/results-v1/campaign/runs"
CAMPAIGN = """\
name: tables
experiment: tiny-experiment.yaml
sweep:
  sctp.path_max_retrans: [1, 2, 3]
repetitions: 4
seed: 5
"""
# Per run (its place in the campaign's order), its attempts' outcomes, the last one again for
# any further attempt (a failed run is run again by each invocation); None: the worker died
# before a summary. The rest: ok. Disturbed runs come late, so the resumed campaign retries
# them in one invocation, as the campaign run in one go does.
PLAN: dict[int, list[str | None]] = {1: ["failed"], 3: [None], 8: ["disturbed", "ok"], 10: ["disturbed"] * 3}
TWO_ASSOCIATIONS = 6  # this run's summary has a second association: columns appear mid-campaign


def _campaign(tmp_path: Path) -> tuple[spec.Loaded, list[Run]]:
    (tmp_path / "tiny-experiment.yaml").write_text((ROOT / "tests/data/campaigns/tiny-experiment.yaml").read_text())
    (tmp_path / "tables.yaml").write_text(CAMPAIGN)
    loaded = spec.load(tmp_path / "tables.yaml")
    return loaded, expand.runs(loaded)


def _scaled(metrics: dict[str, Any], factor: float) -> dict[str, Any]:
    return {k: v * factor if isinstance(v, float) else v for k, v in metrics.items()}


def _summary(i: int, status: str) -> dict[str, Any]:
    """Run i's stand-in summary: a real one (today's format), its float metrics scaled."""
    real = sorted(REAL_RUNS.iterdir())
    document = results_summary.read_document(real[i % len(real)])
    assert document is not None
    factor = 1 + ((i * 7919) % 21 - 10) / 100
    document["metrics"] = _scaled(document["metrics"], factor)
    main = document["associations"]["main"]
    main["metrics"] = _scaled(main["metrics"], factor)
    if i == TWO_ASSOCIATIONS:
        document["associations"]["extra"] = {"metrics": _scaled(main["metrics"], 0.5)}
    document["status"] = status
    document["error"] = "boom" if status == "failed" else None
    if status == "disturbed":
        document["selfcheck"]["reasons"] = [{"check": "lateness_p99", "detail": f"sender lateness p99 {i} ms > 5 ms"}]
    return document


def _worker(folder: Path, run: Run, i: int, outcome: str | None) -> None:
    """What a worker leaves in runs/<run_key>/."""
    directory = execute.run_dir(folder, run)
    directory.mkdir(parents=True)
    version.mark(directory, "run")
    (directory / "campaign-worker.log").write_text("")
    if outcome is not None:
        results_summary.write(directory, _summary(i, outcome))


def final_folder(folder: Path, runs: list[Run]) -> None:
    """The folder the PLAN leaves, made without a session (what the expected tables are of)."""
    for i, run in enumerate(runs):
        for outcome in PLAN.get(i, ["ok"]):
            execute.make_room(folder, run)
            _worker(folder, run, i, outcome)


def _tables(folder: Path) -> dict[str, Any]:
    import pyarrow.parquet as pq

    out = {}
    for name in (table.RUNS_FILE, table.CONFIGS_FILE):
        t = pq.read_table(folder / name)
        out[name] = {"schema": [[f.name, str(f.type)] for f in t.schema], "rows": t.to_pylist()}
    return out


def _from_disk(folder: Path, runs: list[Run], swept: list[str]) -> dict[str, Any]:
    """The tables the earlier code wrote of the folder as it is now: every summary read."""
    scratch = folder.parent / f"{folder.name}-from-disk"
    scratch.mkdir(exist_ok=True)
    run_rows = table.rows(folder, runs, swept)
    table.write_rows(scratch, run_rows, table.config_rows(run_rows, swept), swept, table.association_names(run_rows))
    return _tables(scratch)


def _drive(session: execute.Session, runs: list[Run], attempts: collections.Counter[int], stop_after: int | None = None,
           check: bool = True) -> None:
    """What an executor does, one run at a time; after every write of the tables, they are
    compared with what the earlier code makes of the folder at that moment."""
    index = {r.run_key: i for i, r in enumerate(runs)}
    queue = collections.deque(session.pending)
    ended = 0
    while queue and (stop_after is None or ended < stop_after):
        run = queue.popleft()
        session.set_aside(run)
        session.started(run)
        i = index[run.run_key]
        outcomes = PLAN.get(i, ["ok"])
        _worker(session.folder, run, i, outcomes[min(attempts[i], len(outcomes) - 1)])
        attempts[i] += 1
        before = _written(session.folder)
        if session.ended(run, 1.0, "the worker exited with 1", 0, len(queue), 1):
            queue.append(run)
        ended += 1
        if check and _written(session.folder) != before:
            assert _tables(session.folder) == _from_disk(session.folder, runs, session.loaded.swept), run.run_key


def _written(folder: Path) -> tuple[int, int] | None:
    """Which write of campaign.parquet is there (each write is a new file, renamed into place)."""
    try:
        s = (folder / table.RUNS_FILE).stat()
    except FileNotFoundError:
        return None
    return s.st_ino, s.st_mtime_ns


def _expected() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(EXPECTED.read_text())
    return found


@pytest.fixture(params=["as shipped", "every run"])
def schedule(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The shipped schedule writes the tables after this small campaign's first run and at
    its end; "every run" writes them after (nearly) every run, so each write on the way is
    compared too."""
    if request.param == "every run":
        monkeypatch.setattr(table, "REWRITE_FIXED_ROWS", 0)
        monkeypatch.setattr(table, "REWRITE_SHARE", 1 / 4)
    return str(request.param)


def test_the_folder_as_the_earlier_code_tabled_it(tmp_path: Path) -> None:
    """The from-disk path (table.write) still makes the expected tables: the fixture is of this folder."""
    loaded, runs = _campaign(tmp_path)
    folder = tmp_path / "out"
    final_folder(folder, runs)
    table.write(folder, runs, loaded.swept)
    assert _tables(folder) == _expected()


def test_a_campaign_keeps_the_tables_the_earlier_code_wrote(tmp_path: Path, schedule: str) -> None:
    loaded, runs = _campaign(tmp_path)
    folder = tmp_path / "out"
    session = execute.Session.open(folder, loaded, runs, lambda s: None, None, None)
    _drive(session, runs, collections.Counter())
    session.close()
    assert _tables(folder) == _expected()
    rows = {r["repetition"] + 10 * int(r["param.sctp.path_max_retrans"]): r for r in _expected()[table.RUNS_FILE]["rows"]}
    assert sorted(r["retries"] for r in rows.values()) == [0] * 9 + [1, 2]  # the fixture has what this tests
    assert {r["status"] for r in rows.values()} == {"ok", "disturbed", "failed"} and len(rows) == 11


def test_an_interrupted_then_killed_campaign_resumes_to_the_same_tables(tmp_path: Path, schedule: str) -> None:
    """Interrupted (a run stopped, its summary says so; the session closes), then the client
    killed (no close: tables as last written), then run to the end: the tables of a campaign
    run in one go."""
    loaded, runs = _campaign(tmp_path)
    folder = tmp_path / "out"
    attempts: collections.Counter[int] = collections.Counter()
    session = execute.Session.open(folder, loaded, runs, lambda s: None, None, None)
    _drive(session, runs, attempts, stop_after=4)
    stopped = runs[4]  # the next, ok in PLAN: started, then stopped
    session.set_aside(stopped)
    session.started(stopped)
    directory = execute.run_dir(folder, stopped)
    directory.mkdir(parents=True)
    results_summary.write(directory, _summary(4, "ok") | {"status": "interrupted", "error": "stopped"})
    session.interrupted([stopped], 3)
    session.close()
    assert _tables(folder) == _from_disk(folder, runs, loaded.swept)
    assert any(r["status"] == "interrupted" for r in _tables(folder)[table.RUNS_FILE]["rows"])

    killed = execute.Session.open(folder, loaded, runs, lambda s: None, None, None)
    assert stopped in killed.pending
    _drive(killed, runs, attempts, stop_after=3)
    killed.lock.close()  # the client killed: no close, the kernel lets the lock go

    resumed = execute.Session.open(folder, loaded, runs, lambda s: None, None, None)
    _drive(resumed, runs, attempts)
    resumed.close()
    assert _tables(folder) == _expected()
    assert (folder / "attempts" / f"{stopped.run_key}-1").is_dir()


if __name__ == "__main__":  # the expected tables, from the sctpbench first on sys.path
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        loaded, runs = _campaign(Path(tmp))
        final_folder(Path(tmp) / "out", runs)
        table.write(Path(tmp) / "out", runs, loaded.swept)
        Path(sys.argv[1]).write_text(json.dumps(_tables(Path(tmp) / "out")) + "\n")
