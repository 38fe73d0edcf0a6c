"""Preconditions: a claim about a mechanism speaks only of runs where the mechanism ran.

Seed 002's α claims were contradicted with 0 switches in 14 of 16 runs: the verdict described
the setup, not the paper. With `requires: [{metric: path_switches, above: 0}]` such a check
is *not exercised*, which is not conclusive; where the runs meet it, the verdict stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sctpbench import cli
from sctpbench.analysis import claims

KEY = "workload.policy"


def _rows(switches: dict[str, list[float]], acked: dict[str, list[float]]) -> list[dict[str, Any]]:
    return [{"config": f"{KEY}={p}", "repetition": i, "seed": i, "status": "ok", f"param.{KEY}": p,
             "path_switches": s, "acked_at_30s": a}
            for p in switches for i, (s, a) in enumerate(zip(switches[p], acked[p], strict=True), start=1)]


def _loaded(tmp_path: Path, requires: str) -> claims.Loaded:
    path = tmp_path / "c.yaml"
    path.write_text(f"""paper: "test"
axes:
  policy: {{key: {KEY}, values: {{alpha2: a2, alpha8: a8}}}}
claims:
  - id: larger-alpha-better
    says: "the SCTP throughput gets better for a larger α"
    where: "Sec. 4"
    metric: acked_at_30s
    kind: greater
    a: {{policy: alpha8}}
    b: {{policy: alpha2}}
{requires}""")
    return claims.load(path)


NEVER_SWITCHED = _rows({"a2": [0, 0, 0, 1], "a8": [0, 0, 0, 0]}, {"a2": [2000, 2010, 2005, 2100], "a8": [1700, 1705, 1702, 1710]})
REQUIRES_SOME = "    requires:\n      - {metric: path_switches, above: 0, runs: some}\n"


def test_a_claim_whose_mechanism_never_ran_is_not_exercised(tmp_path: Path) -> None:
    bare = claims.evaluate(_loaded(tmp_path, ""), NEVER_SWITCHED, [KEY])[0]
    assert bare.verdict == "contradicted"  # what seed 002's file said
    every = claims.evaluate(_loaded(tmp_path, "    requires:\n      - {metric: path_switches, above: 0}\n"), NEVER_SWITCHED, [KEY])[0]
    assert every.verdict == "not exercised"
    assert every.line().startswith("NOT EXERCISED larger-alpha-better: ")
    assert "; requires path_switches > 0 in 1 of 8 runs → not exercised" in every.line()


def test_a_claim_whose_runs_meet_the_precondition_keeps_its_verdict(tmp_path: Path) -> None:
    switched = _rows({"a2": [3, 4, 5, 3], "a8": [1, 1, 2, 1]}, {"a2": [2000, 2010, 2005, 2100], "a8": [1700, 1705, 1702, 1710]})
    result = claims.evaluate(_loaded(tmp_path, "    requires:\n      - {metric: path_switches, above: 0}\n"), switched, [KEY])[0]
    assert result.verdict == "contradicted"
    assert "requires path_switches > 0 in 8 of 8 runs → contradicted" in result.line()


def test_some_run_is_enough_when_the_claim_says_so(tmp_path: Path) -> None:
    result = claims.evaluate(_loaded(tmp_path, REQUIRES_SOME), NEVER_SWITCHED, [KEY])[0]
    assert result.verdict == "contradicted"
    none = [r | {"path_switches": 0} for r in NEVER_SWITCHED]
    assert claims.evaluate(_loaded(tmp_path, REQUIRES_SOME), none, [KEY])[0].verdict == "not exercised"


def test_a_metric_present_means_the_event_happened(tmp_path: Path) -> None:
    """`requires: [{metric: failover_time_ms}]`: the failure happened (a failover time exists)."""
    rows = [r | {"failover_time_ms": None if r["repetition"] == 2 else 100.0} for r in NEVER_SWITCHED]
    result = claims.evaluate(_loaded(tmp_path, "    requires:\n      - {metric: failover_time_ms}\n"), rows, [KEY])[0]
    assert result.verdict == "not exercised" and "failover_time_ms present in 6 of 8 runs" in result.line()


def test_a_contradicted_check_elsewhere_still_contradicts(tmp_path: Path) -> None:
    """for_each: one group never exercised, another contradicted: the claim is contradicted."""
    rows = [r | {"param.gap": "small"} for r in NEVER_SWITCHED]
    rows += [r | {"param.gap": "large", "path_switches": 2} for r in NEVER_SWITCHED]
    loaded = _loaded(tmp_path, "    for_each: [gap]\n    requires:\n      - {metric: path_switches, above: 0}\n")
    result = claims.evaluate(loaded, rows, [KEY, "gap"])[0]
    assert [c.verdict for c in result.checks] == ["contradicted", "not exercised"]
    assert result.verdict == "contradicted"
    assert claims.counts([result]) == {"holds": 0, "contradicted": 1, "inconclusive": 0}


def test_check_counts_claims_not_exercised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "campaign"
    folder.mkdir()
    (folder / "campaign.json").write_text('{"name": "t", "swept": ["workload.policy"]}')
    full = [{k: r.get(k) for k in ("config", "repetition", "seed", "status", f"param.{KEY}")} | {"run_key": f"{r['config']}-{r['repetition']}",
            "config_key": r["config"], "error": None, "retries": 0, "directory": "runs/x", "path_switches": float(r["path_switches"]),
            "acked_at_30s": float(r["acked_at_30s"])} for r in NEVER_SWITCHED]
    _write(folder, full)
    loaded = _loaded(tmp_path, "    requires:\n      - {metric: path_switches, above: 0}\n")
    assert cli.main(["campaign", "check", str(folder), str(loaded.file)]) == 0  # not exercised is no contradiction
    out = capsys.readouterr().out
    assert "0 hold, 0 contradicted, 0 inconclusive, 1 not exercised; verdicts in" in out


def _write(folder: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sctpbench.results import campaign as campaign_files

    pq.write_table(pa.Table.from_pylist(rows), folder / campaign_files.RUNS_TABLE)
