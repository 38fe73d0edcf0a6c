"""Just enough of Grafana's dashboard model to write dashboards as code.

Plain dataclasses rendered to the JSON Grafana stores (schema version 39, Grafana 10/11):
the generated files stay readable in a diff, and nothing beyond the standard library is
needed. Every query is InfluxQL, which InfluxDB 1.x speaks natively and 2.x/3.x through
their InfluxQL compatibility (a DBRP mapping), so one dashboard serves all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 39
DATASOURCE_UID = "sctpbench-influxdb"
DATASOURCE = {"type": "influxdb", "uid": DATASOURCE_UID}


@dataclass(frozen=True)
class Query:
    influxql: str
    alias: str = ""
    result_format: str = "time_series"  # or "table"

    def target(self, ref: str) -> dict[str, Any]:
        out: dict[str, Any] = {"refId": ref, "datasource": DATASOURCE, "query": self.influxql, "rawQuery": True,
                               "resultFormat": self.result_format}
        if self.alias:
            out["alias"] = self.alias
        return out


@dataclass(frozen=True)
class Panel:
    title: str
    kind: str  # Grafana panel type: timeseries, state-timeline, histogram, barchart, table, stat
    queries: tuple[Query, ...]
    width: int = 12
    height: int = 8
    unit: str = ""
    description: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    title: str
    panels: tuple[Panel, ...]


@dataclass(frozen=True)
class Variable:
    name: str
    label: str
    influxql: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "label": self.label, "type": "query", "datasource": DATASOURCE,
            "query": self.influxql, "definition": self.influxql, "refresh": 2, "sort": 1,
            "multi": True, "includeAll": True, "allValue": ".*",
            "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        }


@dataclass(frozen=True)
class Annotation:
    name: str
    influxql: str
    color: str
    # The columns holding an annotation's text and its tags.
    text_column: str = "title"
    tags_column: str = "kind"

    def to_json(self) -> dict[str, Any]:
        # Grafana 10/11's InfluxDB plugin reads textColumn and tagsColumn from the target
        # (its InfluxQL annotation editor writes them there); older Grafana read them at the
        # top level, so both places carry them.
        columns = {"textColumn": self.text_column, "tagsColumn": self.tags_column}
        return {
            "name": self.name, "datasource": DATASOURCE, "enable": True, "iconColor": self.color,
            "query": self.influxql, **columns,
            "target": {"query": self.influxql, "rawQuery": True, "refId": "Anno", **columns},
        }


@dataclass(frozen=True)
class Dashboard:
    uid: str
    title: str
    description: str
    variables: tuple[Variable, ...]
    annotations: tuple[Annotation, ...]
    rows: tuple[Row, ...]
    refresh: str = "5s"
    time_from: str = "now-15m"

    def queries(self) -> list[tuple[str, str]]:
        """(where, InfluxQL) for every query the dashboard runs: panels, variables, annotations."""
        out = [(f"variable {v.name}", v.influxql) for v in self.variables]
        out += [(f"annotation {a.name}", a.influxql) for a in self.annotations]
        out += [(f"panel {p.title}", q.influxql) for r in self.rows for p in r.panels for q in p.queries]
        return out

    def to_json(self) -> dict[str, Any]:
        panels: list[dict[str, Any]] = []
        y = 0
        next_id = 1
        for row in self.rows:
            panels.append({"id": next_id, "type": "row", "title": row.title, "collapsed": False,
                           "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
            next_id += 1
            y += 1
            x = 0
            for p in row.panels:
                if x + p.width > 24:
                    x, y = 0, y + p.height
                panels.append(_panel_json(p, next_id, x, y))
                next_id += 1
                x += p.width
            y += max((p.height for p in row.panels), default=0)
        return {
            "uid": self.uid, "title": self.title, "description": self.description, "tags": ["sctpbench"],
            "editable": True, "schemaVersion": SCHEMA_VERSION, "version": 1, "refresh": self.refresh,
            "time": {"from": self.time_from, "to": "now"}, "timezone": "browser",
            "templating": {"list": [v.to_json() for v in self.variables]},
            "annotations": {"list": [a.to_json() for a in self.annotations]},
            "panels": panels,
        }


def _panel_json(p: Panel, panel_id: int, x: int, y: int) -> dict[str, Any]:
    defaults: dict[str, Any] = dict(p.defaults)
    if p.unit:
        defaults["unit"] = p.unit
    return {
        "id": panel_id, "type": p.kind, "title": p.title, "description": p.description, "datasource": DATASOURCE,
        "gridPos": {"h": p.height, "w": p.width, "x": x, "y": y},
        "targets": [q.target(chr(ord("A") + i)) for i, q in enumerate(p.queries)],
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": p.options,
    }
