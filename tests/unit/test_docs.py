"""The documentation: the site builds without a warning, the README stays a front door, the reference names every key.

The site is built once per session (`mkdocs build --strict`, which fails on a broken link, an anchor that is not there
or a page missing from the navigation) into a temporary folder; nothing built is committed. mkdocs comes with the
`docs` extra that scripts/install installs, so nothing here is skipped.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SCHEMAS = ROOT / "sctpbench" / "schema"
README_MAX_LINES = 300
# A markdown link or image whose target is not a web address, a mail address or an anchor on the same page.
RELATIVE_LINK = re.compile(r"!?\[[^\]]*\]\((?!https?://|mailto:|#)([^)\s]+)\)")
# What a browser would load by itself from another machine: a script, style sheet, font, image or frame whose address
# has a host (a link the reader may click, <a href>, loads nothing).
OUTSIDE = re.compile(r"""<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)\s*=\s*["'](?:https?:)?//[^"']*""")
CSS_OUTSIDE = re.compile(r"""(?:@import|url\()\s*["']?(?:https?:)?//""")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly; the build's own output is the failure message."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"), "-d", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert not warnings, "\n".join(warnings)
    return out


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    nav_pages = re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), flags=re.MULTILINE)
    assert "index.md" in nav_pages and "reference.md" in nav_pages
    for page in nav_pages:
        assert (site / page.replace(".md", ".html")).is_file(), page


def test_no_page_loads_anything_from_outside_the_machine(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, page
        found = OUTSIDE.findall(text)
        assert not found, f"{page.relative_to(site)} loads from outside: {found[:3]}"
    for sheet in site.rglob("*.css"):
        assert not CSS_OUTSIDE.search(sheet.read_text(encoding="utf-8")), sheet


def top_level_keys(kind: str) -> list[str]:
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text())
    return list(schema["properties"])


@pytest.mark.parametrize("kind", ["experiment", "campaign", "topology"])
def test_the_reference_names_every_top_level_key(site: Path, kind: str) -> None:
    html = (site / "reference.html").read_text(encoding="utf-8")
    section = html.split(f'id="{kind}-top"', 1)
    assert len(section) == 2, f"no table of the {kind} file's top-level keys in the reference"
    table = section[1].split("</table>", 1)[0]
    keys = top_level_keys(kind)
    assert keys
    for key in keys:
        assert f"<code>{key}</code>" in table, f"the reference's {kind} table lacks {key}"


def test_the_reference_lists_every_event_kind(site: Path) -> None:
    html = (site / "reference.html").read_text(encoding="utf-8")
    schema = json.loads((SCHEMAS / "experiment.schema.json").read_text())
    kinds = [sub["if"]["required"][0] for sub in schema["properties"]["events"]["items"]["allOf"]]
    assert len(kinds) >= 10
    for kind in kinds:
        assert f'id="experiment-events-{kind.replace("_", "-")}"' in html, kind


def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; at most {README_MAX_LINES}: move the rest into docs/"
    text = "\n".join(lines)
    assert "./scripts/example" in text and "./scripts/test" in text


def test_every_relative_link_in_the_readme_resolves() -> None:
    links = RELATIVE_LINK.findall(README.read_text(encoding="utf-8"))
    assert links, "the README links into docs/"
    missing = [link for link in links if not (ROOT / link.split("#", 1)[0]).exists()]
    assert not missing, f"README.md links to files that are not there: {missing}"
