"""Campaigns without a kernel: expansion, order, identity, errors, tables, statistics, JUnit."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sctpbench.analysis import metrics
from sctpbench.campaign import compare, expand, spec, table
from sctpbench.campaign.expand import Configuration, Run
from sctpbench.model.errors import SpecError

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests/data/campaigns/tiny.yaml"
ERRORS = sorted((Path(__file__).resolve().parents[1] / "data" / "campaign_errors").glob("*.yaml"))


def _campaign(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    (tmp_path / "base.yaml").write_text((ROOT / "tests/data/campaigns/tiny-experiment.yaml").read_text())
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", ERRORS, ids=[p.stem for p in ERRORS])
def test_bad_campaign_gets_one_message_naming_file_line_key_and_allowed(case: Path) -> None:
    expected = case.read_text().splitlines()[0].removeprefix("# expect: ")
    with pytest.raises(SpecError) as e:
        expand.runs(spec.load(case))
    assert str(e.value).startswith(f"{case.parent}/{expected}"), str(e.value)
    assert "\n" not in str(e.value)


def test_cross_product_zip_and_range_in_sweep_order(tmp_path: Path) -> None:
    path = _campaign(tmp_path, """
experiment: base.yaml
sweep:
  zip: {sctp.rto_min: [100ms, 200ms], sctp.rto_initial: [100ms, 200ms]}
  sctp.path_max_retrans: {from: 1, to: 3, step: 1}
  sctp.sack_delay: [10ms, 40ms]
repetitions: 2
""")
    loaded = spec.load(path)
    assert loaded.swept == ["sctp.rto_min", "sctp.rto_initial", "sctp.path_max_retrans", "sctp.sack_delay"]
    configs = expand.configurations(loaded)
    assert len(configs) == 2 * 3 * 2
    assert configs[0].label == "sctp.rto_min=100ms sctp.rto_initial=100ms sctp.path_max_retrans=1 sctp.sack_delay=10ms"
    assert configs[-1].label == "sctp.rto_min=200ms sctp.rto_initial=200ms sctp.path_max_retrans=3 sctp.sack_delay=40ms"
    runs = expand.runs(loaded)
    assert len(runs) == 24 and len({r.run_key for r in runs}) == 24
    run = next(r for r in runs if r.config == configs[-1] and r.repetition == 2)
    assert run.experiment.sctp.rto_min == 200_000_000 and run.experiment.sctp.path_max_retrans == 3
    assert run.experiment.sctp.sack_delay == 40_000_000 and run.seed == run.experiment.seed + 1


def test_ranges_keep_the_unit_and_include_the_end() -> None:
    assert spec.expand_range({"from": "100ms", "to": "400ms", "step": "100ms"}, "x") == ["100ms", "200ms", "300ms", "400ms"]
    assert spec.expand_range({"from": 0.5, "to": 1.5, "step": 0.5}, "x") == ["0.5", "1", "1.5"]
    with pytest.raises(SpecError, match="step > 0"):
        spec.expand_range({"from": 2, "to": 1, "step": 1}, "x")


def test_order_is_shuffled_by_seed_and_reproducible(tmp_path: Path) -> None:
    text = "experiment: base.yaml\nsweep: {sctp.path_max_retrans: [1, 2, 3, 4]}\nrepetitions: 3\n"
    a = [r.run_key for r in expand.runs(spec.load(_campaign(tmp_path, text + "seed: 1\n", "a.yaml")))]
    a2 = [r.run_key for r in expand.runs(spec.load(_campaign(tmp_path, text + "seed: 1\n", "a2.yaml")))]
    b = [r.run_key for r in expand.runs(spec.load(_campaign(tmp_path, text + "seed: 2\n", "b.yaml")))]
    written = expand.runs(spec.load(_campaign(tmp_path, text + "order: as-written\n", "w.yaml")))
    assert a == a2 and a != b and sorted(a) == sorted(b)
    assert [(r.config.label, r.repetition) for r in written][:4] == [
        ("sctp.path_max_retrans=1", 1), ("sctp.path_max_retrans=1", 2), ("sctp.path_max_retrans=1", 3), ("sctp.path_max_retrans=2", 1)]


def test_identity_is_content_derived(tmp_path: Path) -> None:
    """More repetitions only add runs; changing what a run does changes its key, not its config's."""
    base = "experiment: base.yaml\nsweep: {sctp.path_max_retrans: [1, 2]}\n"
    three = {r.run_key: r for r in expand.runs(spec.load(_campaign(tmp_path, base + "repetitions: 3\n", "a.yaml")))}
    five = {r.run_key: r for r in expand.runs(spec.load(_campaign(tmp_path, base + "repetitions: 5\n", "b.yaml")))}
    assert set(three) < set(five) and len(five) == 10
    changed = expand.runs(spec.load(_campaign(tmp_path, base + "repetitions: 3\nset: {sctp.rto_max: 500ms}\n", "c.yaml")))
    assert not set(three) & {r.run_key for r in changed}
    assert {r.config.key for r in changed} == {r.config.key for r in three.values()}
    overridden = expand.runs(spec.load(_campaign(tmp_path, base + "repetitions: 3\n", "d.yaml"), ["sctp.rto_max=500ms"]))
    assert {r.run_key for r in overridden} == {r.run_key for r in changed}


def test_adjust_changes_matching_configurations_but_not_their_label(tmp_path: Path) -> None:
    path = _campaign(tmp_path, """
experiment: base.yaml
sweep: {sctp.path_max_retrans: [1, 2]}
adjust:
  - {when: {sctp.path_max_retrans: 2}, set: {sctp.rto_min: 300ms, sctp.rto_initial: 300ms}}
""")
    runs = {r.config.label: r for r in expand.runs(spec.load(path))}
    assert runs["sctp.path_max_retrans=2"].experiment.sctp.rto_min == 300_000_000
    assert runs["sctp.path_max_retrans=1"].experiment.sctp.rto_min == 100_000_000


def test_no_sweep_is_one_configuration_of_repetitions(tmp_path: Path) -> None:
    runs = expand.runs(spec.load(_campaign(tmp_path, "experiment: base.yaml\nrepetitions: 4\n")))
    assert [r.config.label for r in runs] == ["(base)"] * 4


def _fake_run(campaign_dir: Path, run: Run, status: str, failover: float | None, mtt: float = 10.0) -> None:
    folder = campaign_dir / "runs" / run.run_key
    folder.mkdir(parents=True)
    m = {k: None for k in metrics.METRIC_KEYS} | {"failover_time_ms": failover, "detection_time_ms": 300.0 + (failover or 0),
                                                   "mtt_p50_ms": mtt, "mmtt_ms": 200.0, "messages_sent": 125}
    (folder / "summary.json").write_text(json.dumps({"status": status, "error": None if status == "ok" else "boom", "metrics": m}))


def _campaign_dir(tmp_path: Path, name: str, failover: dict[str, list[float]]) -> Path:
    """A campaign folder as execute leaves it, with chosen failover times per configuration."""
    loaded = spec.load(TINY)
    runs = expand.runs(loaded)
    folder = tmp_path / name
    folder.mkdir()
    for run in runs:
        _fake_run(folder, run, "ok", failover[run.config.label][run.repetition - 1])
    info = {"name": "tiny", "budgets": [b.to_dict() for b in loaded.campaign.budgets], "swept": loaded.swept}
    (folder / "campaign.json").write_text(json.dumps(info))
    table.write(folder, runs, loaded.swept)
    return folder


BASE = {"sctp.path_max_retrans=1": [101.0, 103.0, 102.0], "sctp.path_max_retrans=2": [100.0, 104.0, 102.0]}


def test_tables_have_the_contract_columns(tmp_path: Path) -> None:
    folder = _campaign_dir(tmp_path, "a", BASE)
    rows = table.read(folder)
    assert len(rows) == 6
    for column in ["run_key", "config_key", "config", "repetition", "seed", "status", "param.sctp.path_max_retrans",
                   *metrics.METRIC_KEYS, "directory"]:
        assert column in rows[0]
    row = next(r for r in rows if r["config"] == "sctp.path_max_retrans=2" and r["repetition"] == 1)
    assert row["param.sctp.path_max_retrans"] == "2" and row["failover_time_ms"] == 100.0 and row["mtt_mean_ms"] is None
    assert (folder / row["directory"] / "summary.json").is_file()
    import pyarrow.parquet as pq

    configs = pq.read_table(folder / table.CONFIGS_FILE).to_pylist()
    c2 = next(c for c in configs if c["config"] == "sctp.path_max_retrans=2")
    assert c2["failover_time_ms_mean"] == pytest.approx(102.0) and c2["failover_time_ms_n"] == 3
    assert c2["failover_time_ms_ci95"] == pytest.approx(metrics.mean_ci95([100.0, 104.0, 102.0])["ci95"])
    assert c2["config_key"] == expand.config_key("sctp.path_max_retrans=2") and c2["param.sctp.path_max_retrans"] == "2"


def test_judge_needs_both_significance_and_effect_in_the_bad_direction() -> None:
    base = [100.0, 102.0, 101.0, 99.0]
    assert compare.judge("c", "failover_time_ms", [300.0, 305.0, 298.0, 301.0], base, "welch", 0.05, 0.1).verdict == "regressed"
    assert compare.judge("c", "failover_time_ms", [50.0, 51.0, 49.0, 50.0], base, "welch", 0.05, 0.1).verdict == "improved"
    small = compare.judge("c", "failover_time_ms", [105.0, 106.0, 105.5, 104.5], base, "welch", 0.05, 0.1)
    assert small.p_value is not None and small.p_value < 0.05 and small.verdict == "unchanged"  # significant, but < 10 %
    noisy = compare.judge("c", "failover_time_ms", [100.0, 300.0, 50.0, 200.0], base, "welch", 0.05, 0.1)
    assert noisy.verdict == "unchanged"
    fewer = compare.judge("c", "messages_delivered", [80.0, 81.0, 80.0], [125.0, 125.0, 125.0], "welch", 0.05, 0.1)
    assert fewer.verdict == "regressed"  # fewer deliveries is worse
    assert compare.judge("c", "mmtt_ms", [1.0], base, "welch", 0.05, 0.1).verdict == "insufficient"
    assert compare.judge("c", "mmtt_ms", [5.0, 5.0], [5.0, 5.0], "welch", 0.05, 0.1).verdict == "unchanged"
    mwu = compare.judge("c", "failover_time_ms", [300.0, 305.0, 298.0, 301.0, 310.0], base + [100.5], "mannwhitney", 0.05, 0.1)
    assert mwu.verdict == "regressed"


def test_budget_statistics() -> None:
    budget = {"metric": "failover_time_ms", "stat": "p95", "max": 250.0, "label": "failover_time_ms p95 <= 250ms"}
    assert compare.check_budget("c", [100.0, 110.0, 120.0], budget).ok
    assert not compare.check_budget("c", [100.0, 110.0, 400.0], budget).ok
    assert not compare.check_budget("c", [], budget).ok  # nothing measured proves nothing
    assert compare.statistic([1.0, 2.0, 3.0, 4.0], "median") == 2.5
    floor = {"metric": "messages_delivered", "stat": "min", "min": 100.0, "label": "x"}
    assert compare.check_budget("c", [120.0, 99.0], floor).ok is False


def sctpbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sctpbench.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_compare_flags_exactly_the_slower_configuration_with_junit_and_exit_1(tmp_path: Path) -> None:
    base = _campaign_dir(tmp_path, "base", BASE)
    same = sctpbench("campaign", "compare", str(base), str(base), "--junit", str(tmp_path / "same.xml"))
    assert same.returncode == 0 and "no regression" in same.stdout, same.stdout + same.stderr
    assert ET.parse(tmp_path / "same.xml").getroot().find("testsuite").get("failures") == "0"  # type: ignore[union-attr]

    slower = _campaign_dir(tmp_path, "new", BASE | {"sctp.path_max_retrans=2": [300.0, 304.0, 302.0]})
    r = sctpbench("campaign", "compare", str(slower), str(base), "--junit", str(tmp_path / "junit.xml"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "sctp.path_max_retrans=2: failover_time_ms, detection_time_ms" in r.stdout
    assert "OVER  sctp.path_max_retrans=2: failover_time_ms p95 <= 250ms" in r.stdout
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    failed = [(c.get("classname"), c.get("name")) for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == [("tiny.sctp.path_max_retrans=2", "failover_time_ms"), ("tiny.sctp.path_max_retrans=2", "detection_time_ms"),
                      ("tiny.sctp.path_max_retrans=2", "budget failover_time_ms p95 <= 250ms")]
    assert int(suite.get("tests", 0)) == 2 * 4 + 2  # configuration × metric, and the budget per configuration


def test_compare_bad_input_exits_2(tmp_path: Path) -> None:
    r = sctpbench("campaign", "compare", str(tmp_path), str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no campaign.parquet" in r.stderr
    base = _campaign_dir(tmp_path, "base", BASE)
    r = sctpbench("campaign", "compare", str(base), str(base), "--metrics", "failover")
    assert r.returncode == 2 and "--metrics: failover: unknown metric; allowed: mtt_mean_ms" in r.stderr


def test_bad_campaign_exits_2_before_anything_is_built(tmp_path: Path) -> None:
    r = sctpbench("campaign", "run", str(ROOT / "tests/data/campaign_errors/bad-value.yaml"), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "bad-value.yaml:4: sweep.sctp.rto_min: 'soon' is not a duration" in r.stderr
    assert not (tmp_path / "out").exists()
    r = sctpbench("campaign", "run", str(TINY), "--set", "sctp.rto_min=soon", "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "--set sctp.rto_min=soon: set.sctp.rto_min: 'soon' is not a duration" in r.stderr
    r = sctpbench("campaign", "run", str(TINY), "--parallel", "0")
    assert r.returncode == 2 and "--parallel 0" in r.stderr


def test_dry_run_lists_the_runs_in_order(tmp_path: Path) -> None:
    r = sctpbench("campaign", "run", str(TINY), "--dry-run", "--out", str(tmp_path))
    assert r.returncode == 0
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 7 and lines[-1].startswith("6 runs (2 configurations × 3 repetitions), 0 done")
    keys = {r.run_key for r in expand.runs(spec.load(TINY))}
    assert {line.split()[1] for line in lines[:-1]} == keys
    assert all(" todo " in line for line in lines[:-1])
    assert not (tmp_path / "tiny").exists()


def test_a_configuration_label_is_its_swept_values_as_written() -> None:
    c = Configuration((("sctp.rto_min", "200ms"), ("sctp.pf_enable", spec.as_written(True))))
    assert c.label == "sctp.rto_min=200ms sctp.pf_enable=true" and len(c.key) == 10


def test_campaign_yaml_is_the_resolved_campaign_and_loads_to_the_same_runs(tmp_path: Path) -> None:
    from sctpbench.campaign import execute

    path = _campaign(tmp_path, """
name: resolved
experiment: base.yaml
sweep:
  sctp.path_max_retrans: {from: 1, to: 2, step: 1}
  zip: {sctp.rto_min: [100ms, 200ms], sctp.rto_initial: [100ms, 200ms]}
repetitions: 2
budgets: [{metric: failover_time_ms, stat: p95, max: 1s}]
""")
    loaded = spec.load(path, ["sctp.rto_max=500ms"])
    runs = expand.runs(loaded)
    folder = tmp_path / "out" / "resolved"
    execute.describe(folder, loaded, runs)
    again = expand.runs(spec.load(folder / "campaign.yaml"))
    assert [(r.run_key, r.config.label) for r in again] == [(r.run_key, r.config.label) for r in runs]
    info = json.loads((folder / "campaign.json").read_text())
    assert info["name"] == "resolved" and info["runs"] == 8 and info["configurations"] == 4
    assert info["swept"] == ["sctp.path_max_retrans", "sctp.rto_min", "sctp.rto_initial"]
    assert info["budgets"][0]["max"] == 1000.0 and info["budgets"][0]["stat"] == "p95"
    assert info["experiment"] == str(tmp_path / "base.yaml")


def test_one_campaign_run_per_folder(tmp_path: Path) -> None:
    from sctpbench.campaign import execute

    held = execute._lock(tmp_path / "c")
    with pytest.raises(SpecError, match="another `sctpbench campaign run` is running in this folder"):
        execute._lock(tmp_path / "c")
    held.close()
    execute._lock(tmp_path / "c").close()


def _campaign_with_associations(tmp_path: Path, name: str, slow_b: float) -> Path:
    """Runs of two associations a and b; b's failover time is `slow_b` (the run's is its slowest)."""
    loaded = spec.load(TINY)
    runs = expand.runs(loaded)
    folder = tmp_path / name
    folder.mkdir()
    for run in runs:
        run_dir = folder / "runs" / run.run_key
        run_dir.mkdir(parents=True)
        jitter = run.repetition * 1.0
        per = {"a": {"failover_time_ms": 100.0 + jitter, "messages_sent": 50},
               "b": {"failover_time_ms": slow_b + jitter, "messages_sent": 75}}
        m = {k: None for k in metrics.METRIC_KEYS} | {"failover_time_ms": max(100.0, slow_b) + jitter, "messages_sent": 125}
        (run_dir / "summary.json").write_text(json.dumps({
            "status": "ok", "error": None, "metrics": m,
            "associations": {n: {"metrics": {k: None for k in metrics.METRIC_KEYS} | v} for n, v in per.items()}}))
    (folder / "campaign.json").write_text(json.dumps({"name": "tiny", "budgets": [], "swept": loaded.swept}))
    table.write(folder, runs, loaded.swept)
    return folder


def test_campaign_tables_have_columns_per_association_beside_the_runs_metrics(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    folder = _campaign_with_associations(tmp_path, "c", 90.0)
    row = table.read(folder)[0]
    assert row["failover_time_ms"] == 100.0 + row["repetition"]
    assert (row["association.a.failover_time_ms"], row["association.b.failover_time_ms"], row["association.b.messages_sent"]) == (
        100.0 + row["repetition"], 90.0 + row["repetition"], 75.0)
    config = pq.read_table(folder / table.CONFIGS_FILE).to_pylist()[0]
    assert config["association.b.failover_time_ms_mean"] == pytest.approx(92.0) and config["association.b.failover_time_ms_n"] == 3


def test_compare_judges_each_association_when_there_are_several(tmp_path: Path) -> None:
    base = _campaign_with_associations(tmp_path, "base", 60.0)
    new = _campaign_with_associations(tmp_path, "new", 80.0)  # b slower, still faster than a: the run's own metric stays
    r = sctpbench("campaign", "compare", str(new), str(base), "--metrics", "failover_time_ms")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "association.b.failover_time_ms" in r.stdout and "association.a.failover_time_ms" not in r.stdout, r.stdout
    assert "(base): failover_time_ms" not in r.stdout


def test_only_runs_its_part_and_the_tables_keep_every_done_run(tmp_path: Path) -> None:
    """`campaign run --only`: what is pending is the part's missing runs; a run done before,
    outside the part, stays in the folder's tables (a paper's table filled in part by part)."""
    from sctpbench.campaign import execute

    loaded = spec.load(TINY)
    runs = expand.runs(loaded)
    folder = tmp_path / "tiny"
    outside = next(r for r in runs if r.config.label == "sctp.path_max_retrans=1")
    inside = [r for r in runs if r.config.label == "sctp.path_max_retrans=2"]
    _fake_run(folder, outside, "ok", 101.0)
    _fake_run(folder, inside[0], "ok", 102.0)
    part = frozenset(r.run_key for r in expand.only(loaded, runs, ["sctp.path_max_retrans=2"]))
    session = execute.Session.open(folder, loaded, runs, lambda s: None, None, None, part)
    assert [r.run_key for r in session.pending] == [r.run_key for r in inside[1:]]
    assert (session.outcome.skipped, session.total) == (2, 4)
    session.close()
    rows = table.read(folder)
    assert {r["run_key"] for r in rows} == {outside.run_key, inside[0].run_key}
    assert json.loads((folder / "campaign.json").read_text())["runs"] == 6  # the campaign, not the part
