"""The dashboards against Grafana's TypeScript types (npm @grafana/schema, tsc --strict).

The tsc tests use the pinned tools that scripts/install puts in the cache (installed here
when missing); without npm they skip, and fail under SCTPBENCH_REQUIRE_GUEST=1 (CI).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from sctpbench.dashboards import catalog, export, schema_check
from sctpbench.dashboards.schema_check import DEVIATIONS, Deviation

RUNS = catalog.RUNS.to_json()


@pytest.fixture(scope="module")
def tools() -> Path:
    if not schema_check.installed() and shutil.which("npm") is None:
        if os.environ.get("SCTPBENCH_REQUIRE_GUEST") == "1":
            pytest.fail("npm is required for the dashboards' type check (scripts/install installs nodejs and npm)")
        pytest.skip("npm not installed (Debian packages nodejs and npm): dashboards not type-checked")
    return schema_check.install()


def leaves(node: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every path to a value, list positions as "*" (so paths compare with the deviations')."""
    if isinstance(node, dict):
        return {p for k, v in node.items() for p in leaves(v, (*prefix, k))} | {prefix}
    if isinstance(node, list):
        return {p for v in node for p in leaves(v, (*prefix, "*"))} | {prefix}
    return {prefix}


def test_rendering_declares_the_dashboard_as_grafanas_dashboard_type() -> None:
    ts = schema_check.render(RUNS)
    assert 'import type { Dashboard } from "@grafana/schema";' in ts
    head, _, body = ts.partition("export const dashboard: Json<Dashboard> = ")
    assert "type Json<T>" in head
    assert body.endswith(";\n")
    assert json.loads(body[:-2]) == RUNS  # the JSON itself, untouched


def test_strip_removes_exactly_the_listed_fields_and_counts_them() -> None:
    original = copy.deepcopy(RUNS)
    stripped, counts = schema_check.strip(RUNS)
    assert RUNS == original  # the dashboard itself is not changed
    removed = leaves(RUNS) - leaves(stripped)
    assert removed == {d.path for d in DEVIATIONS}
    variables, annotations = len(RUNS["templating"]["list"]), len(RUNS["annotations"]["list"])
    assert counts == {d.name: variables if d.path[0] == "templating" else annotations for d in DEVIATIONS}
    # and nothing else: every other value is still there as it was
    assert stripped["panels"] == RUNS["panels"]
    assert [v["query"] for v in stripped["templating"]["list"]] == [v["query"] for v in RUNS["templating"]["list"]]
    assert [a["target"]["refId"] for a in stripped["annotations"]["list"]] == ["Anno"] * 3


def test_every_exported_dashboard_type_checks(tools: Path, tmp_path: Path) -> None:
    export.export(tmp_path)
    boards = {p.stem: json.loads(p.read_text()) for p in sorted((tmp_path / "dashboards").glob("*.json"))}
    assert set(boards) == {d.uid for d in catalog.DASHBOARDS}
    result = schema_check.check(boards, tools)
    assert result.ok, result.describe()


def _broken(change: str) -> dict[str, Any]:
    board = copy.deepcopy(RUNS)
    panel = board["panels"][1]
    if change == "width as a string":
        panel["gridPos"]["w"] = "16"
    elif change == "typo in a panel key":
        panel["titel"] = panel.pop("title")
    elif change == "typo in a variable key":
        board["templating"]["list"][0]["includeAl"] = board["templating"]["list"][0].pop("includeAll")
    elif change == "unknown value mapping type":
        board["panels"][3]["fieldConfig"]["defaults"]["mappings"][0]["type"] = "valeu"
    elif change == "no schemaVersion":
        del board["schemaVersion"]
    elif change == "annotation without a datasource-neutral field it needs":
        del board["annotations"]["list"][0]["enable"]
    return board


BROKEN = ("width as a string", "typo in a panel key", "typo in a variable key", "unknown value mapping type",
          "no schemaVersion", "annotation without a datasource-neutral field it needs")


def test_a_broken_dashboard_fails_the_type_check(tools: Path) -> None:
    assert RUNS["panels"][3]["fieldConfig"]["defaults"]["mappings"][0]["type"] == "value"  # the state timeline
    boards = {"intact": RUNS} | {f"broken-{i}": _broken(change) for i, change in enumerate(BROKEN)}
    result = schema_check.check(boards, tools)
    assert result.errors["intact"] == []
    for i, change in enumerate(BROKEN):
        assert result.errors[f"broken-{i}"], f"{change}: tsc accepted it"
    assert "titel" in " ".join(result.errors["broken-1"])
    assert "includeAl" in " ".join(result.errors["broken-2"])
    assert not result.ok


def test_a_deviation_that_no_longer_applies_is_reported(tools: Path) -> None:
    gone = Deviation(("templating", "list", "*", "regexp"), "a key no dashboard writes")
    accepted = Deviation(("panels", "*", "description"), "a field the types declare")
    result = schema_check.check({d.uid: d.to_json() for d in catalog.DASHBOARDS}, tools, (*DEVIATIONS, gone, accepted))
    assert result.unused == [gone.name]
    assert result.accepted == [accepted.name]
    assert not any(result.errors.values())  # removing a declared field keeps a dashboard valid
    assert "remove it from schema_check.DEVIATIONS" in result.describe()
    assert not result.ok


def test_a_second_install_does_nothing(tools: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)  # npm could not even be found
    assert schema_check.install() == tools
