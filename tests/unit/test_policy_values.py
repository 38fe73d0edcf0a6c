"""A policy text the plan accepts is one the agent accepts, and one it refuses the agent
refuses: the values are checked before anything is built, by the agent's own rules
(model/policy.py VALUE_RULES against workloads/agent/common/policy.c), so a bad value never
gets as far as a guest that then fails with "did not print ready"."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sctpbench.model.policy import policy_problem

AGENT_DIR = Path(__file__).resolve().parents[2] / "sctpbench/workloads/agent"

TEXTS = [
    "delay-centric", "delay-centric:hysteresis=10", "delay-centric:hysteresis=0", "delay-centric:hysteresis=-5",
    "delay-centric:hysteresis=1_0", "delay-centric:hysteresis=inf", "delay-centric:hysteresis=ten",
    "delay-centric:guard=1000-4000", "delay-centric:guard=4000-1000", "delay-centric:guard=1000", "delay-centric:guard=-5",
    "delay-centric:guard=3600001", "delay-centric:guard_hb=20", "delay-centric:guard_hb=1.5", "delay-centric:seed=18446744073709551615",
    "delay-centric:seed=18446744073709551616", "delay-centric:hz=0", "delay-centric:hz=1000",
    "delay-centric:hz=1", "delay-centric:hz=100000", "delay-centric:hz=100001", "delay-centric:guard_hb=3600000",
    "delay-centric:guard_hb=3600001",
    "predictive:form=modified,threshold=70", "predictive:form=new", "predictive:threshold=-1",
    "predictive:short=0.2", "predictive:short=0.1,long=0.5", "predictive:short=0.5,long=0.5", "predictive:long=0",
    "predictive:short=1.5", "rtt-ratio:alpha_c=3,alpha_a=9", "rtt-ratio:alpha_c=0.5", "rtt-ratio:beta=1000",
    "rtt-ratio:beta=-1", "signal:switch=-75,prepare=-65", "signal:prepare=-90", "signal:hysteresis=300",
    "signal:switch=-201",
]


@pytest.fixture(scope="module")
def agent() -> Path:
    subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "all"], check=True, capture_output=True, text=True)
    return AGENT_DIR / "build/sctpbench-agent"


def _agent_refuses(agent: Path, tmp_path: Path, policy: str) -> bool:
    args = ["--signal", str(tmp_path / "s.sig")] if policy.startswith("signal") else []
    (tmp_path / "s.sig").write_text("0 198.18.0.2 -60\n")
    r = subprocess.run([str(agent), "client", "--local", "198.18.0.1", "--peer", "198.18.0.2,198.18.1.2", "--port", "5000",
                        "--records", str(tmp_path / "c.rec"), "--size", "200", "--rate", "50", "--arrival", "periodic",
                        "--seed", "1", "--duration", "1000", "--policy", policy, *args], capture_output=True, text=True, timeout=30)
    # A usage error is 2; past the command line the host's missing kernel SCTP fails otherwise.
    return r.returncode == 2 and "--policy" in r.stderr


@pytest.mark.parametrize("text", TEXTS)
def test_the_plan_and_the_agent_agree_on_a_policy_text(agent: Path, tmp_path: Path, text: str) -> None:
    problem = policy_problem(text)
    assert (problem is not None) == _agent_refuses(agent, tmp_path, text), f"plan: {problem!r}"
    if problem is not None:
        assert "\n" not in problem and "allowed" in problem, problem


def test_the_corpus_has_both_verdicts() -> None:
    """The list above would prove nothing if every text were good, or every one bad."""
    verdicts = [policy_problem(t) is None for t in TEXTS]
    assert 10 < sum(verdicts) < len(TEXTS) - 10
