"""The distributed executor's pieces that need no guest: a run folder travels as an archive
and is committed once; a worker's software is compared fact by fact; a run's experiment
needs none of the files it was loaded from. (tests/guest/test_distributed.py runs it.)"""

import io
import pickle
import shutil
import tarfile
from pathlib import Path

import pytest

from sctpbench.campaign import execute, expand, remote, spec, table
from sctpbench.model import loading
from sctpbench.plan import build as planning

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests/data/campaigns/tiny.yaml"


def _run_folder(tmp_path: Path, status: str) -> Path:
    folder = tmp_path / "made-elsewhere"
    (folder / "records").mkdir(parents=True)
    (folder / "summary.json").write_text(f'{{"status": "{status}", "error": null, "metrics": {{}}}}')
    (folder / "records" / "main.client.rec").write_bytes(b"\x00\x01")
    return folder


def test_a_run_that_comes_back_twice_is_committed_once(tmp_path: Path) -> None:
    run = expand.runs(spec.load(TINY))[0]
    campaign = tmp_path / "campaign"
    first = remote.pack(_run_folder(tmp_path, "ok"))
    assert execute.receive(campaign, run, first, remote.unpack)
    assert table.run_summary(campaign / "runs" / run.run_key)["status"] == "ok"
    assert (campaign / "runs" / run.run_key / "records" / "main.client.rec").read_bytes() == b"\x00\x01"
    shutil.rmtree(tmp_path / "made-elsewhere")
    assert not execute.receive(campaign, run, remote.pack(_run_folder(tmp_path, "failed")), remote.unpack)
    assert table.run_summary(campaign / "runs" / run.run_key)["status"] == "ok"
    assert not list((campaign / "runs").glob(".incoming-*"))


def test_a_failed_attempt_is_set_aside_when_the_next_comes_back(tmp_path: Path) -> None:
    run = expand.runs(spec.load(TINY))[0]
    campaign = tmp_path / "campaign"
    execute.receive(campaign, run, remote.pack(_run_folder(tmp_path, "failed")), remote.unpack)
    shutil.rmtree(tmp_path / "made-elsewhere")
    assert execute.receive(campaign, run, remote.pack(_run_folder(tmp_path, "ok")), remote.unpack)
    assert table.run_summary(campaign / "runs" / run.run_key)["status"] == "ok"
    assert table.run_summary(campaign / "attempts" / f"{run.run_key}-1")["status"] == "failed"


@pytest.mark.parametrize("name", ["../escape", "/etc/passwd-copy"])
def test_an_archive_naming_files_outside_the_run_folder_is_refused(tmp_path: Path, name: str) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(ValueError, match="not a file inside the run folder"):
        remote.unpack(buffer.getvalue(), tmp_path / "run")
    assert not (tmp_path / "escape").exists()


def test_what_differs_is_said_fact_by_fact() -> None:
    client = {"sctpbench": "0.1.0", "agent": "aa", "kernel": "project 6.1", "kernel_key": "k1", "kernel_config": "c1"}
    assert remote.differences(client, dict(client)) is None
    why = remote.differences(client, client | {"kernel_key": "k2", "agent": "bb"})
    assert why == "agent bb (client aa); kernel_key k2 (client k1)"


def test_this_machines_software_names_the_kernel_the_uml_backend_boots() -> None:
    facts = remote.software("uml")
    assert set(facts) == set(remote.FACTS)
    assert len(facts["agent"]) == 16 or facts["agent"] == "missing"


@pytest.mark.parametrize("name", ["delay-step.yaml", "drop-pattern.yaml", "signal-handover.yaml"])
def test_a_run_travels_without_the_files_it_was_loaded_from(tmp_path: Path, name: str) -> None:
    """spec.load reads traces, patterns and topologies into the experiment: a worker that has
    none of the experiment's files builds the same plan (the same run id) from what travels."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    experiment = loading.load(tmp_path / "examples" / name, [])
    plan = planning.build(experiment, 1, "agent")
    shutil.rmtree(tmp_path / "examples")
    task = remote.Task(plan.run_id, experiment, 1, "uml", {})
    arrived: remote.Task = pickle.loads(pickle.dumps(task))
    assert planning.build(arrived.experiment, arrived.repetition, "agent").to_json() == plan.to_json()
