"""`policy:` on a workload: checked in the spec, passed to the client agent as --policy,
left out of the run id at its default; the agent's `policy` records in path_events as POLICY."""

from pathlib import Path

import pytest

from sctpbench.analysis import store
from sctpbench.collectors import records
from sctpbench.model import spec
from sctpbench.model.errors import SpecError
from sctpbench.plan import build as plan

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = """topology:
  hosts: [a, b]
  paths:
    one: {between: [a, b], delay: 10ms}
    two: {between: [a, b], delay: 10ms}
"""


def _load(tmp_path: Path, workload: str) -> spec.Experiment:
    f = tmp_path / "x.yaml"
    f.write_text(TOPOLOGY + f"workload: {{client: a, server: b, duration: 1s{workload}}}\n")
    return spec.load(f, [])


def _client_argv(e: spec.Experiment) -> list[str]:
    p = plan.build(e, 1, "agent")
    return next(proc.argv for proc in p.processes if proc.role == "client")


def test_the_policy_reaches_the_client_only_when_not_static(tmp_path: Path) -> None:
    argv = _client_argv(_load(tmp_path, ", policy: 'delay-centric:hysteresis=10,guard=1000-4000'"))
    assert argv[argv.index("--policy") + 1] == "delay-centric:hysteresis=10,guard=1000-4000"
    assert "--policy" not in _client_argv(_load(tmp_path, ""))
    assert "--policy" not in _client_argv(_load(tmp_path, ", policy: static"))


def test_a_static_policy_keeps_the_run_id_and_another_changes_it(tmp_path: Path) -> None:
    assert plan.build(spec.load(ROOT / "examples" / "failover.yaml"), 1, "agent").run_id == "e1f71b26ccb1"
    ids = {plan.build(_load(tmp_path, extra), 1, "agent").run_id for extra in ("", ", policy: static")}
    assert len(ids) == 1
    assert plan.build(_load(tmp_path, ", policy: predictive"), 1, "agent").run_id not in ids


@pytest.mark.parametrize("text, expected", [
    ("fastest", "policy: unknown policy 'fastest'"),
    ("static:guard=1", "static takes no parameters"),
    ("delay-centric:alpha_c=2", "unknown parameter 'alpha_c' for delay-centric"),
    ("rtt-ratio:beta", "bad parameter 'beta' (KEY=VALUE)"),
])
def test_a_bad_policy_gets_one_message(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(SpecError) as e:
        _load(tmp_path, f", policy: '{text}'")
    assert expected in str(e.value), str(e.value)


def test_policy_records_become_policy_path_events() -> None:
    rec = records.parse([
        "meta\trole\tclient\n",
        "policy\t5000\tswitch\t198.18.0.2\t198.18.1.2\t198.18.1.2\tsrtt 49.0>20.0+10\t"
        "198.18.0.2,ACTIVE,49.0,1000,4380,-,-\t198.18.1.2,ACTIVE,20.0,1000,6000,-,-\n",
    ])
    assert rec.policy == [records.PolicyDecision(5000, "switch", "198.18.0.2", "198.18.1.2", "198.18.1.2", "srtt 49.0>20.0+10",
                                                 ("198.18.0.2,ACTIVE,49.0,1000,4380,-,-", "198.18.1.2,ACTIVE,20.0,1000,6000,-,-"))]
    rows = store.agent_event_rows("client", rec, {"198.18.1.2": "two"}, lambda t: t - 1000, "main")
    assert rows == [{"association": "main", "t_ns": 5000, "t_rel_ns": 4000, "source": "client", "kind": store.POLICY,
                     "path": "two", "addr": "198.18.1.2",
                     "detail": "switch 198.18.0.2 -> 198.18.1.2: srtt 49.0>20.0+10; "
                               "198.18.0.2,ACTIVE,49.0,1000,4380,-,- 198.18.1.2,ACTIVE,20.0,1000,6000,-,-"}]
