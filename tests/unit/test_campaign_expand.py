"""Campaign expansion reads the base file once and keys runs without building plans: the
same runs, keys, seeds and experiments as loading every configuration afresh and building
its plan (the way it was done before, kept here as the reference), and the run keys of
three campaigns as recorded (golden files, made by that earlier code)."""

import os
import re
from pathlib import Path

import pytest

from sctpbench.campaign import expand, spec
from sctpbench.campaign.spec import as_written
from sctpbench.model import loading
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as planning

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests/data/golden"
GOLDEN_CAMPAIGNS = {"seed003-policies": "examples/campaigns/seed003-policies.yaml",
                    "tiny": "tests/data/campaigns/tiny.yaml",
                    "failover-tuning": "examples/campaigns/failover-tuning.yaml"}


def _listing(runs: list[expand.Run]) -> str:
    return "".join(f"{r.run_key} rep {r.repetition} seed {r.seed} {r.config.label}\n" for r in runs)


@pytest.mark.parametrize("name", GOLDEN_CAMPAIGNS)
def test_run_keys_are_the_recorded_ones(name: str) -> None:
    got = _listing(expand.runs(spec.load(ROOT / GOLDEN_CAMPAIGNS[name])))
    golden = GOLDEN / f"{name}.campaign.txt"
    if os.environ.get("SCTPBENCH_REGEN"):
        golden.write_text(got)
    assert got == golden.read_text()


def _slow(loaded: spec.Loaded) -> list[tuple[str, int, int, str, str]]:
    """Every configuration loaded from its file with its overrides, every run's plan built."""
    out = []
    for config in expand.configurations(loaded):
        overrides = ([f"{k}={as_written(v)}" for k, v in loaded.campaign.set.items()]
                     + [f"{k}={v}" for k, v in config.params] + [f"{k}={v}" for k, v in config.adjustments])
        experiment = loading.load(loaded.experiment_file, overrides).model_copy(update={"repeat": 1})
        for repetition in range(1, (loaded.campaign.repetitions or 1) + 1):
            plan = planning.build(experiment, repetition, "agent")
            out.append((plan.run_id, repetition, plan.seed, config.label, experiment.model_dump_json()))
    return out


def _fast(loaded: spec.Loaded) -> list[tuple[str, int, int, str, str]]:
    runs = expand.runs(loaded.model_copy(update={"campaign": loaded.campaign.model_copy(update={"order": "as-written"})}))
    return [(r.run_key, r.repetition, r.seed, r.config.label, r.experiment.model_dump_json()) for r in runs]


def test_a_grid_with_set_zip_adjust_and_lists_gives_what_a_fresh_load_gives(tmp_path: Path) -> None:
    campaign = tmp_path / "grid.yaml"
    campaign.write_text(f"""\
experiment: {ROOT / "examples/failover.yaml"}
set: {{workload.duration: 6s, sctp.hb_interval: 500ms}}
sweep:
  zip: {{sctp.rto_min: [100ms, 200ms], sctp.rto_initial: [300ms, 400ms]}}
  sctp.path_max_retrans: {{from: 1, to: 3, step: 1}}
  topology.paths.primary.delay: [5ms, 20ms]
adjust:
  - {{when: {{sctp.path_max_retrans: 2}}, set: {{sctp.sack_delay: 50ms}}}}
repetitions: 2
""")
    loaded = spec.load(campaign, ["sctp.rto_max=3s"])
    fast, slow = _fast(loaded), _slow(loaded)
    assert len(fast) == 2 * 3 * 2 * 2
    assert fast == slow


def test_an_override_through_a_yaml_alias_lands_as_in_a_fresh_read(tmp_path: Path) -> None:
    """A shaping block shared by two paths (an alias): changing it through one path changes
    both, in a fresh read and in the expansion's copy alike."""
    experiment = tmp_path / "aliased.yaml"
    experiment.write_text("""\
name: aliased
topology:
  hosts: [a, b]
  paths:
    one: &shaping {between: [a, b], delay: 10ms, rate: 10mbit}
    two: *shaping
workload: {client: a, server: b, size: 100B, rate: 50/s, duration: 2s}
""")
    campaign = tmp_path / "c.yaml"
    campaign.write_text("experiment: aliased.yaml\nsweep:\n  topology.paths.one.delay: [20ms, 30ms]\n")
    loaded = spec.load(campaign)
    fast = expand.runs(loaded)
    assert _fast(loaded) == _slow(loaded)
    assert {r.experiment.topology.paths["two"].delay for r in fast} == {r.experiment.topology.paths["one"].delay for r in fast}


def test_a_bad_swept_value_names_the_campaigns_line_as_before(tmp_path: Path) -> None:
    campaign = tmp_path / "bad.yaml"
    campaign.write_text(f"experiment: {ROOT / 'examples/failover.yaml'}\nsweep:\n  sctp.rto_min: [100ms, fast]\n")
    with pytest.raises(SpecError, match=r"bad.yaml:3: sweep.sctp.rto_min: .*\(configuration sctp.rto_min=fast\)"):
        expand.runs(spec.load(campaign))


def test_check_plans_builds_each_runs_plan_with_its_key(tmp_path: Path) -> None:
    runs = expand.runs(spec.load(ROOT / "tests/data/campaigns/tiny.yaml"))
    expand.check_plans(runs)  # raises when a plan's id is not its run's key


def _only_grid(tmp_path: Path) -> spec.Loaded:
    campaign = tmp_path / "grid.yaml"
    campaign.write_text(f"""\
experiment: {ROOT / "examples/failover.yaml"}
sweep:
  zip: {{sctp.rto_initial: [1s, 2s], sctp.rto_max: [4s, 8s]}}
  sctp.rto_min: [100ms, 200ms, 300ms]
repetitions: 2
""")
    return spec.load(campaign)


def test_only_keeps_the_runs_with_the_values_asked_for_and_their_keys(tmp_path: Path) -> None:
    loaded = _only_grid(tmp_path)
    every = expand.runs(loaded)
    part = expand.only(loaded, every, ["sctp.rto_min=100ms", "sctp.rto_min=300ms", "sctp.rto_max=8s"])
    # one value of the zip x two of rto_min x two repetitions, each the same run as in the whole
    assert len(part) == 4 and all(r in every for r in part)
    assert {dict(r.config.params)["sctp.rto_min"] for r in part} == {"100ms", "300ms"}
    assert {dict(r.config.params)["sctp.rto_initial"] for r in part} == {"2s"}
    assert expand.only(loaded, every, []) == every


@pytest.mark.parametrize(("text", "says"), [
    ("sctp.rto_min=150ms", "'150ms' is not a value of sctp.rto_min in the sweep; allowed: 100ms, 200ms, 300ms"),
    ("sctp.sack_delay=0", "sctp.sack_delay is not a swept key of grid.yaml; allowed: KEY=VALUE with KEY one of "
                          "sctp.rto_initial, sctp.rto_max, sctp.rto_min"),
    ("sctp.rto_min", "'' is not a value of sctp.rto_min"),
])
def test_only_refuses_a_key_or_value_the_sweep_lacks(tmp_path: Path, text: str, says: str) -> None:
    loaded = _only_grid(tmp_path)
    with pytest.raises(SpecError, match=re.escape(f"--only {text}: {says}")):
        expand.only(loaded, expand.runs(loaded), [text])
