"""Backends behind one protocol, found by name: the registry is the only list of them."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from sctpbench import cli
from sctpbench.backends import registry
from sctpbench.backends.netns import render as netns_render
from sctpbench.backends.protocol import Backend, Check, Report
from sctpbench.backends.uml import guests as uml_guests
from sctpbench.model import spec
from sctpbench.model.errors import BackendError
from sctpbench.orchestration import capabilities, clock
from sctpbench.plan import build as planning
from sctpbench.plan.data import Plan
from sctpbench.results import files

ROOT = Path(__file__).resolve().parents[2]
FAILOVER = ROOT / "examples" / "failover.yaml"


class Toy:
    """A backend that can run nothing but says so: enough to see who asks the registry."""

    name = "toy"
    clocks = ("virtual", "real")

    def checks(self) -> list[Check]:
        return [Check("toy", True, "always")]

    def available(self, clock: str | None = None) -> tuple[bool, str]:
        return (clock in (None, *self.clocks)), "no such clock"

    def run_plan(self, plan: Plan, run_dir: Path, report: Report) -> None:
        raise BackendError("the toy backend runs nothing")

    def missing_sysctls(self, names: Sequence[str], clock: str) -> tuple[list[str], str]:
        return list(names), "the toy kernel"

    def render(self, plan: Plan, run_dir: str) -> str:
        return "# toy\n"

    def host_facts(self) -> dict[str, str]:
        return {}

    def reap(self, run_id: str, owner_pid: int) -> None:
        pass


@pytest.fixture
def with_toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "PLACES", {**registry.PLACES, "toy": f"{__name__}:Toy"})


def _plan() -> Plan:
    return planning.build(spec.load(FAILOVER), 1, "/opt/sctpbench-agent")


def test_the_registry_lists_exactly_the_backends_in_auto_order() -> None:
    assert registry.names() == ("netns", "uml", "mininet", "ansible")
    assert registry.AUTO == ("netns", "uml")  # mininet and ansible (other machines) run only when asked for


@pytest.mark.parametrize("name", registry.names())
def test_every_registered_backend_satisfies_the_protocol(name: str) -> None:
    backend = registry.get(name)
    assert isinstance(backend, Backend)
    assert backend.name == name
    assert backend.clocks and set(backend.clocks) <= {"virtual", "paced", "real"}
    ok, why = backend.available()
    assert isinstance(ok, bool) and (ok or why)
    assert all(isinstance(c, Check) for c in backend.checks())
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in backend.host_facts().items())


def test_a_run_on_the_guest_imports_no_other_backend() -> None:
    """The registry imports a backend when it is asked for: Ansible's and Mininet's code is not
    start-up time of a run on the guest."""
    code = ("import sys; from sctpbench.backends import registry; registry.get('uml'); "
            "print(sorted(m for m in sys.modules if m.startswith('sctpbench.backends.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert "sctpbench.backends.uml.backend" in loaded
    assert "sctpbench.backends.ansible" not in loaded and "sctpbench.backends.mininet" not in loaded


def test_an_unknown_backend_is_named_with_the_allowed_ones() -> None:
    with pytest.raises(BackendError, match=r"no backend named 'ns3'; allowed: netns, uml, mininet"):
        registry.get("ns3")


def _backend_choices(parser: argparse.ArgumentParser, *path: str) -> list[str]:
    for word in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    option = next(a for a in parser._actions if "--backend" in a.option_strings)
    return list(option.choices or [])


@pytest.mark.usefixtures("with_toy")
def test_backend_choices_of_every_command_come_from_the_registry() -> None:
    parser = cli.parser()
    for path in (("run",), ("plan",), ("check",), ("campaign", "run")):
        assert _backend_choices(parser, *path) == ["auto", "netns", "uml", "mininet", "ansible", "toy"], path


@pytest.mark.usefixtures("with_toy")
def test_capabilities_and_clock_ask_the_backend() -> None:
    assert capabilities.choose_backend("toy") == ("toy", "")
    assert any(c.name == "toy" for c in capabilities.all_checks())
    virtual = spec.load(FAILOVER, ["clock=virtual"])
    assert clock.for_backend(virtual, "toy", "x").experiment is virtual
    paced = spec.load(FAILOVER, ["clock=paced"])
    with pytest.raises(Exception, match="clock: 'paced' is not available here: no such clock"):
        clock.for_backend(paced, "toy", "x")


def test_each_backend_renders_the_plan_as_its_commands() -> None:
    p = _plan()
    assert registry.get("netns").render(p, "$RUN") == netns_render.render(p, "$RUN")
    on_guest = registry.get("uml").render(p, "/r")
    assert on_guest.startswith("# uml backend:") and on_guest.endswith(netns_render.render(p, "/r"))


def test_plan_prints_the_chosen_backends_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plan", str(FAILOVER), "--backend", "netns"]) == 0
    assert capsys.readouterr().out == netns_render.render(_plan_for_cli())


def _plan_for_cli() -> Plan:
    return planning.build(spec.load(FAILOVER), 1, str(capabilities.agent_path()))


def _wait_for_exec(pid: int, word: str) -> None:
    """Popen can return before /proc shows the new program's command line."""
    deadline = time.monotonic() + 5
    while word.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_the_uml_backend_finds_and_reaps_a_runs_guest_by_its_id() -> None:
    # Any process carrying the guest's id on its command line stands in for the guest's kernel;
    # its own session, as a guest has, so the reap's killpg reaches it and nothing else.
    run_id, owner = "feedc0de1234", 4242
    word = f"umid={uml_guests.guest_id(run_id, owner)}"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", word], start_new_session=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                              f"umid={uml_guests.guest_id(run_id, owner + 1)}"], start_new_session=True)
    try:
        _wait_for_exec(proc.pid, word)
        _wait_for_exec(other.pid, "umid=sb-feedc0de-4243")
        assert uml_guests.guest_id(run_id, owner) == "sb-feedc0de-4242"
        assert proc.pid in uml_guests.pids(run_id, owner) and other.pid not in uml_guests.pids(run_id, owner)
        assert {proc.pid, other.pid} <= uml_guests.pids(run_id)
        registry.get("uml").reap(run_id, owner)
        assert proc.wait(timeout=5) == -9
        time.sleep(0.1)
        assert other.poll() is None  # another owner's guest of the same run is left alone
    finally:
        for p in (proc, other):
            p.kill()
            p.wait()


def test_the_run_folder_contract_names_each_file_once_and_the_docs_point_to_it() -> None:
    names = [f.name for f in files.FILES]
    assert len(names) == len(set(names))
    assert {"backend.json", "events.jsonl", "kernel.json", "versions.json", "guest.json", "console.log"} <= set(names)
    assert "sctpbench/results/files.py" in (ROOT / "docs" / "results.md").read_text()
    assert files.FILES[0].name in files.render()
