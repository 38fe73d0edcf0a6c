"""The seeds' verdict table (docs/seeds.md#verdicts) against the claims files and the shipped tables.

The page's table is made at build time (docs/hooks/verdicts.py, campaign/verdict_table.py) from
reproductions/*/results*/: each line must be what `sctpbench campaign check` prints on that
folder with that claims file, each shipped.json must be the totals of its table, every claims
file must have its line, and the page must hold the generated table, not a hand-written one.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from sctpbench import cli
from sctpbench.campaign import shipped, table, verdict_table
from sctpbench.results import campaign as campaign_files

ROOT = Path(__file__).resolve().parents[2]
SEEDS_PAGE = ROOT / "docs/seeds.md"
TALLY = re.compile(r"^(\d+) hold, (\d+) contradicted, (\d+) inconclusive(?:, (\d+) not exercised)?;", re.M)
LINES = verdict_table.lines(ROOT)
SHIPPED = [line for line in LINES if not line.missing]


def test_every_claims_file_has_its_line() -> None:
    assert [line.claims_file for line in LINES] == [p.relative_to(ROOT) for p in verdict_table.claims_files(ROOT)]
    assert len(LINES) >= 10


@pytest.mark.parametrize("line", SHIPPED, ids=[str(line.claims_file) for line in SHIPPED])
def test_each_line_is_what_campaign_check_prints_on_the_shipped_tables(line: verdict_table.Line, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # a copy: check writes claims.json into the folder it checks, which is not to be committed
    folder = Path(shutil.copytree(ROOT / line.tables, tmp_path / line.tables.name))
    # and its campaign file where the table names it (relative): check reads its repetitions
    planned = (campaign_files.read_info(folder) or {}).get("file")
    if planned and not Path(planned).is_absolute() and (ROOT / line.tables / planned).is_file():
        shutil.copy(ROOT / line.tables / planned, folder / planned)
    others = [f"--with={name}={ROOT / other}" for name, other in _others(line).items()]
    cli.main(["campaign", "check", str(folder), str(ROOT / line.claims_file), *others])
    found = TALLY.search(capsys.readouterr().out)
    assert found, "campaign check printed no tally"
    holds, contradicted, inconclusive, unexercised = (int(g or 0) for g in found.groups())
    assert [line.counts.get(v, 0) for v in verdict_table.VERDICTS] == [holds, contradicted, unexercised, inconclusive]
    assert sum(line.counts.values()) == line.claims


def _others(line: verdict_table.Line) -> dict[str, Path]:
    from sctpbench.analysis import claims
    from sctpbench.campaign import check

    loaded = claims.load(ROOT / line.claims_file)
    return {name: p.relative_to(ROOT) for name, p in check.other_folders(ROOT / line.tables, loaded, []).items()}


@pytest.mark.parametrize("line", SHIPPED, ids=[str(line.claims_file) for line in SHIPPED])
def test_each_shipped_json_is_the_totals_of_its_table(line: verdict_table.Line) -> None:
    folder = ROOT / line.tables
    rows = table.read(folder)
    document = campaign_files.read_shipped(folder)
    assert document is not None
    assert document == shipped.totals(document["campaign"], document["campaign_file"], rows).to_dict()
    assert (folder / document["campaign_file"]).is_file(), "the campaign file, named relative to the shipped folder"
    assert all(r["commit"] and r["kernel_key"] for r in rows), "a row without what made it"
    size = sum(p.stat().st_size for p in folder.iterdir())
    assert size < 100_000 + 2_000 * len(rows), f"{folder}: {size} bytes for {len(rows)} runs"


def test_the_page_holds_the_generated_table_and_no_hand_written_one() -> None:
    text = SEEDS_PAGE.read_text()
    assert len(re.findall(r"<!--\s*verdicts\s*-->", text)) == 1
    assert "| holds | contradicted |" not in text, "a hand-written verdict table in docs/seeds.md"
    spec = importlib.util.spec_from_file_location("verdicts_hook", ROOT / "docs/hooks/verdicts.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = hook.on_page_markdown(text, None, None, None)
    for line in verdict_table.lines(ROOT):  # again: a campaign may have shipped since LINES
        # claims.yaml's row names no claims file; another's names its own
        row = next(r for r in page.splitlines() if r.startswith(f"| `{line.claims_file.parent.name}`")
                   and (("(`claims" not in r) if line.claims_file.name == "claims.yaml"
                        else f"(`{line.claims_file.name}`)" in r))
        cells = [c.strip() for c in row.strip("|").split("|")]
        if line.missing:
            assert cells[2] == line.missing
        else:
            assert cells[4:8] == [str(line.counts.get(v, 0)) for v in verdict_table.VERDICTS]
            assert cells[2].startswith(f"{line.totals['runs']} (")
