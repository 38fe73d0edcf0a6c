"""MkDocs hook: the seeds' verdict table (docs/seeds.md), made from the shipped tables at build time.

docs/seeds.md holds the marker `<!-- verdicts -->`; this hook replaces it with one line per claims file under
reproductions/, its verdicts computed from the campaign's shipped tables as `sctpbench campaign check` computes them
(sctpbench/campaign/verdict_table.py). Nothing generated is committed; tests/unit/test_verdict_table.py checks the
lines against `campaign check` and each table's shipped.json.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!--\s*verdicts\s*-->")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if not MARKER.search(markdown):
        return markdown
    from sctpbench.campaign import verdict_table  # here: only the page with the marker needs sctpbench

    table = verdict_table.markdown(verdict_table.lines(ROOT))
    return MARKER.sub(lambda _: table, markdown)
