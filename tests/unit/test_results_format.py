"""Folders in format 1 (tests/data/results-v1, written by sctpbench before format.json) still
open with report, push, verify and campaign compare, upgraded on load; today's folders say
their format; the results package's one policy for a missing or broken file.

The fixtures are copies of a real guest run of examples/failover.yaml (`--set
workload.duration=4s --set events.0.at=2s`) and of tests/data/campaigns/tiny.yaml (`--set
clock=real`), without their Parquet tables and captures (the repository keeps no .parquet or
.pcap): a report shows a run without its tables; a campaign's tables are rebuilt from its runs.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from sctpbench import cli
from sctpbench.campaign import compare, expand, table
from sctpbench.campaign import spec as campaign_spec
from sctpbench.results import backend, events, folders, jsonfile, summary, version
from sctpbench.results import campaign as results_campaign
from sctpbench.telemetry import server
from tests.support.telemetry import local_influxd

ROOT = Path(__file__).resolve().parents[2]
V1 = ROOT / "tests/data/results-v1"


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return Path(shutil.copytree(V1 / "session", tmp_path / "session"))


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    folder = Path(shutil.copytree(V1 / "campaign", tmp_path / "campaign"))
    loaded = campaign_spec.load(ROOT / "tests/data/campaigns/tiny.yaml", ["clock=real"])
    runs = expand.runs(loaded)
    assert sorted(r.run_key for r in runs) == sorted(p.name for p in (folder / "runs").iterdir())
    table.write(folder, runs, loaded.swept)
    return folder


@pytest.fixture(scope="module")
def influxd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path_factory.mktemp("influxd"))


def test_a_format_1_folder_is_recognised_and_upgraded_on_load(session: Path, campaign: Path) -> None:
    assert not list(V1.rglob(version.MARKER))
    assert version.of(session) == version.Format(1, "session")
    assert version.of(session / "run-001") == version.Format(1, "run")
    assert version.of(campaign) == version.Format(1, "campaign")
    run = summary.read(session / "run-001")
    assert run is not None and run.status == "ok" and run.metrics.failover_time_ms is not None
    assert folders.run_folders(session) == [session / "run-001"]
    assert len(folders.run_folders(campaign)) == 6
    status = backend.read(session / "run-001")
    assert status is not None and status.ok and status.t0_ns is not None
    assert [e.kind for e in events.read(session / "run-001")] == ["start", "fail"]


def test_report_opens_format_1_folders(session: Path, campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A figure only summary.json holds: run-001's failover time, and a campaign run's (through its table).
    shown = {session: "<td class=num>207.25</td>", session / "run-001": "<td class=num>207.25</td>",
             campaign: "<td class=num>138.27</td>"}
    for folder, figure in shown.items():
        assert cli.main(["report", str(folder)]) == 0
        page = (folder / "report.html").read_text()
        assert "failover" in page and figure in page, folder
    assert not list(session.rglob(version.MARKER))  # loading writes nothing into the folder


def test_push_sends_a_format_1_run(session: Path, influxd: server.LocalServer) -> None:
    assert cli.main(["push", str(session), "--influx", influxd.url, "--influx-dir", str(influxd.directory)]) == 0
    ledger = json.loads((session / "run-001" / "telemetry.json").read_text())
    assert ledger["not_sent"] == 0 and sum(ledger["points"].values()) > 1000


def test_verify_reads_a_format_1_run_and_says_what_it_lacks(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["verify", str(session)]) == 2
    assert "no captures" in capsys.readouterr().err


def test_campaign_compare_opens_a_format_1_campaign(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = compare.compare(campaign, campaign)
    assert result.budgets and all(c.config for c in result.changes)
    assert cli.main(["campaign", "compare", str(campaign), str(campaign)]) == 0


def test_today_marks_every_folder_it_creates(tmp_path: Path) -> None:
    for kind in version.KINDS:
        folder = tmp_path / kind
        folder.mkdir()
        version.mark(folder, kind)
        assert version.of(folder) == version.Format(version.FORMAT, kind)


def test_a_campaign_folder_is_marked_when_its_campaign_json_is_written(tmp_path: Path) -> None:
    """Not recognised by its files as format 1: marked as today's format by the code that makes it."""
    results_campaign.write_info(tmp_path, {"name": "c"})
    assert (tmp_path / version.MARKER).exists()
    assert version.of(tmp_path) == version.Format(version.FORMAT, "campaign")


def test_a_newer_format_is_refused_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / version.MARKER).write_text(json.dumps({"format": version.FORMAT + 1, "kind": "run"}))
    with pytest.raises(jsonfile.ResultsFileError, match=f"^{tmp_path / version.MARKER}: format .* is newer"):
        version.of(tmp_path)


@pytest.mark.parametrize("content, wrong", [
    (b"{", "not readable JSON"), (b"[]", "holds a list, not an object"), (b"\xff", "not readable"),
])
def test_one_policy_for_a_broken_file(tmp_path: Path, content: bytes, wrong: str) -> None:
    path = tmp_path / "backend.json"
    path.write_bytes(content)
    with pytest.raises(jsonfile.ResultsFileError) as e:
        backend.read(tmp_path)
    assert str(e.value).startswith(f"{path}: {wrong}") and str(e.value).endswith(jsonfile.ALLOWED)
    assert "\n" not in str(e.value)


def test_a_missing_file_is_none_where_optional_and_an_error_where_required(tmp_path: Path) -> None:
    assert backend.read(tmp_path) is None and summary.read(tmp_path) is None and events.read_optional(tmp_path) is None
    with pytest.raises(jsonfile.ResultsFileError, match=f"^{tmp_path / events.NAME}: missing"):
        events.read(tmp_path)


def test_the_headline_metrics_are_run_metrics() -> None:
    assert set(summary.HEADLINE_METRICS) <= set(summary.METRICS)
    assert compare.DEFAULT_METRICS == list(summary.HEADLINE_METRICS)
