"""results/: each file's writer and reader as a user of the folder sees them. The exact text
written (indented JSON, one trailing newline), the file's name in the folder, None where a
folder may lack the file, and the one-line error, whole, where it is broken or missing.

Written against the mutants scripts/mutation found alive or untried in results/ (each test
fails on a mutant it names; tests/mutation/survivors.md)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from sctpbench.model import spec
from sctpbench.plan import build
from sctpbench.plan.data import Plan
from sctpbench.results import (
    ansible,
    backend,
    calibration,
    cost,
    events,
    experiment,
    files,
    folders,
    guest,
    host,
    jsonfile,
    kernel,
    ledger,
    mininet,
    params,
    plan,
    summary,
    tables,
    version,
)
from sctpbench.results import campaign as results_campaign

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = "allowed: the file as sctpbench wrote it"
DOCUMENT = {"b": 1, "a": [1, 2], "c": {"z": None}}
TEXT = '{\n  "b": 1,\n  "a": [\n    1,\n    2\n  ],\n  "c": {\n    "z": null\n  }\n}\n'


# -- jsonfile: the text, the one policy --------------------------------------------------------


def test_the_json_text_is_indented_by_two_with_one_trailing_newline(tmp_path: Path) -> None:
    """jsonfile.text's indent (mutant: indent=3, none) and its newline."""
    assert jsonfile.text(DOCUMENT) == TEXT
    jsonfile.write(tmp_path / "x.json", DOCUMENT)
    assert (tmp_path / "x.json").read_text() == TEXT
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # nothing left beside it


@pytest.mark.parametrize("module, name", [(host, "host.json"), (ansible, "ansible.json"), (mininet, "mininet.json"),
                                          (params, "params.json"), (guest, "guest.json")])
def test_a_run_file_is_written_under_its_name_and_read_back(tmp_path: Path, module: Any, name: str) -> None:
    assert module.read_optional(tmp_path) is None
    module.write(tmp_path, DOCUMENT)
    assert (tmp_path / name).read_text() == TEXT
    assert module.read_optional(tmp_path) == DOCUMENT


@pytest.mark.parametrize("module, write, read, name", [
    (calibration, "write", "read_optional", "calibration.json"),
    (ledger, "write", "read_optional", "telemetry.json"),
    (kernel, "write_versions", "read_versions", "versions.json"),
    (results_campaign, "write_claims", "read_claims", "claims.json"),
    (results_campaign, "write_shipped", "read_shipped", "shipped.json"),
])
def test_a_folder_file_is_written_under_its_name_and_read_back(tmp_path: Path, module: Any, write: str, read: str,
                                                               name: str) -> None:
    assert getattr(module, read)(tmp_path) is None
    getattr(module, write)(tmp_path, DOCUMENT)
    assert (tmp_path / name).read_text() == TEXT
    assert getattr(module, read)(tmp_path) == DOCUMENT


def test_a_required_file_missing_is_the_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(jsonfile.ResultsFileError) as e:
        jsonfile.read(tmp_path / "plan.json")
    assert str(e.value) == f"{tmp_path / 'plan.json'}: missing; {ALLOWED}"
    (tmp_path / "plan.json").write_text('{"a": 1}')
    assert jsonfile.read(tmp_path / "plan.json") == {"a": 1}


def test_an_unreadable_file_names_itself_and_the_first_80_characters_of_why(tmp_path: Path) -> None:
    """A folder where a file is expected (so also as root): str(e)[:80] (mutant: 81)."""
    path = tmp_path / ("a-long-name-" * 6 + ".json")
    path.mkdir()
    try:
        path.read_bytes()
    except OSError as e:
        why = str(e)
    assert len(why) > 81
    with pytest.raises(jsonfile.ResultsFileError) as raised:
        jsonfile.read_optional(path)
    assert str(raised.value) == f"{path}: not readable ({why[:80]}); {ALLOWED}"


def test_broken_json_names_the_file_and_the_first_80_characters_of_why(tmp_path: Path) -> None:
    text = "\n" * 100_000 + "{" + " " * 100_000 + "x"
    try:
        json.loads(text)
    except ValueError as e:
        why = str(e)
    assert len(why) > 81
    (tmp_path / "x.json").write_text(text)
    with pytest.raises(jsonfile.ResultsFileError) as raised:
        jsonfile.read_optional(tmp_path / "x.json")
    assert str(raised.value) == f"{tmp_path / 'x.json'}: not readable JSON ({why[:80]}); {ALLOWED}"


def test_json_lines_skip_blank_lines_and_name_the_broken_line_by_its_number(tmp_path: Path) -> None:
    """enumerate(…, 1) (mutant: 2), blank lines (mutant: not skipped)."""
    path = tmp_path / "x.jsonl"
    assert jsonfile.read_lines(path) is None
    jsonfile.write_lines(path, [{"a": 1}, {"b": 2}])
    assert path.read_text() == '{"a": 1}\n{"b": 2}\n'
    jsonfile.append_line(path, {"c": 3})
    assert path.read_text() == '{"a": 1}\n{"b": 2}\n{"c": 3}\n'
    path.write_text('{"a": 1}\n  \n\n{"b": 2}\n')
    assert jsonfile.read_lines(path) == [{"a": 1}, {"b": 2}]
    path.write_text('{"a": 1}\n[1]\n')
    with pytest.raises(jsonfile.ResultsFileError) as e:
        jsonfile.read_lines(path)
    assert str(e.value) == f"{path}:2: holds a list, not an object; {ALLOWED}"


def test_a_write_that_fails_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "x.json").mkdir()  # os.replace cannot put a file over a folder
    with pytest.raises(OSError):
        jsonfile.write(tmp_path / "x.json", DOCUMENT)
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_a_write_the_folder_refuses_is_the_folders_refusal() -> None:
    """sysfs refuses a new file, root's too (Permission denied): that is the error, not the
    temporary file's absence when it is cleaned up (unlink's missing_ok)."""
    with pytest.raises(PermissionError) as e:
        jsonfile.write(Path("/sys/sctpbench-results-test.json"), DOCUMENT)
    assert e.value.filename == "/sys/.sctpbench-results-test.json.tmp"


# -- events ------------------------------------------------------------------------------------

EVENT = {"kind": "fail", "target": "wan1", "detail": "loss 100%", "direction": "both", "at_ns": 1, "scheduled_ns": 2,
         "issued_ns": 3, "applied_ns": 4, "lag_ns": 2}


def test_timeline_events_written_whole_and_read_back(tmp_path: Path) -> None:
    bare = {k: v for k, v in EVENT.items() if k not in ("detail", "direction")}
    events.write(tmp_path, [EVENT, bare])
    assert (tmp_path / "events.jsonl").read_text() == json.dumps(EVENT) + "\n" + json.dumps(bare) + "\n"
    assert events.line(EVENT) == json.dumps(EVENT) + "\n"
    assert events.read_documents(tmp_path) == [EVENT, bare]
    read = events.read(tmp_path)
    assert read == events.read_optional(tmp_path)
    assert read[0] == events.TimelineEvent(**EVENT)  # type: ignore[arg-type]
    assert read[0].to_dict() == EVENT
    assert read[1].detail == "" and read[1].direction is None  # the defaults of an event without them


def test_an_event_without_a_key_is_the_one_line_error(tmp_path: Path) -> None:
    events.write(tmp_path, [{k: v for k, v in EVENT.items() if k != "lag_ns"}])
    with pytest.raises(jsonfile.ResultsFileError) as e:
        events.read(tmp_path)
    assert str(e.value) == f"{tmp_path / 'events.jsonl'}: an event without 'lag_ns'; {ALLOWED}"


def test_a_line_followed_live_is_an_object_or_the_one_line_error(tmp_path: Path) -> None:
    assert events.parse_line(json.dumps(EVENT), tmp_path) == EVENT
    with pytest.raises(jsonfile.ResultsFileError) as e:
        events.parse_line("[1]", tmp_path)
    assert str(e.value) == f"{tmp_path / 'events.jsonl'}: holds a list, not an object; {ALLOWED}"
    text = "\n" * 100_000 + "{" + " " * 100_000 + "x"
    try:
        json.loads(text)
    except ValueError as err:
        why = str(err)
    with pytest.raises(jsonfile.ResultsFileError) as e:
        events.parse_line(text, tmp_path)
    assert str(e.value) == f"{tmp_path / 'events.jsonl'}: not readable JSON ({why[:80]}); {ALLOWED}"


def test_a_missing_timeline_is_none_or_the_one_line_error(tmp_path: Path) -> None:
    assert events.read_documents(tmp_path) is None and events.read_optional(tmp_path) is None
    with pytest.raises(jsonfile.ResultsFileError) as e:
        events.read(tmp_path)
    assert str(e.value) == f"{tmp_path / 'events.jsonl'}: missing; {ALLOWED}"


# -- backend.json ------------------------------------------------------------------------------


def test_backend_status_read_with_its_defaults(tmp_path: Path) -> None:
    backend.write(tmp_path, {"ok": None})
    assert (tmp_path / "backend.json").read_text() == '{\n  "ok": null\n}\n'
    assert backend.read(tmp_path) == backend.BackendStatus(None, None, None, None, None, {})
    whole = {"ok": False, "error": "e", "t0_ns": 1, "t0_realtime_ns": 2, "clock": "CLOCK_REALTIME",
             "machines": {"m": {"ok": True}}, "extra": 3}
    backend.write(tmp_path, whole)
    assert backend.read(tmp_path) == backend.BackendStatus(False, "e", 1, 2, "CLOCK_REALTIME", {"m": {"ok": True}})
    assert backend.read_document(tmp_path) == whole


def test_amend_keeps_the_rest_and_the_backends_words_only_when_asked(tmp_path: Path) -> None:
    backend.write(tmp_path, {"ok": None, "t0_ns": 5, "error": "the backend's"})
    backend.amend(tmp_path, False, "disk full")
    assert backend.read_document(tmp_path) == {"ok": False, "t0_ns": 5, "error": "disk full"}
    backend.write(tmp_path, {"ok": None, "error": "the backend's"})
    backend.amend(tmp_path, False, "orchestrator killed", keep_earlier_error=True)
    assert backend.read_document(tmp_path) == {"ok": False, "error": "the backend's"}
    backend.write(tmp_path, {"ok": None, "error": None})
    backend.amend(tmp_path, True, "orchestrator killed", keep_earlier_error=True)
    assert backend.read_document(tmp_path) == {"ok": True, "error": "orchestrator killed"}


def test_amend_replaces_a_file_cut_short_and_writes_through_the_writer_given(tmp_path: Path) -> None:
    (tmp_path / "backend.json").write_text('{"ok": nu')
    backend.amend(tmp_path, False, "disk full", keep_earlier_error=True)
    assert (tmp_path / "backend.json").read_text() == '{\n  "ok": false,\n  "error": "disk full"\n}\n'
    (tmp_path / "backend.json").unlink()
    backend.amend(tmp_path, True, None)
    assert backend.read_document(tmp_path) == {"ok": True, "error": None}
    written: list[tuple[Path, Any]] = []
    backend.amend(tmp_path, False, "x", writer=lambda path, document: written.append((path, document)))
    assert written == [(tmp_path / "backend.json", {"ok": False, "error": "x"})]


# -- cost.json ---------------------------------------------------------------------------------


def test_cost_written_with_its_clock_and_read_as_phases(tmp_path: Path) -> None:
    assert cost.read(tmp_path) is None
    phases = [{"name": "boot", "wall_s": 1.5, "cpu_s": 0.25, "switches": 7}, {"name": "teardown", "wall_s": 2, "cpu_s": 1}]
    cost.write(tmp_path, phases)
    assert json.loads((tmp_path / "cost.json").read_text()) == {
        "clock": "the host's (monotonic wall time, CPU time of the process tree)", "phases": phases}
    read = cost.read(tmp_path)
    assert read == cost.RunCost((cost.PhaseCost("boot", 1.5, 0.25, 7), cost.PhaseCost("teardown", 2.0, 1.0, 0)))
    assert read.wall_s == 3.5 and read.cpu_s == 1.25
    assert read.phase("teardown") == cost.PhaseCost("teardown", 2.0, 1.0, 0) and read.phase("boot") is read.phases[0]
    assert read.phase("halt") is None


@pytest.mark.parametrize("phases", [None, [{"name": "boot"}], [{"name": "boot", "wall_s": "x", "cpu_s": 1}]],
                         ids=["type", "key", "value"])
def test_cost_not_as_written_is_the_one_line_error(tmp_path: Path, phases: Any) -> None:
    jsonfile.write(tmp_path / "cost.json", {"phases": phases})
    with pytest.raises(jsonfile.ResultsFileError) as e:
        cost.read(tmp_path)
    assert str(e.value) == f"{tmp_path / 'cost.json'}: not as sctpbench wrote it; {ALLOWED}"
    jsonfile.write(tmp_path / "cost.json", {})
    with pytest.raises(jsonfile.ResultsFileError):
        cost.read(tmp_path)


# -- kernel.json, telemetry ledger, guest files ------------------------------------------------


def test_kernel_state_with_and_without_sysctls(tmp_path: Path) -> None:
    assert kernel.read_kernel(tmp_path) is None
    kernel.write_kernel(tmp_path, {"hz": 250, "sysctl": {"client": {"net.sctp.rto_min": 200}}})
    assert (tmp_path / "kernel.json").read_text() == jsonfile.text(
        {"hz": 250, "sysctl": {"client": {"net.sctp.rto_min": 200}}})
    assert kernel.read_kernel(tmp_path) == kernel.KernelState(250, {"client": {"net.sctp.rto_min": 200}},
                                                              {"hz": 250, "sysctl": {"client": {"net.sctp.rto_min": 200}}})
    kernel.write_kernel(tmp_path, {"sysctl": None})
    assert kernel.read_kernel(tmp_path) == kernel.KernelState(None, {}, {"sysctl": None})


def test_the_ledgers_target_or_the_one_line_error(tmp_path: Path) -> None:
    assert ledger.recorded_target(tmp_path) is None
    ledger.write(tmp_path, {"target": {"url": "http://x"}, "points": {}})
    assert ledger.recorded_target(tmp_path) == {"url": "http://x"}
    ledger.write(tmp_path, {"target": "http://x"})
    with pytest.raises(jsonfile.ResultsFileError) as e:
        ledger.recorded_target(tmp_path)
    assert str(e.value) == (f"{tmp_path / 'telemetry.json'}: not a telemetry ledger sctpbench wrote (no target); "
                            f"{ALLOWED}")


def test_the_logs_are_opened_where_a_person_looks(tmp_path: Path) -> None:
    with ledger.open_log(tmp_path) as f:
        f.write("first")
    with ledger.open_log(tmp_path) as f:  # one live writer's log: the last one's
        f.write("traceback")
    assert (tmp_path / "telemetry.log").read_text() == "traceback"
    with guest.open_console(tmp_path) as console:
        console.write(b"\xffboot")
    assert guest.console_path(tmp_path) == tmp_path / "console.log"
    assert guest.console_path(tmp_path).read_bytes() == b"\xffboot"
    for line in ("killed\n", "torn down\n"):  # appended
        with guest.open_guardian_log(tmp_path) as log:
            log.write(line)
    assert (tmp_path / "guardian.log").read_text() == "killed\ntorn down\n"


# -- experiment.yaml, plan.json ----------------------------------------------------------------


def test_the_experiment_is_written_in_its_models_key_order(tmp_path: Path) -> None:
    assert not experiment.exists(tmp_path) and experiment.read_text(tmp_path) is None
    assert experiment.read_document(tmp_path) is None
    experiment.write(tmp_path, {"name": "x", "clock": "virtual", "description": "d"})
    assert (tmp_path / "experiment.yaml").read_text() == "name: x\nclock: virtual\ndescription: d\n"
    assert experiment.exists(tmp_path)
    assert experiment.read_text(tmp_path) == "name: x\nclock: virtual\ndescription: d\n"
    assert experiment.read_document(tmp_path) == {"name": "x", "clock": "virtual", "description": "d"}


def _plan() -> Plan:
    return build.build(spec.load(ROOT / "examples" / "failover.yaml"), 1, "agent")


def test_the_plan_is_written_read_and_its_files_put_beside_it(tmp_path: Path) -> None:
    p = dataclasses.replace(_plan(), files={"schedules/a/b.csv": "1\n", "schedules/a/c.csv": "2\n", "top.txt": "3"})
    assert not plan.exists(tmp_path) and plan.read_document(tmp_path) is None
    with pytest.raises(jsonfile.ResultsFileError) as e:
        plan.require_document(tmp_path)
    assert str(e.value) == f"{tmp_path / 'plan.json'}: missing; {ALLOWED}"
    plan.write(tmp_path, p)
    assert (tmp_path / "plan.json").read_text() == p.to_json()
    assert plan.exists(tmp_path) and plan.read(tmp_path) == p
    assert plan.read_document(tmp_path) == plan.require_document(tmp_path) == json.loads(p.to_json())
    plan.write_files(tmp_path, p)  # two files in one folder two levels down
    assert {str(f.relative_to(tmp_path)): f.read_text() for f in tmp_path.rglob("*") if f.is_file()} == {
        "plan.json": p.to_json(), "schedules/a/b.csv": "1\n", "schedules/a/c.csv": "2\n", "top.txt": "3"}
    plan.write_script(tmp_path, "#!/bin/sh\n")
    assert (tmp_path / "plan.sh").read_text() == "#!/bin/sh\n"


def test_a_folder_named_plan_json_is_no_plan(tmp_path: Path) -> None:
    (tmp_path / "plan.json").mkdir()
    assert not plan.exists(tmp_path) and not folders.is_run(tmp_path)


# -- tables ------------------------------------------------------------------------------------


def test_a_runs_table_in_its_columns(tmp_path: Path) -> None:
    assert tables.read_optional(tmp_path, tables.CUM_TSN) is None
    with pytest.raises(jsonfile.ResultsFileError) as e:
        tables.read(tmp_path, tables.CUM_TSN)
    assert str(e.value) == f"{tmp_path / 'cum_tsn.parquet'}: missing; {ALLOWED}"
    tables.write(tmp_path, tables.CUM_TSN, [{"association": "a", "t_rel_ns": 5, "cum_tsn_ack": 7, "other": 1}])
    expected = [{"association": "a", "t_rel_ns": 5, "cum_tsn_ack": 7, "path": None}]
    assert tables.read(tmp_path, tables.CUM_TSN) == tables.read_optional(tmp_path, tables.CUM_TSN) == expected
    assert [(f.name, str(f.type)) for f in tables.schema(tables.CUM_TSN)] == [
        ("association", "string"), ("t_rel_ns", "int64"), ("cum_tsn_ack", "int64"), ("path", "string")]
    assert [p.name for p in tmp_path.iterdir()] == ["cum_tsn.parquet"]


def test_a_broken_table_is_the_one_line_error(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    (tmp_path / "messages.parquet").write_bytes(b"PAR1 not really")
    try:
        pq.read_table(tmp_path / "messages.parquet")
    except (OSError, ValueError) as e:
        why = str(e)
    assert len(why) > 81
    with pytest.raises(jsonfile.ResultsFileError) as raised:
        tables.read_optional(tmp_path, tables.MESSAGES)
    assert str(raised.value) == f"{tmp_path / 'messages.parquet'}: not a readable Parquet file ({why[:80]}); {ALLOWED}"


# -- summary.json ------------------------------------------------------------------------------


def test_a_runs_summary_with_its_metrics(tmp_path: Path) -> None:
    document = {"run_id": "r", "repetition": 2, "seed": 3, "clock": "virtual", "status": "disturbed", "error": "late",
                "metrics": {"mtt_p50_ms": 1.5, "path_switches": 2, "unknown": "x"}, "extra": 1}
    summary.write(tmp_path, document)
    assert (tmp_path / "summary.json").read_text() == jsonfile.text(document)
    read = summary.read(tmp_path)
    assert read == summary.Summary("r", 2, 3, "virtual", "disturbed", "late", summary.RunMetrics(mtt_p50_ms=1.5, path_switches=2),
                                   document)
    assert read.metrics.get("path_switches") == 2 and read.metrics.get("mmtt_ms") is None
    assert read.metrics.to_dict() == dict.fromkeys(summary.METRICS) | {"mtt_p50_ms": 1.5, "path_switches": 2}
    with pytest.raises(KeyError) as unknown:
        read.metrics.get("unknown")
    assert unknown.value.args == ("unknown",)
    summary.write(tmp_path, {"metrics": None})
    assert summary.read(tmp_path) == summary.Summary(None, None, None, None, None, None, summary.RunMetrics(),
                                                     {"metrics": None})
    written: list[tuple[Path, Any]] = []
    summary.write(tmp_path, document, writer=lambda path, d: written.append((path, d)))
    assert written == [(tmp_path / "summary.json", document)]


@pytest.mark.parametrize("document, wrong", [
    ({"metrics": [1]}, "metrics: list, not an object"),
    ({"status": 1}, "status: 1 is not a string"),
    ({"error": ["x"]}, "error: ['x'] is not a string"),
    ({"run_id": 5}, "run_id: 5 is not a string"),
    ({"clock": True}, "clock: True is not a string"),
    ({"metrics": {"mmtt_ms": 1.0, "mtt_p50_ms": "1"}}, "metrics.mtt_p50_ms: '1' is not a number"),
])
def test_a_summary_not_as_written_is_the_one_line_error(tmp_path: Path, document: dict[str, Any], wrong: str) -> None:
    summary.write(tmp_path, document)
    with pytest.raises(jsonfile.ResultsFileError) as e:
        summary.read(tmp_path)
    assert str(e.value) == f"{tmp_path / 'summary.json'}: {wrong}; {ALLOWED}"


# -- format.json and folders -------------------------------------------------------------------


def _upgrade_marking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Format 1's step made visible: _from_1 changes nothing, so every step is observed through this."""
    monkeypatch.setitem(version.UPGRADES, 1, lambda name, d: d | {"upgraded": name})


def test_a_format_1_document_goes_through_each_step_and_todays_through_none(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert version._from_1("summary.json", {"a": 1}) == {"a": 1}
    _upgrade_marking(monkeypatch)
    (tmp_path / "plan.json").write_text("{}")  # format 1: no format.json
    assert version.upgraded(tmp_path, "summary.json", {"a": 1}) == {"a": 1, "upgraded": "summary.json"}
    summary.write(tmp_path, {"status": "ok"})
    assert summary.read_document(tmp_path) == {"status": "ok", "upgraded": "summary.json"}
    (tmp_path / "x").mkdir()
    results_campaign.write_info(tmp_path / "x", {})
    assert results_campaign.read_info(tmp_path / "x") == {}  # marked today's: no step
    (tmp_path / "summary.json").unlink()
    assert summary.read_document(tmp_path) is None  # no document goes through a step
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "campaign.json").write_text("{}")  # a format-1 campaign
    assert results_campaign.read_info(tmp_path / "y") == {"upgraded": "campaign.json"}
    (tmp_path / "y" / "campaign.json").unlink()
    (tmp_path / "y" / "run-1").mkdir()
    (tmp_path / "y" / "run-1" / "plan.json").write_text("{}")  # now a format-1 session without campaign.json
    assert results_campaign.read_info(tmp_path / "y") is None
    version.mark(tmp_path, "run")
    assert version.upgraded(tmp_path, "summary.json", {"a": 1}) == {"a": 1}
    assert version.upgraded(tmp_path / "x" / "none", "summary.json", {"a": 1}) == {"a": 1}  # no results folder


def test_format_json_is_written_whole(tmp_path: Path) -> None:
    version.mark(tmp_path, "session")
    assert (tmp_path / "format.json").read_text() == '{\n  "format": 2,\n  "kind": "session"\n}\n'
    with pytest.raises(AssertionError):
        version.mark(tmp_path, "sessions")


@pytest.mark.parametrize("marker", [{"format": "2", "kind": "run"}, {"format": 2, "kind": "runs"}, {"kind": "run"},
                                    {"format": 2}])
def test_a_marker_sctpbench_did_not_write_is_refused_in_words(tmp_path: Path, marker: dict[str, Any]) -> None:
    jsonfile.write(tmp_path / "format.json", marker)
    with pytest.raises(jsonfile.ResultsFileError) as e:
        version.of(tmp_path)
    assert str(e.value) == (f"{tmp_path / 'format.json'}: not a format sctpbench wrote ({marker}); "
                            'allowed: {"format": 1..2, "kind": run | session | campaign}')


def test_a_newer_format_is_refused_whole_and_an_older_one_read(tmp_path: Path) -> None:
    jsonfile.write(tmp_path / "format.json", {"format": 3, "kind": "run"})
    with pytest.raises(jsonfile.ResultsFileError) as e:
        version.of(tmp_path)
    assert str(e.value) == f"{tmp_path / 'format.json'}: format 3 is newer than this sctpbench's; allowed: 1..2"
    jsonfile.write(tmp_path / "format.json", {"format": 1, "kind": "campaign"})
    assert version.of(tmp_path) == version.Format(1, "campaign")


def test_a_format_1_folders_kind_by_its_files(tmp_path: Path) -> None:
    assert version.of(tmp_path) is None
    (tmp_path / "run-1").mkdir()
    (tmp_path / "run-2").mkdir()
    assert version.of(tmp_path) is None  # run-*/ folders without a plan
    (tmp_path / "run-2" / "plan.json").write_text("{}")
    assert version.of(tmp_path) == version.Format(1, "session")  # any one of them
    (tmp_path / "plan.json").write_text("{}")
    assert version.of(tmp_path) == version.Format(1, "run")
    (tmp_path / "campaign.json").write_text("{}")
    assert version.of(tmp_path) == version.Format(1, "campaign")  # before plan.json
    (tmp_path / "campaign.json").unlink()
    (tmp_path / "campaign.json").mkdir()
    assert version.of(tmp_path) == version.Format(1, "run")  # files only


def test_a_folders_kind_or_the_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(folders.NotAResultsFolder) as e:
        folders.kind(tmp_path)
    assert str(e.value) == (f"{tmp_path}: not a run (plan.json), session (run-*/ folders) or campaign (campaign.json) "
                            "folder")
    version.mark(tmp_path, "campaign")
    assert folders.kind(tmp_path) == "campaign"


def test_the_run_folders_of_a_session_a_campaign_and_a_run(tmp_path: Path) -> None:
    for run in ("run-002", "run-001", "run-003", "runs/b", "runs/a", "runs/c", "other"):
        (tmp_path / run).mkdir(parents=True)
        if run not in ("run-003", "runs/c"):
            (tmp_path / run / "plan.json").write_text("{}")
    runs = [tmp_path / "run-001", tmp_path / "run-002"]
    assert folders.session_runs(tmp_path) == runs
    assert folders.campaign_runs(tmp_path) == [tmp_path / "runs/a", tmp_path / "runs/b"]
    assert folders.run_folders(tmp_path) == runs + [tmp_path / "runs/a", tmp_path / "runs/b"]
    assert folders.run_folders(tmp_path / "run-002") == [tmp_path / "run-002"]
    assert folders.run_folders(tmp_path / "run-003") == []


@pytest.mark.parametrize("name", ["plan.json", "summary.json", "backend.json", "params.json", "telemetry.json"])
def test_every_json_file_of_a_run_is_checked_before_a_command_uses_one(tmp_path: Path, name: str) -> None:
    folders.check_run_json(tmp_path)  # none is no error
    for good in folders.RUN_JSON:
        (tmp_path / good).write_text("{}")
    folders.check_run_json(tmp_path)
    (tmp_path / name).write_text("[]")
    with pytest.raises(jsonfile.ResultsFileError) as e:
        folders.check_run_json(tmp_path)
    assert str(e.value) == f"{tmp_path / name}: holds a list, not an object; {ALLOWED}"


# -- a campaign's files ------------------------------------------------------------------------


def test_runs_jsonl_and_each_runs_configuration(tmp_path: Path) -> None:
    assert results_campaign.read_log(tmp_path) == [] and results_campaign.config_of(tmp_path, "k1") == ""
    entries = [
        results_campaign.LogEntry("t1", "i1", "start", {"run_key": "k1", "config": "a"}),
        results_campaign.LogEntry("t2", "i1", "end", {"run_key": "k1", "config": "z"}),
        results_campaign.LogEntry("t3", "i2", "start", {"run_key": "k1", "config": "b"}),
        results_campaign.LogEntry("t4", "i2", "start", {"run_key": "k2", "config": "c"}),
        results_campaign.LogEntry("t5", "i2", "start", {"run_key": "k3"}),
    ]
    for entry in entries:
        results_campaign.log(tmp_path, entry)
    assert (tmp_path / "runs.jsonl").read_text().splitlines()[0] == (
        '{"time": "t1", "invocation": "i1", "event": "start", "run_key": "k1", "config": "a"}')
    assert results_campaign.read_log(tmp_path) == entries
    assert [results_campaign.config_of(tmp_path, k) for k in ("k1", "k2", "k3", "k4")] == ["b", "c", "", ""]


def test_campaign_json_marks_its_folder_and_is_read_upgraded(tmp_path: Path) -> None:
    assert results_campaign.read_info(tmp_path) is None
    results_campaign.write_info(tmp_path, DOCUMENT)
    assert (tmp_path / "campaign.json").read_text() == TEXT
    assert version.of(tmp_path) == version.Format(2, "campaign")
    assert results_campaign.read_info(tmp_path) == DOCUMENT


def test_a_campaigns_tables_and_the_carried_rows_by_run_key(tmp_path: Path) -> None:
    import pyarrow as pa

    schema = pa.schema([("run_key", pa.string()), ("commit", pa.string()), ("n", pa.int64())])
    assert results_campaign.read_table(tmp_path / "campaign.parquet") is None
    assert results_campaign.read_carried(tmp_path) == {}
    rows = [{"run_key": "b", "commit": "c2", "n": 2}, {"run_key": "a", "commit": "c1", "n": 1}]
    results_campaign.write_table(tmp_path / "carried.parquet", rows, schema)
    assert results_campaign.read_table(tmp_path / "carried.parquet") == rows
    assert results_campaign.read_carried(tmp_path) == {"b": rows[0], "a": rows[1]}


# -- files.py ----------------------------------------------------------------------------------


def test_a_run_files_name_as_a_glob_pattern() -> None:
    assert files.RunFile("captures/<path>-<host>.pcap", "w", "c").pattern == "captures/*-*.pcap"
    assert files.RunFile("backend.json", "w", "c").pattern == "backend.json"


def test_the_table_of_a_run_folders_files() -> None:
    rendered = files.render()
    width = max(len(f.name) for f in files.FILES + files.COLLECTED)
    lines = rendered.split("\n")
    assert lines[-1] == "" and len(lines) == 2 * len(files.FILES + files.COLLECTED) + 1
    first, optional = files.FILES[0], next(f for f in files.FILES if not f.required)
    assert lines[0] == first.name.ljust(width) + "  " + first.writer
    assert lines[1] == " " * width + "    " + first.content
    at = 2 * (files.FILES + files.COLLECTED).index(optional)
    assert lines[at] == optional.name.ljust(width) + "  " + optional.writer + " (when it applies)"
