"""Claims files and `sctpbench campaign check` on a real campaign's runs; modes across runs.

The campaign is tests/data/claims/campaign: the summaries of a real run of
tests/data/campaigns/tiny-virtual.yaml (tiny-experiment.yaml's failover with Path.Max.Retrans
1 and 2, four repetitions each, on virtual time, in the UML guest on 2026-11-26); its tables
are rebuilt from them, as a campaign does. tests/data/claims/tiny.claims.yaml says, beside
each claim, the verdict these runs must give it. tests/data/claims_errors/ holds bad claims
files, each with the one line it must be refused with.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sctpbench import cli
from sctpbench.analysis import claims, metrics, modes, verdicts
from sctpbench.analysis.verdicts import Sample
from sctpbench.campaign import check, expand, table
from sctpbench.campaign import spec as campaign_spec
from sctpbench.model.errors import SpecError
from sctpbench.results import campaign as campaign_files

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/data/claims"
CLAIMS = DATA / "tiny.claims.yaml"
ERRORS = sorted((ROOT / "tests/data/claims_errors").glob("*.yaml"))
EXPECTED = {
    "fewer-retransmissions-detect-sooner": "holds",
    "fewer-retransmissions-detect-later": "contradicted",
    "fewer-retransmissions-fail-over-sooner": "inconclusive",
    "failover-unchanged": "holds",
    "detection-more-than-doubles": "holds",
    "detection-triples": "contradicted",
    "detection-under-400ms-with-one-retransmission": "holds",
    "one-retransmission-lowest": "holds",
    "detection-bimodal-over-both": "holds",
    "detection-unimodal-per-setting": "inconclusive",
}


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    folder = Path(shutil.copytree(DATA / "campaign", tmp_path / "campaign"))
    loaded = campaign_spec.load(ROOT / "tests/data/campaigns/tiny-virtual.yaml")
    runs = expand.runs(loaded)
    assert sorted(r.run_key for r in runs) == sorted(p.name for p in (folder / "runs").iterdir())
    table.write(folder, runs, loaded.swept)
    return folder


def _results(folder: Path, path: Path = CLAIMS) -> list[claims.Result]:
    rows = table.read(folder)
    return claims.evaluate(claims.load(path), rows, ["sctp.path_max_retrans"])


def test_each_claim_gets_the_verdict_the_runs_support(campaign: Path) -> None:
    results = _results(campaign)
    assert {r.claim.id: r.verdict for r in results} == EXPECTED


def test_a_verdict_line_carries_the_figures(campaign: Path) -> None:
    line = {r.claim.id: r.line() for r in _results(campaign)}
    # mean ± CI half-width of both sides, the interval of the difference (paired: repetition r
    # has one seed at both settings, and detection differs by 408 ms in each pair), and where
    # the paper says it
    assert line["fewer-retransmissions-detect-sooner"].startswith(
        "HOLDS        fewer-retransmissions-detect-sooner: detection_time_ms <; a 306.1 ± 5.1 (n 4) vs b 714.1 ± 5.1 (n 4), "
        "a − b [-408.0, -408.0] (paired, n 4) → holds")
    assert line["fewer-retransmissions-detect-sooner"].endswith("→ holds (RFC 9260, Sec. 8.2)")
    assert "a/b [2.31, 2.36] (paired, n 4) → contradicted" in line["detection-triples"]
    assert "pmr=one: modes 304.8 [304.0–310.7] (100%, 4 runs)" in line["detection-unimodal-per-setting"]
    assert "modes 304.8 [304.0–310.7] (50%, 4 runs) | 712.8 [712.0–718.7] (50%, 4 runs)" in line["detection-bimodal-over-both"]
    # a claim for each setting: its checks one after the other, joined by '; '
    assert line["detection-unimodal-per-setting"] == (
        "INCONCLUSIVE detection-unimodal-per-setting: detection_time_ms unimodal; pmr=one: modes 304.8 [304.0–310.7] "
        "(100%, 4 runs) (n 4; a mode counts from 2 runs, 22 runs show a 20% mode) → inconclusive; pmr=two: modes 712.8 "
        "[712.0–718.7] (100%, 4 runs) (n 4; a mode counts from 2 runs, 22 runs show a 20% mode) → inconclusive (test)")


def test_only_ok_runs_count(campaign: Path) -> None:
    rows = table.read(campaign)
    for r in rows:
        if r["param.sctp.path_max_retrans"] == "1":
            r["status"] = "disturbed"  # a disturbed run's timing is the host's
    results = {r.claim.id: r for r in claims.evaluate(claims.load(CLAIMS), rows, ["sctp.path_max_retrans"])}
    assert results["fewer-retransmissions-detect-sooner"].verdict == "inconclusive"
    assert "a no runs" in results["fewer-retransmissions-detect-sooner"].line()


# a − b is contradicted (≥ 0) by its 95 % interval but not by its 97.5 % one: Welch's df 4, d 2.5,
# half-widths 2.27 (95 %) and 2.85 (97.5 %).
BORDERLINE = (Sample((10.5, 11.5, 12.5)), Sample((8.0, 9.0, 10.0)))


def test_contradiction_needs_the_family_wise_confidence() -> None:
    """Two checks: each contradiction must stand at 97.5 %, a hold at 95 %."""
    a, b = BORDERLINE
    at_95 = verdicts.below(verdicts.difference_interval(a, b, 0.95), 0.0)
    at_975 = verdicts.below(verdicts.difference_interval(a, b, 0.975), 0.0)
    assert (at_95, at_975) == ("contradicted", "inconclusive")
    c = Sample((20.0, 21.0, 22.0))
    assert verdicts.below(verdicts.difference_interval(c, b, 0.975), 0.0) == "contradicted"


FAMILY_CLAIMS = """paper: "tests: the family-wise level"
axes:
  side: {key: k}
claims:
  - id: a-sooner-everywhere
    says: "a is faster at every load"
    where: "test"
    metric: detection_time_ms
    kind: less
    a: {side: a}
    b: {side: b}
    for_each: [load]
  - id: a-sooner-at-high-load
    says: "a is faster at high load"
    where: "test"
    metric: detection_time_ms
    kind: less
    a: {side: a}
    b: {side: b}
    at: {load: high}
"""


def _family_rows(high_a: Sample) -> list[claims.Row]:
    """At load `high` a's runs are `high_a` against b's BORDERLINE ones; at `low` a is clearly faster."""
    sides = {("high", "a"): high_a.values, ("high", "b"): BORDERLINE[1].values,
             ("low", "a"): (1.0, 2.0, 3.0), ("low", "b"): (8.0, 9.0, 10.0)}
    return [{"param.load": load, "param.k": side, "status": "ok", "detection_time_ms": v}
            for (load, side), values in sides.items() for v in values]


def test_a_claim_of_two_checks_is_contradicted_only_at_the_family_wise_confidence(tmp_path: Path) -> None:
    """Through `evaluate`: the claim of two checks (for_each load) needs its contradiction at
    97.5 % (Bonferroni), the same runs as a claim of one check (at: high) at 95 %."""
    path = tmp_path / "family.claims.yaml"
    path.write_text(FAMILY_CLAIMS)
    loaded = claims.load(path)
    borderline = {r.claim.id: r for r in claims.evaluate(loaded, _family_rows(BORDERLINE[0]), ["k", "load"])}
    assert [c.verdict for c in borderline["a-sooner-everywhere"].checks] == ["inconclusive", "holds"]
    assert borderline["a-sooner-everywhere"].verdict == "inconclusive"
    assert borderline["a-sooner-at-high-load"].verdict == "contradicted"
    clear = {r.claim.id: r.verdict for r in claims.evaluate(loaded, _family_rows(Sample((20.0, 21.0, 22.0))), ["k", "load"])}
    assert clear == {"a-sooner-everywhere": "contradicted", "a-sooner-at-high-load": "contradicted"}


@pytest.mark.parametrize("path", ERRORS, ids=[p.name for p in ERRORS])
def test_a_bad_claims_file_is_refused_with_one_line(path: Path, campaign: Path) -> None:
    expected = path.read_text().splitlines()[0].removeprefix("# expect: ")
    with pytest.raises(SpecError) as refused:
        _results(campaign, path)
    message = str(refused.value)
    assert "\n" not in message
    assert message.removeprefix(str(path.parent) + "/").startswith(expected), message


def test_check_prints_one_line_per_claim_and_exits_1_on_a_contradiction(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["campaign", "check", str(campaign), str(CLAIMS), "--modes", "detection_time_ms"]) == 1
    out = capsys.readouterr().out.splitlines()
    verdict_lines = [line for line in out if line.split(" ")[0] in ("HOLDS", "CONTRADICTED", "INCONCLUSIVE")]
    assert len(verdict_lines) == len(EXPECTED)
    assert out[-1].startswith("6 hold, 2 contradicted, 2 inconclusive; verdicts in")
    assert "  sctp.path_max_retrans=1  detection_time_ms 306.1 ± 5.1 (n 4); modes 304.8 [304.0–310.7] (100%, 4 runs)" in out
    written = json.loads((campaign / campaign_files.CLAIMS).read_text())
    assert written["counts"] == {"holds": 6, "contradicted": 2, "inconclusive": 2}
    assert [r["verdict"] for r in written["results"]] == list(EXPECTED.values())


def test_check_exits_0_when_nothing_is_contradicted(campaign: Path, tmp_path: Path) -> None:
    kept = tmp_path / "kept.yaml"
    text = CLAIMS.read_text().replace("campaign: ../campaigns/", "campaign: " + str(ROOT / "tests/data/campaigns") + "/")
    head, *items = text.split("\n  - id: ")
    kept.write_text("\n  - id: ".join([head, *[i for i in items if not i.startswith(("fewer-retransmissions-detect-later", "detection-triples"))]]))
    assert cli.main(["campaign", "check", str(campaign), str(kept)]) == 0


def test_check_finds_claims_beside_the_campaign_file(campaign: Path, tmp_path: Path) -> None:
    info = json.loads((campaign / "campaign.json").read_text())
    (tmp_path / "claims.yaml").write_text(CLAIMS.read_text().replace("../campaigns/", str(ROOT / "tests/data/campaigns") + "/"))
    info["file"] = str(tmp_path / "campaign.yaml")
    (campaign / "campaign.json").write_text(json.dumps(info))
    assert cli.main(["campaign", "check", str(campaign)]) == 1
    info["file"] = str(tmp_path / "elsewhere" / "campaign.yaml")
    (campaign / "campaign.json").write_text(json.dumps(info))
    assert cli.main(["campaign", "check", str(campaign)]) == 2  # no claims file: one line, usage


def test_the_report_shows_the_claims_and_the_modes(campaign: Path) -> None:
    rows = {r["config"]: r for r in campaign_files.read_table(campaign / campaign_files.CONFIGS_TABLE) or []}
    assert [m["runs"] for m in rows["sctp.path_max_retrans=1"]["detection_time_ms_modes"]] == [4]
    assert cli.main(["campaign", "check", str(campaign), str(CLAIMS)]) == 1
    assert cli.main(["report", str(campaign)]) == 0
    page = (campaign / "report.html").read_text()
    assert "<h2>Claims</h2>" in page and "6 hold, 2 contradicted, 2 inconclusive at 95% confidence over 8 ok runs" in page
    assert "fewer-retransmissions-detect-later" in page


@pytest.mark.parametrize(("values", "expected"), [
    ([7.0, 7.2, 300.0, 310.0, 320.0], [(7.1, 2), (310.0, 3)]),  # seed 003: settled runs and switching ones
    ([10.0, 34.0, 247.0, 338.0], [(22.0, 2), (292.5, 2)]),
    ([11.6, 15.8, 16.0], [(15.8, 3)]),  # a gap under half the larger median is one mode
    ([100.0, 200.0, 300.0, 400.0], [(250.0, 4)]),  # evenly spread: no gap stands out
    ([10.0, 100.0, 1000.0], [(55.0, 2), (1000.0, 1)]),  # 90 ms is small beside the range of 990
    ([5.0, 5.0, 5.0], [(5.0, 3)]),
    ([], []),
    ([10.0, 11.0, 12.5, 13.0, 14.0], [(12.5, 5)]),  # the middle one of an odd count
    ([0.10, 0.11, 0.90, 0.91], [(0.1, 2), (0.9, 2)]),  # shares: a gap below 1 is a gap
    # A tight group beside a wide one (seed 003 at 200 runs: settled runs at 3.7-5.3 ms, switching
    # ones at 209-400 ms): the gap is measured against the gaps inside each side, not its spread.
    ([3.7, 4.0, 4.5, 5.3, 209.0, 240.0, 270.0, 300.0, 330.0, 360.0, 400.0], [(4.2, 4), (300.0, 7)]),
    ([0.0, 10.0, 20.0, 30.0, 40.0, 100.0, 110.0], [(20.0, 5), (105.0, 2)]),
    # Each rule at its edge: a gap of exactly twice the widest gap inside a side is none; one of exactly half
    # the larger median, or a quarter of the whole range, is one; two runs far apart are two modes.
    ([0.0, 1.0, 3.0, 3.0], [(2.0, 4)]),
    ([10.0, 10.0, 20.0, 20.0], [(10.0, 2), (20.0, 2)]),
    ([0.0, 0.0, 25.0, 25.0, 100.0], [(0.0, 2), (25.0, 2), (100.0, 1)]),
    ([10.0, 100.0], [(10.0, 1), (100.0, 1)]),
    ([0.1, 0.9], [(0.1, 1), (0.9, 1)]),  # a side of one run has no gap inside it, not one of 1
    # The range is the highest value less the lowest, and each side is split against it.
    ([1.0, 1.0, 26.0, 26.0, 101.0], [(1.0, 2), (26.0, 2), (101.0, 1)]),  # 25 is a quarter of 100
    ([0.0, 2.0, 26.6, 26.6, 100.0], [(14.3, 4), (100.0, 1)]),  # 24.6 is less than a quarter of 100
    ([-100.0, -25.0, -25.0, 0.0, 0.0], [(-100.0, 1), (-25.0, 2), (0.0, 2)]),  # the upper side split again
])
def test_modes_split_at_gaps_wider_than_the_groups(values: list[float], expected: list[tuple[float, int]]) -> None:
    assert [(round(m.value, 1), m.runs) for m in modes.modes(list(values))] == expected


def test_runs_needed_to_rule_out_a_mode() -> None:
    # 22 runs show a mode holding 20 % of runs at least twice, at 95 %
    assert claims.runs_to_see(2, 0.2, 0.95) == 22
    assert claims.runs_to_see(1, 0.2, 0.95) == 14


def test_claims_compare_campaigns_by_the_campaign_axis(campaign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`campaigns:` names another campaign; its runs are `campaign: NAME`, this one's `campaign: this`.
    Here the other is a second copy of the same runs, found beside FOLDER by its campaign's name."""
    beside = Path(shutil.copytree(campaign, tmp_path / "tiny-virtual"))
    (beside / campaign_files.CLAIMS).unlink(missing_ok=True)
    text = f"""\
paper: "tests: two campaigns"
campaign: {ROOT}/tests/data/campaigns/tiny-virtual.yaml
campaigns: {{again: {ROOT}/tests/data/campaigns/tiny-virtual.yaml}}
axes:
  pmr: {{key: sctp.path_max_retrans, values: {{one: 1, two: 2}}}}
claims:
  - id: same-in-both
    says: "the same runs detect alike"
    where: "test"
    metric: detection_time_ms
    kind: same
    a: {{campaign: this}}
    b: {{campaign: again}}
    for_each: [pmr]
  - id: this-campaign-lowest-at-one
    says: "the campaign axis ranks like any other"
    where: "test"
    metric: detection_time_ms
    kind: lowest
    among: pmr
    which: one
    for_each: [campaign]
"""
    path = tmp_path / "two.claims.yaml"
    path.write_text(text)
    assert cli.main(["campaign", "check", str(campaign), str(path)]) == 0
    out = capsys.readouterr().out
    assert f"compared with again: {beside} (8 runs)" in out
    assert "HOLDS        same-in-both: detection_time_ms ≈; pmr=one: a 306.1 ± 5.1 (n 4) vs b 306.1 ± 5.1 (n 4)" in out
    assert "campaign=again one vs two" in out
    with pytest.raises(SpecError, match=r"--with other=x: allowed: NAME=FOLDER with NAME one of the claims file's campaigns: again"):
        check.other_folders(campaign, claims.load(path), ["other=x"])


def test_a_value_swept_but_not_run_yet_is_inconclusive_not_unknown(campaign: Path) -> None:
    """A campaign run in part (`campaign run --only`): a claim on a value its file sweeps but no
    run has yet gets a check of no runs, inconclusive; a value the file does not sweep is refused."""
    rows = [r for r in table.read(campaign) if r["param.sctp.path_max_retrans"] == "1"]
    loaded = claims.load(CLAIMS)
    with pytest.raises(SpecError, match="'two' is not a value of pmr in the campaign's runs; allowed: one$"):
        claims.evaluate(loaded, rows, ["sctp.path_max_retrans"])
    results = claims.evaluate(loaded, rows, ["sctp.path_max_retrans"], None, {"sctp.path_max_retrans": ["1", "2"]})
    first = next(r for r in results if r.claim.id == "fewer-retransmissions-detect-sooner")
    assert first.verdict == "inconclusive" and "(n 4) vs b" in first.checks[0].figures and "vs b no runs" in first.checks[0].figures
    with pytest.raises(SpecError, match="'two' is not a value of pmr"):
        claims.evaluate(loaded, rows, ["sctp.path_max_retrans"], None, {"sctp.path_max_retrans": ["1", "3"]})


SHAPES_AND_THRESHOLDS = """paper: "tests: shapes and thresholds"
confidence: 0.99
claims:
  - {id: two-modes, says: "x", where: "t", metric: detection_time_ms, kind: bimodal, a: {k: a}}
  - {id: one-mode, says: "x", where: "t", metric: detection_time_ms, kind: unimodal, a: {k: a}}
  - {id: many-affected, says: "x", where: "t", metric: messages_affected, kind: above, value: 10, a: {k: a}}
  - {id: few-affected, says: "x", where: "t", metric: messages_affected, kind: below, value: 10, a: {k: a}}
  - {id: many-affected-at-each, says: "x", where: "t", metric: messages_affected, kind: above, value: 10, for_each: [k]}
"""


def _shape_verdicts(tmp_path: Path, detection: list[float], affected: list[float], other: list[float] | None = None) -> dict[str, str]:
    """Runs of side a with these figures (and of side b, for the for_each claim, `other`)."""
    path = tmp_path / "shapes.claims.yaml"
    path.write_text(SHAPES_AND_THRESHOLDS)
    rows = [{"param.k": "a", "status": "ok", "detection_time_ms": d, "messages_affected": m} for d, m in zip(detection, affected, strict=True)]
    rows += [{"param.k": "b", "status": "ok", "detection_time_ms": 0.0, "messages_affected": m} for m in other or [100.0, 101.0]]
    return {r.claim.id: r.verdict for r in claims.evaluate(claims.load(path), rows, ["k"])}


def test_shape_claims_need_enough_runs_to_rule_out_a_mode(tmp_path: Path) -> None:
    """A mode counts from min_runs (2) runs; one mode is shown only after the runs in which a
    20 % mode would have shown twice: 22 at 95 %, 31 at the file's 99 %."""
    enough = claims.runs_to_see(2, 0.2, 0.99)
    assert (claims.runs_to_see(2, 0.2, 0.95), enough) == (22, 31)
    one = [100.0 + i for i in range(enough)]
    flat = [20.0] * enough
    got = _shape_verdicts(tmp_path, one, flat)
    assert (got["two-modes"], got["one-mode"]) == ("contradicted", "holds")
    fewer = _shape_verdicts(tmp_path, one[:-1], flat[:-1])
    assert (fewer["two-modes"], fewer["one-mode"]) == ("inconclusive", "inconclusive")
    # Two modes, the smaller of exactly min_runs runs: bimodal.
    two = _shape_verdicts(tmp_path, [100.0, 101.0, 102.0, 300.0, 301.0], [20.0] * 5)
    assert (two["two-modes"], two["one-mode"]) == ("holds", "contradicted")
    # A second group of one run is no mode, but it is not one mode either.
    stray = _shape_verdicts(tmp_path, [*one, 900.0], [*flat, 20.0])
    assert (stray["two-modes"], stray["one-mode"]) == ("inconclusive", "inconclusive")


def test_threshold_claims_of_a_plain_number(tmp_path: Path) -> None:
    """messages_affected is a count: its limit is the number as written (no duration), tested at
    the file's 99 %; with for_each, each contradiction at 99.5 %."""
    got = _shape_verdicts(tmp_path, [1.0, 2.0, 3.0], [20.0, 21.0, 22.0])
    assert (got["many-affected"], got["few-affected"]) == ("holds", "contradicted")
    got = _shape_verdicts(tmp_path, [1.0, 2.0, 3.0], [2.0, 3.0, 4.0])
    assert (got["many-affected"], got["few-affected"]) == ("contradicted", "holds")
    got = _shape_verdicts(tmp_path, [1.0, 2.0, 3.0], [5.0, 10.0, 15.0])
    assert (got["many-affected"], got["few-affected"]) == ("inconclusive", "inconclusive")
    # Mean 8.4 of six runs: under 10 at 99 % ([6.93, 9.87]) but not at 99.5 % ([6.66, 10.14]).
    a = Sample((7.4, 8.4, 9.4, 7.4, 8.4, 9.4))
    assert verdicts.above(verdicts.mean_interval(a, 0.99), 10.0) == "contradicted"
    assert verdicts.above(verdicts.mean_interval(a, 1 - 0.01 / 2), 10.0) == "inconclusive"
    each = _shape_verdicts(tmp_path, [1.0] * 6, list(a.values), other=[100.0, 101.0])
    assert each["many-affected"] == "contradicted" and each["many-affected-at-each"] == "inconclusive"


def test_the_figures_are_at_the_files_confidence(tmp_path: Path) -> None:
    path = tmp_path / "shapes.claims.yaml"
    path.write_text(SHAPES_AND_THRESHOLDS)
    rows = [{"param.k": "a", "status": "ok", "detection_time_ms": 1.0, "messages_affected": m} for m in (20.0, 21.0, 22.0)]
    result = next(r for r in claims.evaluate(claims.load(path), rows, ["k"]) if r.claim.id == "many-affected")
    assert result.checks[0].figures == f"{Sample((20.0, 21.0, 22.0)).text(1, 0.99)} > 10"
    assert "± 5.7 (n 3)" in result.checks[0].figures  # t(0.995, 2) = 9.92 × 1/√3


@pytest.mark.parametrize("metric, value, expected", [("detection_time_ms", "1.5s", 1500.0), ("detection_time_ms", "250ms", 250.0),
                                                     ("messages_affected", 10, 10.0), ("utilisation", 0.5, 0.5)])
def test_a_limit_is_in_the_metrics_unit(metric: str, value: object, expected: float) -> None:
    assert claims.limit(metric, value) == pytest.approx(expected)


@pytest.mark.parametrize("value", ["10", True, None])
def test_a_limit_of_a_count_must_be_a_number(value: object) -> None:
    with pytest.raises(ValueError, match=r"is not a number; allowed: a number \(e.g. 10\)"):
        claims.limit("messages_affected", value)


@pytest.mark.parametrize("metric, value, reference, expected", [
    ("failover_time_ms", "10%", 108.1, 10.81),  # a percentage of b's mean
    ("failover_time_ms", " 5% ", -200.0, 10.0),  # ... of its size
    ("failover_time_ms", "20ms", 500.0, 20.0), ("failover_time_ms", "1.5s", 0.0, 1500.0),  # a duration, in ms
    ("messages_affected", 3, 100.0, 3.0), ("utilisation", 0.05, 0.9, 0.05),  # a number, as written
])
def test_a_same_claims_tolerance_is_in_the_metrics_unit(metric: str, value: object, reference: float, expected: float) -> None:
    assert claims.tolerance(metric, value, reference) == pytest.approx(expected)


@pytest.mark.parametrize("metric, value, words", [
    ("messages_affected", "3", "tolerance '3' is not a number; allowed: a number (e.g. 10) or a percentage (10%)"),
    ("failover_time_ms", "fast", "tolerance 'fast' is not a duration; allowed: a number with a unit ns, us, ms, s or min "
                                 "(e.g. 200ms) or a percentage (10%)"),
])
def test_a_tolerance_neither_in_the_metrics_unit_nor_a_percentage_is_refused_in_words(metric: str, value: object, words: str) -> None:
    with pytest.raises(ValueError) as e:
        claims.tolerance(metric, value, 1.0)
    assert str(e.value) == words


def test_claims_json_holds_each_claim_its_verdict_line_and_checks(campaign: Path) -> None:
    """What `campaign check` writes for the report: a same claim within 10 % of b's mean (108.1 ms)."""
    result = next(r for r in _results(campaign) if r.claim.id == "failover-unchanged")
    figures = "a 108.1 ± 5.1 (n 4) vs b 108.1 ± 5.1 (n 4), a − b [-0.0, 0.0] (paired, n 4; within ±10.8)"
    assert result.to_dict() == {
        "id": "failover-unchanged", "says": "failover does not depend on Path.Max.Retrans", "where": "test",
        "metric": "failover_time_ms", "kind": "same", "verdict": "holds",
        "line": f"HOLDS        failover-unchanged: failover_time_ms ≈; {figures} → holds (test)",
        "checks": [{"group": "", "figures": figures, "verdict": "holds", "pairing": "paired", "pairs": 4,
                    "configs": ["sctp.path_max_retrans=1", "sctp.path_max_retrans=2"]}],
    }


COMPARISONS = """paper: "tests: comparisons of two sides"
confidence: 0.99
claims:
  - {id: same-within-a-second, says: "x", where: "t", metric: detection_time_ms, kind: same, a: {k: a}, b: {k: b}, tolerance: 1s}
  - {id: same-within-100us, says: "x", where: "t", metric: detection_time_ms, kind: same, a: {k: a}, b: {k: b}, tolerance: 100us}
  - {id: a-less, says: "x", where: "t", metric: utilisation, kind: less, a: {k: a}, b: {k: b}}
  - {id: a-greater, says: "x", where: "t", metric: utilisation, kind: greater, a: {k: a}, b: {k: b}}
  - {id: a-at-most-1-1-b, says: "x", where: "t", metric: utilisation, kind: ratio_at_most, value: 1.1, a: {k: a}, b: {k: b}}
  - {id: a-at-least-1-1-b, says: "x", where: "t", metric: utilisation, kind: ratio_at_least, value: 1.1, a: {k: a}, b: {k: b}}
"""


def test_comparisons_of_two_sides_at_the_files_confidence_and_the_metrics_digits(tmp_path: Path) -> None:
    """Detection 0.5 ms apart (a − b within [0.46, 0.54] at 99 %): the same within 1 s, not within
    100 µs. Utilisation 0.50 against 0.40: a is greater, not less, and a/b = 1.25 is at least 1.1,
    not at most. Figures at the file's 99 %, a share's with two digits."""
    path = tmp_path / "comparisons.claims.yaml"
    path.write_text(COMPARISONS)
    detection = {"a": (10.50, 10.51, 10.49), "b": (10.00, 10.01, 9.99)}
    share = {"a": (0.50, 0.51, 0.49), "b": (0.40, 0.41, 0.39)}
    rows = [{"param.k": k, "status": "ok", "detection_time_ms": d, "utilisation": u}
            for k in ("a", "b") for d, u in zip(detection[k], share[k], strict=True)]
    results = {r.claim.id: r for r in claims.evaluate(claims.load(path), rows, ["k"])}
    assert {i: r.verdict for i, r in results.items()} == {
        "same-within-a-second": "holds", "same-within-100us": "contradicted", "a-less": "contradicted",
        "a-greater": "holds", "a-at-most-1-1-b": "contradicted", "a-at-least-1-1-b": "holds"}
    da, db, ua, ub = Sample(detection["a"]), Sample(detection["b"]), Sample(share["a"]), Sample(share["b"])
    assert verdicts.interval_text(verdicts.difference_interval(da, db, 0.99)) == "[0.5, 0.5]"
    assert results["same-within-100us"].checks[0].figures == (
        f"a {da.text(1, 0.99)} vs b {db.text(1, 0.99)}, a − b [0.5, 0.5] (unpaired; within ±0.1)")
    shares = f"a {ua.text(2, 0.99)} vs b {ub.text(2, 0.99)}"
    assert shares == "a 0.50 ± 0.06 (n 3) vs b 0.40 ± 0.06 (n 3)"  # t(0.995, 2) = 9.92 × 0.01/√3
    difference = verdicts.interval_text(verdicts.difference_interval(ua, ub, 0.99), 2)
    assert results["a-less"].checks[0].figures == f"{shares}, a − b {difference} (unpaired)"
    ratio = verdicts.interval_text(verdicts.ratio_interval(ua, ub, 0.99), 2)
    assert results["a-at-most-1-1-b"].checks[0].figures == f"{shares}, a/b {ratio} (unpaired)"


def test_modes_as_the_report_and_the_campaign_table_give_them() -> None:
    """A mode's median, its range when it has one, its share and runs ("1 run"); the table's record."""
    found = modes.modes([10.0, 100.0, 1000.0, None, float("nan")])  # a run without the metric is left out
    assert modes.text(found) == "55.0 [10.0–100.0] (67%, 2 runs) | 1000.0 (33%, 1 run)"
    assert modes.text(found, 2) == "55.00 [10.00–100.00] (67%, 2 runs) | 1000.00 (33%, 1 run)"
    assert modes.text([]) == "-" and found[1].text() == "1000.0 (33%, 1 run)"
    assert [m.to_dict() for m in found] == [{"value": 55.0, "low": 10.0, "high": 100.0, "runs": 2},
                                            {"value": 1000.0, "low": 1000.0, "high": 1000.0, "runs": 1}]


def test_a_precondition_is_met_strictly_beyond_its_limit_in_the_metrics_unit() -> None:
    below = claims.Requires(metric="detection_time_ms", below="1s")
    assert below.met({"detection_time_ms": 999.0}) and not below.met({"detection_time_ms": 1000.0})
    assert not below.met({}) and not below.met({"detection_time_ms": float("nan")})
    assert below.text() == "detection_time_ms < 1000"
    above = claims.Requires(metric="messages_affected", above=2)
    assert above.met({"messages_affected": 3}) and not above.met({"messages_affected": 2})
    assert above.text() == "messages_affected > 2"
    present = claims.Requires(metric="unreachable_time_ms")
    assert present.text() == "unreachable_time_ms present" and present.met({"unreachable_time_ms": 0.0})


def test_the_pairing_says_how_many_runs_had_no_partner() -> None:
    assert claims._pairing(None) == "unpaired"
    assert claims._pairing(verdicts.Pairs((1.0, 2.0), (3.0, 4.0), 0)) == "paired, n 2"
    assert claims._pairing(verdicts.Pairs((1.0, 2.0), (3.0, 4.0), 1)) == "paired, n 2, 1 run without a partner left out"
    assert claims._pairing(verdicts.Pairs((1.0, 2.0), (3.0, 4.0), 3)) == "paired, n 2, 3 runs without a partner left out"


def test_a_run_without_the_metric_has_no_partner() -> None:
    left = [{"seed": s, "repetition": s, "status": "ok", "m": v} for s, v in ((1, 1.0), (2, None), (3, 3.0))]
    right = [{"seed": s, "repetition": s, "status": "ok", "m": v} for s, v in ((1, 5.0), (2, 6.0), (3, 7.0))]
    pairs = claims.pair(left, right, "m", [])
    assert pairs is not None and (pairs.a, pairs.b, pairs.left_out) == ((1.0, 3.0), (5.0, 7.0), 1)


MORE = """paper: "tests: a share's digits, a side of no runs, shapes at their verdicts, two preconditions"
claims:
  - {id: share-same, says: "x", where: "t", metric: utilisation, kind: same, a: {k: a}, b: {k: b}, tolerance: 0.05}
  - {id: same-of-no-runs, says: "x", where: "t", metric: detection_time_ms, kind: same, a: {k: a}, b: {k: b}}
  - {id: share-two-modes, says: "x", where: "t", metric: utilisation, kind: bimodal, a: {k: a}}
  - {id: each-n, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {k: a}, for_each: [n]}
  - {id: each-k-and-n, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, for_each: [k, n]}
  - {id: b-at-each-n, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, at: {k: b}, for_each: [n]}
  - id: both-preconditions
    says: "x"
    where: "t"
    metric: utilisation
    kind: above
    value: 0.1
    a: {k: a}
    requires: [{metric: path_switches}, {metric: messages_affected, runs: some}]
"""


def _more(tmp_path: Path) -> dict[str, claims.Result]:
    """Side a: three runs at n 9, two at n 10 and one at n -1.5, utilisation 0.21-0.26, path switches
    in none; side b: utilisation 0.20-0.22, no detection time."""
    path = tmp_path / "more.claims.yaml"
    path.write_text(MORE)
    a = [(0.21, "9"), (0.22, "9"), (0.23, "9"), (0.24, "10"), (0.25, "10"), (0.26, "-1.5")]
    rows = [{"param.k": "a", "param.n": n, "status": "ok", "utilisation": u, "detection_time_ms": 1.0 + u,
             "messages_affected": 1.0, "path_switches": None} for u, n in a]
    rows += [{"param.k": "b", "param.n": "9", "status": "ok", "utilisation": u, "detection_time_ms": None}
             for u in (0.20, 0.21, 0.22)]
    return {r.claim.id: r for r in claims.evaluate(claims.load(path), rows, ["k", "n"])}


def test_a_same_claim_on_a_share_gives_its_difference_with_two_digits(tmp_path: Path) -> None:
    """interval_text at the metric's digits (the mutant without them: one digit)."""
    check = _more(tmp_path)["share-same"].checks[0]
    a, b = Sample((0.21, 0.22, 0.23, 0.24, 0.25, 0.26)), Sample((0.20, 0.21, 0.22))
    difference = verdicts.interval_text(verdicts.difference_interval(a, b, 0.95), 2)
    assert difference.count(".") == 2 and len(difference.split(",")[0]) >= 5  # two digits each
    assert check.figures == f"a {a.text(2)} vs b {b.text(2)}, a − b {difference} (unpaired; within ±0.05)"


def test_a_same_claim_with_a_side_of_no_runs_says_no_tolerance(tmp_path: Path) -> None:
    """Side b has no detection time: no interval, no tolerance said (10 % of no mean), inconclusive."""
    result = _more(tmp_path)["same-of-no-runs"]
    a = Sample(tuple(1.0 + u for u in (0.21, 0.22, 0.23, 0.24, 0.25, 0.26)))
    assert result.checks[0].figures == f"a {a.text(1)} vs b no runs, a − b no interval (unpaired)"
    assert result.verdict == result.checks[0].verdict == "inconclusive"


def test_a_bimodal_claim_on_a_share_shows_its_modes_with_two_digits_and_is_inconclusive_on_few_runs(tmp_path: Path) -> None:
    check = _more(tmp_path)["share-two-modes"].checks[0]
    found = modes.modes([0.21, 0.22, 0.23, 0.24, 0.25, 0.26])
    assert check.figures.startswith(f"modes {modes.text(found, 2)} (n 6;") and modes.text(found, 2) != modes.text(found)
    assert check.verdict == "inconclusive"  # one mode of 6 runs: too few to rule out a second


def test_for_each_takes_unnamed_values_in_number_order(tmp_path: Path) -> None:
    """-1.5, 9, 10: by number, not as text (-1.5, 10, 9)."""
    assert [c.group for c in _more(tmp_path)["each-n"].checks] == ["n=-1.5", "n=9", "n=10"]


def test_a_check_is_exercised_only_when_every_precondition_is_met(tmp_path: Path) -> None:
    """path_switches in no run (every run must show it) and messages_affected in all six (some):
    not exercised, though the second is met; both preconditions said, joined by ', '."""
    check = _more(tmp_path)["both-preconditions"].checks[0]
    assert check.verdict == "not exercised"
    a = Sample((0.21, 0.22, 0.23, 0.24, 0.25, 0.26))
    assert check.figures.startswith(f"{a.text(2)} > 0.1; requires ")  # the check's own figures, then the preconditions
    assert check.figures.endswith("; requires path_switches present in 0 of 6 runs, messages_affected present in 6 of 6 runs")


def test_a_claim_of_no_checks_says_no_runs() -> None:
    claim = claims.Claim(id="x-y", says="s", where="Fig. 1", metric="utilisation", kind="above", value=0.5)
    assert claims.Result(claim, "inconclusive", []).line() == "INCONCLUSIVE x-y: utilisation >; no runs (Fig. 1)"


def test_runs_pair_only_when_each_has_its_seed_and_repetition() -> None:
    left = [{"seed": s, "repetition": r, "status": "ok", "m": 1.0 + r} for s, r in ((1, 1), (2, 2), (None, 3))]
    right = [{"seed": s, "repetition": r, "status": "ok", "m": 5.0 + r} for s, r in ((1, 1), (2, 2), (3, 3))]
    assert claims.pair(left, right, "m", []) is None


def test_a_run_whose_repetition_the_other_side_lacks_is_left_out() -> None:
    left = [{"seed": r, "repetition": r, "status": "ok", "m": 1.0 + r} for r in (1, 2, 3)]
    right = [{"seed": r, "repetition": r, "status": "ok", "m": 5.0 + r} for r in (1, 2)]
    pairs = claims.pair(left, right, "m", [])
    assert pairs is not None and (pairs.a, pairs.b, pairs.left_out) == ((2.0, 3.0), (6.0, 7.0), 1)


def test_runs_pair_where_a_shared_key_is_set_in_some_runs_only() -> None:
    """A key some configurations leave unset (None) and others set: pairs are still found (and
    ordered by their keys as text: None and a string do not compare)."""
    left = [{"seed": 1, "repetition": 1, "param.x": x, "status": "ok", "m": m} for x, m in ((None, 1.0), ("a", 2.0))]
    right = [{"seed": 1, "repetition": 1, "param.x": x, "status": "ok", "m": m} for x, m in ((None, 5.0), ("a", 7.0))]
    pairs = claims.pair(left, right, "m", ["x"])
    assert pairs is not None and (pairs.a, pairs.b, pairs.left_out) == ((2.0, 1.0), (7.0, 5.0), 0)


def test_the_keys_two_sides_differ_in() -> None:
    assert claims._differing({"k": {"a"}}, {"k": {"a"}, "n": {"9"}}) == {"n"}
    assert claims._differing({"k": {"a"}}, {"k": {"b"}}) == {"k"}


def test_runs_to_see_a_mode_until_missing_it_is_less_likely_than_the_confidence_allows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A mode of half the runs, seen once, at 75 %: missed in 2 runs with probability 0.25, exactly
    1 − 0.75, which is not less: 3 runs. A mode too rare to count on: the most runs counted (here
    5, not 100,000 binomial sums)."""
    assert claims.runs_to_see(1, 0.5, 0.75) == 3 and claims.runs_to_see(1, 0.5, 0.74) == 2
    assert claims.MOST_RUNS_TO_SEE == 100_000
    monkeypatch.setattr(claims, "MOST_RUNS_TO_SEE", 5)
    assert claims.runs_to_see(2, 0.01, 0.99) == 5 and claims.runs_to_see(2, 0.9, 0.5) == 2


def test_for_each_over_two_axes_names_each_group_by_both(tmp_path: Path) -> None:
    assert [c.group for c in _more(tmp_path)["each-k-and-n"].checks] == [
        "k=a n=-1.5", "k=a n=9", "k=a n=10", "k=b n=-1.5", "k=b n=9", "k=b n=10"]


def test_a_sequential_look_at_two_runs_spends_alpha_and_says_so(tmp_path: Path) -> None:
    """From two units on, each look's interval is at the confidence the spending allows."""
    path = tmp_path / "more.claims.yaml"
    path.write_text(MORE)
    rows = [{"param.k": "a", "param.n": "9", "status": "ok", "utilisation": u, "detection_time_ms": 1.0, "messages_affected": 1.0,
             "path_switches": None} for u in (0.3, 0.4)]
    rows += [row | {"param.k": "b"} for row in rows]
    result = next(r for r in claims.evaluate(claims.load(path), rows, ["k", "n"], sequential=True) if r.claim.id == "each-n")
    assert result.checks[0].figures.endswith(f"; sequential, at {verdicts.spent(0.95, 2):.4%}")


def test_a_claim_on_a_campaign_that_sweeps_nothing_is_refused_in_words(tmp_path: Path) -> None:
    path = tmp_path / "more.claims.yaml"
    path.write_text(MORE)
    with pytest.raises(SpecError, match=r"k is not a swept key of the campaign; allowed: none \(nothing is swept\)$"):
        claims.evaluate(claims.load(path), [{"status": "ok", "utilisation": 0.5}], [])


def test_for_each_takes_the_values_of_the_runs_at_hand(tmp_path: Path) -> None:
    """At k=b the runs have n 9 only: one group, not a check of no runs for each n of the campaign."""
    assert [c.group for c in _more(tmp_path)["b-at-each-n"].checks] == ["n=9"]


def test_an_axis_whose_key_is_not_swept_says_which_key_it_names(tmp_path: Path) -> None:
    path = tmp_path / "axis.claims.yaml"
    path.write_text('paper: "x"\naxes:\n  pmr: {key: sctp.nope}\nclaims:\n'
                    '  - {id: a, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {pmr: one}}\n')
    with pytest.raises(SpecError, match=r": pmr is not a swept key of the campaign \(axes: names sctp.nope\); allowed: pmr, k$"):
        claims.evaluate(claims.load(path), [{"param.k": "a", "status": "ok", "utilisation": 0.5}], ["k"])


ALIASES = """paper: "tests: a name standing for one value written two ways, and a filter by the written value"
axes:
  pol: {key: k, values: {fast: [a, A1], slow: b}}
claims:
  - {id: by-name, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {pol: fast}}
  - {id: as-written, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {pol: A1}}
  - {id: each-pol, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, for_each: [pol]}
"""


def test_an_axis_name_for_a_list_of_values_takes_each_and_a_written_value_only_itself(tmp_path: Path) -> None:
    """`fast: [a, A1]` (the same setting written differently in the campaigns compared): the name takes
    the runs of both; a filter naming A1 as written takes A1's runs only; for_each groups by the name."""
    path = tmp_path / "aliases.claims.yaml"
    path.write_text(ALIASES)
    rows = [{"param.k": k, "config": f"c-{k}", "status": "ok", "utilisation": u}
            for k, u in (("a", 0.3), ("a", 0.4), ("A1", 0.5), ("A1", 0.6), ("b", 0.7), ("b", 0.8))]
    results = {r.claim.id: r for r in claims.evaluate(claims.load(path), rows, ["k"])}
    assert [c.configs for c in results["by-name"].checks] == [("c-A1", "c-a")]
    assert [c.configs for c in results["as-written"].checks] == [("c-A1",)]
    assert [(c.group, c.configs) for c in results["each-pol"].checks] == [("pol=fast", ("c-A1", "c-a")), ("pol=slow", ("c-b",))]


def _evaluate(tmp_path: Path, text: str, rows: list[claims.Row], swept: list[str]) -> dict[str, claims.Result]:
    path = tmp_path / "c.claims.yaml"
    path.write_text('paper: "x"\nclaims:\n' + text)
    return {r.claim.id: r for r in claims.evaluate(claims.load(path), rows, swept)}


ROWS = [{"param.k": k, "param.n": n, "config": f"c-{k}-{n}", "status": "ok", "utilisation": u}
        for k, n, u in (("a", "9", 0.3), ("a", "10", 0.4), ("b", "9", 0.5), ("b", "10", 0.6))]
CLAIM = '  - id: c\n    says: "x"\n    where: "t"\n    metric: utilisation\n'  # lines 3-6 of the file


@pytest.mark.parametrize(("text", "expected"), [
    ("    kind: lowest\n    among: nope\n    which: a\n",
     "c.claims.yaml:8: claims.0.among: nope is not a swept key of the campaign; allowed: k, n"),
    ("    kind: lowest\n    among: k\n    which: zz\n",
     "c.claims.yaml:9: claims.0.which: 'zz' is not a value of k in the campaign's runs; allowed: a, b"),
    ("    kind: above\n    value: 0.1\n    at:\n      k: zz\n",
     "c.claims.yaml:10: claims.0.at.k: 'zz' is not a value of k in the campaign's runs; allowed: a, b"),
    ("    kind: above\n    value: 0.1\n    a:\n      nope: []\n",
     "c.claims.yaml:10: claims.0.a.nope: nope is not a swept key of the campaign; allowed: k, n"),
], ids=["among", "which", "at", "empty-list-of-an-unknown-key"])
def test_a_claims_unknown_among_which_or_filter_names_its_line_and_key(tmp_path: Path, text: str, expected: str) -> None:
    """Each refusal names the line of the key to blame and its whole path in the file (the claim's
    own line would send a user to the wrong key); a filter's empty list still needs a swept key."""
    with pytest.raises(SpecError) as refused:
        _evaluate(tmp_path, CLAIM + text, ROWS, ["k", "n"])
    assert str(refused.value) == f"{tmp_path}/{expected}"


def test_a_filter_of_a_list_takes_the_runs_of_each_value_and_runs_without_the_key_are_in_none(tmp_path: Path) -> None:
    """`n: [9, 10]` takes both values' runs; runs that leave x unset (None) match no value of x,
    and the unset value is no value of x (it is neither listed nor sorted among them)."""
    rows = [*ROWS, *(r | {"param.x": x, "config": f"{r['config']}-{x}"} for r, x in zip(ROWS, ("1", "1", None, "2"), strict=True))]
    rows = [r for r in rows if "param.x" in r]
    results = _evaluate(tmp_path, '  - {id: list, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {k: a, n: [9, 10]}}\n'
                                  '  - {id: x-one, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {x: 1}}\n',
                        rows, ["k", "n", "x"])
    assert results["list"].checks[0].configs == ("c-a-10-1", "c-a-9-1")
    assert results["x-one"].checks[0].configs == ("c-a-10-1", "c-a-9-1")
    with pytest.raises(SpecError, match=r"'3' is not a value of x in the campaign's runs; allowed: 1, 2$"):
        _evaluate(tmp_path, '  - {id: x-three, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {x: 3}}\n',
                  rows, ["k", "n", "x"])


AMONG_ROWS = [{"param.k": k, "param.n": n, "config": f"c-{k}-{n}", "status": "ok", "utilisation": u + d}
              for k, u, ns in (("a", 0.2, ("9", "10")), ("b", 0.4, ("9", "10")), ("c", 0.6, ("10",)))
              for n in ns for d in (-0.01, 0.0, 0.01)]
AMONG = """  - {id: lowest-at-9, says: "x", where: "t", metric: utilisation, kind: lowest, among: k, which: a, a: {n: 9}}
  - {id: lowest-each-n, says: "x", where: "t", metric: utilisation, kind: lowest, among: k, which: a, for_each: [n]}
  - {id: highest, says: "x", where: "t", metric: utilisation, kind: highest, among: k, which: c, at: {n: 10}}
  - {id: less, says: "x", where: "t", metric: utilisation, kind: less, a: {k: a}, b: {k: b}, at: {n: 9}}
  - {id: above, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {k: a}}
"""


def test_lowest_and_highest_look_only_at_the_runs_filtered_and_the_rivals_they_have(tmp_path: Path) -> None:
    """At n 9 (the filter a:) the runs have k a and b only: one rival, b, over n 9's runs alone
    (not c, which only n 10 has); for each n the rivals the group's runs have; a rival's check is
    named by the two values, after the group. `highest` holds where `which` is the greatest."""
    results = _evaluate(tmp_path, AMONG, AMONG_ROWS, ["k", "n"])
    assert [(c.group, c.configs) for c in results["lowest-at-9"].checks] == [("a vs b", ("c-a-9", "c-b-9"))]
    assert [c.group for c in results["lowest-each-n"].checks] == ["n=9 a vs b", "n=10 a vs b", "n=10 a vs c"]
    assert results["lowest-at-9"].verdict == "holds"
    assert [(c.group, c.verdict) for c in results["highest"].checks] == [("c vs a", "holds"), ("c vs b", "holds")]


def test_a_check_of_one_side_has_no_pairing_in_claims_json(tmp_path: Path) -> None:
    check = _evaluate(tmp_path, AMONG, AMONG_ROWS, ["k", "n"])["above"].checks[0]
    assert check.pairing == "" and set(check.to_dict()) == {"group", "figures", "verdict", "configs"}


def test_a_sequential_look_at_two_unpaired_sides_counts_the_runs_of_both(tmp_path: Path) -> None:
    """Runs without a seed are not paired: the look is at 3 + 3 runs, not at their difference."""
    path = tmp_path / "c.claims.yaml"
    path.write_text('paper: "x"\nclaims:\n' + AMONG)
    result = next(r for r in claims.evaluate(claims.load(path), AMONG_ROWS, ["k", "n"], sequential=True) if r.claim.id == "less")
    assert (result.checks[0].pairing, result.checks[0].to_dict()["pairs"]) == ("unpaired", 0)
    assert result.checks[0].figures.endswith(f"; sequential, at {verdicts.spent(0.95, 6):.4%}")


def test_a_compared_campaign_without_runs_is_refused_at_its_line(tmp_path: Path) -> None:
    """Of two campaigns named and neither given, the first is blamed, at its own line (3), with the
    option that gives it."""
    path = tmp_path / "c.claims.yaml"
    path.write_text('paper: "x"\ncampaigns:\n  before: b.yaml\n  after: a.yaml\nclaims:\n'
                    '  - {id: c, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1}\n')
    with pytest.raises(SpecError) as refused:
        claims.evaluate(claims.load(path), ROWS, ["k", "n"])
    assert str(refused.value) == (f"{path}:3: campaigns.before: no runs of this campaign given; "
                                  "allowed: sctpbench campaign check FOLDER CLAIMS --with before=FOLDER")


COLUMNS = ('  - {id: ok, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1}\n'
           + CLAIM.replace("id: c", "id: d") + "    kind: above\n    value: 0.1\n")


@pytest.mark.parametrize(("text", "expected"), [
    ("", ":7: claims.1.metric: detection_time_ms is not a column of the campaign's table; allowed: "),
    ("    requires:\n      - runs: some\n        metric: path_switches\n      - {metric: utilisation}\n",
     ":12: claims.1.requires.0.metric: path_switches is not a column of the campaign's table; allowed: "),
], ids=["metric", "requires"])
def test_a_metric_the_campaigns_table_lacks_is_refused_at_its_line(tmp_path: Path, text: str, expected: str) -> None:
    """A metric the project knows but this campaign's table has no column of (a claim's, a
    precondition's): refused at the line of the metric to blame, with the metrics allowed."""
    rows = [r | {"detection_time_ms": 1.0} for r in ROWS] if text else ROWS
    body = COLUMNS if text else COLUMNS.replace("metric: utilisation\n    kind: above\n    value: 0.1",
                                                "metric: detection_time_ms\n    kind: above\n    value: 1s")
    with pytest.raises(SpecError) as refused:
        _evaluate(tmp_path, body + text, rows, ["k", "n"])
    assert str(refused.value) == f"{tmp_path}/c.claims.yaml{expected}{', '.join(metrics.METRIC_KEYS)} or an association's"


def test_a_key_only_a_compared_campaign_sweeps_is_an_axis_of_the_claims(tmp_path: Path) -> None:
    path = tmp_path / "c.claims.yaml"
    path.write_text('paper: "x"\ncampaigns: {before: b.yaml}\nclaims:\n'
                    '  - {id: c, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {campaign: before, z: 1}}\n')
    before = [{"param.z": "1", "config": "z1", "status": "ok", "utilisation": 0.5}]
    result = claims.evaluate(claims.load(path), ROWS, ["k", "n"], {"before": (before, ["z"])})[0]
    assert result.checks[0].configs == ("z1",)


def test_a_filter_names_a_swept_value_as_the_campaigns_table_writes_it(tmp_path: Path) -> None:
    """YAML's true, false, null and numbers are matched by the text the table holds (true, not True;
    0.72, 1), so a filter of `pf: false` takes the runs swept at false."""
    assert [claims.written(v) for v in (True, False, None, 0.72, 1, "96.15/s")] == ["true", "false", "null", "0.72", "1", "96.15/s"]
    rows = [{"param.pf": pf, "config": f"pf-{pf}", "status": "ok", "utilisation": 0.5} for pf in ("true", "false")]
    results = _evaluate(tmp_path, '  - {id: pf-off, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {pf: false}}\n',
                        rows, ["pf"])
    assert results["pf-off"].checks[0].configs == ("pf-false",)


def test_a_filter_on_a_date_or_a_list_takes_the_runs_the_table_holds_for_it(tmp_path: Path) -> None:
    """The table holds a swept value as the campaign wrote it (expand: as_written): a date as
    2024-01-01, a list as [a, b]; a filter's value is read as YAML and written the same way
    (it was `repr`: datetime.date(2024, 1, 1) and ['a', 'b'] matched no run). A filter's list
    names alternatives, so a list value is named inside one."""
    rows = [{"param.d": d, "config": f"d-{d}", "status": "ok", "utilisation": 0.5} for d in ("2024-01-01", "[a, b]")]
    results = _evaluate(tmp_path, '  - {id: day, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {d: 2024-01-01}}\n'
                        '  - {id: pair, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1, a: {d: [[a, b]]}}\n',
                        rows, ["d"])
    assert results["day"].checks[0].configs == ("d-2024-01-01",)
    assert results["pair"].checks[0].configs == ("d-[a, b]",)


def test_a_claims_file_that_is_not_a_mapping_is_refused_with_the_keys_it_takes(tmp_path: Path) -> None:
    path = tmp_path / "list.claims.yaml"
    path.write_text("- paper: x\n")
    with pytest.raises(SpecError) as refused:
        claims.load(path)
    assert str(refused.value) == (f"{path}: a claims file must be a mapping with keys "
                                  "paper, campaign, confidence, repetitions, axes, campaigns, claims")


def test_an_associations_metric_is_read_as_its_base_metric(tmp_path: Path) -> None:
    """association.NAME.METRIC: a duration limit for a *_ms metric (1s: 1000 ms), two digits for a
    share, a precondition on it; a name whose last part is no metric is refused as one."""
    rows = [{"param.k": "a", "config": "a", "status": "ok", "association.v.utilisation": u, "association.v.detection_time_ms": d}
            for u, d in ((0.31, 300.0), (0.32, 310.0), (0.33, 320.0))]
    results = _evaluate(tmp_path, '  - {id: share, says: "x", where: "t", metric: association.v.utilisation, kind: above, value: 0.1}\n'
                                  '  - {id: time, says: "x", where: "t", metric: association.v.detection_time_ms, kind: below, value: 1s,'
                                  ' requires: [{metric: association.v.utilisation, above: 0.3}]}\n', rows, ["k"])
    share, time = Sample((0.31, 0.32, 0.33)), Sample((300.0, 310.0, 320.0))
    assert results["share"].checks[0].figures == f"{share.text(2)} > 0.1"
    assert results["time"].checks[0].figures == f"{time.text(1)} < 1000; requires association.v.utilisation > 0.3 in 3 of 3 runs"
    assert results["time"].verdict == "holds"
    for name in ("association.v.nope", "nope.v.utilisation", "association.utilisation"):
        with pytest.raises(SpecError, match=f"claims.0.metric: '{name}' is not a campaign metric; allowed: mtt_mean_ms, "):
            _evaluate(tmp_path, f'  - {{id: c, says: "x", where: "t", metric: {name}, kind: above, value: 0.1}}\n', rows, ["k"])


def test_a_second_claim_of_the_same_id_is_refused_at_its_id(tmp_path: Path) -> None:
    path = tmp_path / "c.claims.yaml"
    path.write_text('paper: "x"\nclaims:\n  - {id: d, says: "x", where: "t", metric: utilisation, kind: above, value: 0.1}\n'
                    '  - says: "x"\n    id: d\n    where: "t"\n    metric: utilisation\n    kind: above\n    value: 0.1\n')
    with pytest.raises(SpecError) as refused:
        claims.load(path)
    assert str(refused.value) == f"{path}:5: claims.1.id: 'd' is also claim 0's; allowed: an id used once"
