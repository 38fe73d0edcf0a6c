"""A dashboard's queries run as Grafana runs them, for the live view and its tests.

The committed definitions (catalog.py) hold InfluxQL with Grafana's variables
(`$experiment`, `$run`, `$timeFilter`, `$__interval`, …). Here they are filled in for one
selection, run server-side against InfluxDB (telemetry/influx.py, with the credentials
`run` uses), and their answers turned into plain series and tables: no Panel, no Bokeh,
so the tests and the benchmark can read exactly what the page draws.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sctpbench.dashboards.model import Annotation, Dashboard, Panel, Variable
from sctpbench.telemetry import influx

ALL = "All"
# Room around the newest run's points, so its first and last messages are not on the edge.
MARGIN_NS = 1_000_000_000
# When nothing has been written yet: Grafana's own default window.
EMPTY_WINDOW_NS = 15 * 60 * 1_000_000_000
# Points across the window a panel draws at most per series: Grafana's $__interval idea.
MAX_POINTS = 1000
MIN_INTERVAL_MS = 10
# The intervals a window's width is rounded up to, as Grafana rounds $__interval: a run that
# grows keeps its interval for long stretches, so the live view's points stay the same buckets
# (a new interval regroups every point: the view then draws the run afresh).
NICE_INTERVALS_MS = (10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 300_000, 600_000, 3_600_000)


@dataclass(frozen=True)
class Window:
    """The time range the panels show, in ns since the epoch."""

    start_ns: int
    end_ns: int
    # A window's own interval unless given: the live view's reads of new points keep the
    # interval of the window they extend.
    step_ms: int = 0

    @property
    def interval_ms(self) -> int:
        if self.step_ms:
            return self.step_ms
        raw = max(MIN_INTERVAL_MS, (self.end_ns - self.start_ns) // MAX_POINTS // 1_000_000)
        return next((n for n in NICE_INTERVALS_MS if n >= raw), raw)

    @property
    def interval(self) -> str:
        return f"{self.interval_ms}ms"

    def since(self, start_ns: int, end_ns: int) -> Window:
        """From start_ns (on a bucket's edge: a partial first bucket would undercount) to end_ns, at this interval."""
        step = self.interval_ms * 1_000_000
        return Window(start_ns // step * step, end_ns, self.interval_ms)

    @property
    def time_filter(self) -> str:
        return f"time >= {self.start_ns} AND time <= {self.end_ns}"


@dataclass(frozen=True)
class Selection:
    """One value (or All) per dashboard variable, by the variable's name."""

    values: dict[str, str] = field(default_factory=dict)

    def regex(self, name: str) -> str:
        value = self.values.get(name, ALL)
        return ".*" if value == ALL else re.escape(value)

    def fill(self, influxql: str, window: Window | None = None) -> str:
        """The query with every variable replaced; `$timeFilter` and `$__interval` need a window."""
        # Longest names first: $run must not eat the start of a longer name.
        for name in sorted(self.values, key=len, reverse=True):
            influxql = influxql.replace(f"${name}", self.regex(name))
        if window is not None:
            influxql = influxql.replace("$timeFilter", window.time_filter).replace("$__interval", window.interval)
        return influxql


@dataclass(frozen=True)
class Series:
    """One series of a panel: its label and rows of (time ns, value per column)."""

    label: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    # The tags the query grouped by: a table shows them as columns, as Grafana's table format does.
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def points(self) -> int:
        return sum(1 for row in self.rows for v in row[1:] if v is not None)


@dataclass(frozen=True)
class PanelData:
    """What one panel shows now: its series, or the reason it shows nothing."""

    panel: Panel
    series: tuple[Series, ...] = ()
    error: str = ""

    @property
    def points(self) -> int:
        return sum(s.points for s in self.series)


@dataclass(frozen=True)
class Mark:
    """One annotation: a moment with its title and tags (Grafana's textColumn and tagsColumn)."""

    time_ns: int
    text: str
    tags: str
    color: str


def variable_options(target: influx.Target, variable: Variable, selection: Selection) -> list[str]:
    """The values a variable offers now, given the variables before it."""
    values = {row[1] for s in influx.query(target, selection.fill(variable.influxql)) for row in s.get("values", [])}
    return sorted(str(v) for v in values)


def _runs_where(selection: Selection) -> str:
    return selection.fill('"experiment" =~ /^$experiment$/ AND "campaign" =~ /^$campaign$/ AND "run" =~ /^$run$/')


def _newest_statement(selection: Selection) -> str:
    # By campaign and run: the same run (same id) in two campaigns, or a campaign run again
    # elsewhere, is two runs at two times, not one run spanning both.
    return f'SELECT last("seq") FROM "sctp_message" WHERE {_runs_where(selection)} GROUP BY "campaign", "run"'


def _newest(series: list[dict[str, Any]]) -> tuple[int, str, str] | None:
    """The newest selected run's last message: (time ns, campaign, run)."""
    ends = [(int(s["values"][0][0]), s["tags"]["campaign"], s["tags"]["run"]) for s in series if s.get("values")]
    return max(ends) if ends else None


def newest_run(target: influx.Target, selection: Selection) -> tuple[int, str, str] | None:
    """The newest selected run's last message (time ns, campaign, run), or None: one statement."""
    return _newest(influx.query(target, _newest_statement(selection)))


def window(target: influx.Target, selection: Selection, now_ns: int) -> Window:
    """The newest selected run's span (a live run's end is its newest message), else the last 15 minutes."""
    return newest_window(target, selection, now_ns)[0]


def newest_window(target: influx.Target, selection: Selection, now_ns: int) -> tuple[Window, tuple[str, str] | None]:
    """The window, and the run it shows: (campaign, run), or None before anything is written."""
    where = _runs_where(selection)
    newest = _newest(influx.query(target, _newest_statement(selection)))
    if newest is None:
        return Window(now_ns - EMPTY_WINDOW_NS, now_ns), None
    end, campaign, run = newest
    this = f'{where} AND "campaign" = \'{_quote(campaign)}\' AND "run" = \'{_quote(run)}\''
    # A run done again under the same campaign (a retry, the campaign again in another folder)
    # has the same tags: its newest attempt starts where each association last sent message 0.
    starts = influx.query(target, f'SELECT last("seq") FROM "sctp_message" WHERE {this} AND "seq" = 0 GROUP BY "association"')
    firsts = [s["values"][0][0] for s in starts if s.get("values")]
    if not firsts:
        first = influx.query(target, f'SELECT first("seq") FROM "sctp_message" WHERE {this}')
        firsts = [first[0]["values"][0][0]] if first and first[0].get("values") else [end]
    return Window(int(min(firsts)) - MARGIN_NS, int(end) + MARGIN_NS), (campaign, run)


def panel_data(target: influx.Target, panel: Panel, selection: Selection, span: Window) -> PanelData:
    """Every query of the panel, filled and run; a refused query is the panel's error, not an exception."""
    series: list[Series] = []
    try:
        for q in panel.queries:
            for s in influx.query(target, selection.fill(q.influxql, span)):
                series.append(_series(s, q.alias))
    except influx.WriteError as e:
        return PanelData(panel, error=str(e))
    return PanelData(panel, tuple(series))


def marks(target: influx.Target, annotation: Annotation, selection: Selection, span: Window) -> list[Mark]:
    """An annotation's moments, its text from `title` and its tags from `kind` (as Grafana reads them)."""
    return _marks(annotation, influx.query(target, selection.fill(annotation.influxql, span)))


@dataclass(frozen=True)
class Tail:
    """What one read of new points found: the newest selected run's last message (time ns,
    campaign, run), each asked-for panel's points from its own start on, the annotations."""

    newest: tuple[int, str, str] | None
    data: list[PanelData]
    marks: list[Mark]


def tail(target: influx.Target, asks: list[tuple[Panel, Window]], annotations: tuple[Annotation, ...],
         selection: Selection, span: Window) -> Tail:
    """The newest run, the panels' points in their windows, and the annotations in span: one request.

    A refused statement is a WriteError: `panel_data` then tells which panel it was."""
    statements = [_newest_statement(selection)]
    for panel, since in asks:
        statements += [selection.fill(q.influxql, since) for q in panel.queries]
    statements += [selection.fill(a.influxql, span) for a in annotations]
    results = iter(influx.query_many(target, statements))
    newest = _newest(next(results))
    data = [PanelData(panel, tuple(_series(s, q.alias) for q in panel.queries for s in next(results)))
            for panel, _ in asks]
    return Tail(newest, data, [m for a in annotations for m in _marks(a, next(results))])


def _marks(annotation: Annotation, series: list[dict[str, Any]]) -> list[Mark]:
    out = []
    for s in series:
        columns = s["columns"]
        text = columns.index(annotation.text_column) if annotation.text_column in columns else None
        tags = columns.index(annotation.tags_column) if annotation.tags_column in columns else None
        for row in s.get("values", []):
            out.append(Mark(int(row[0]), str(row[text]) if text is not None else "",
                            str(row[tags]) if tags is not None else "", annotation.color))
    return out


def dashboard_data(target: influx.Target, dashboard: Dashboard, selection: Selection, span: Window) -> list[PanelData]:
    """Every panel's data, in one request (a request per query took the live view's refresh
    0.1-0.4 s on a busy machine, no new points read meanwhile); panel by panel when a query is
    refused, so each panel says its own error."""
    panels = [p for row in dashboard.rows for p in row.panels]
    try:
        results = iter(influx.query_many(target, [selection.fill(q.influxql, span) for p in panels for q in p.queries]))
    except influx.WriteError:
        return [panel_data(target, p, selection, span) for p in panels]
    return [PanelData(p, tuple(_series(s, q.alias) for q in p.queries for s in next(results))) for p in panels]


def panels_without_data(data: list[PanelData]) -> list[str]:
    """Titles of the panels that show nothing, with why: the check the browser test makes of the page too."""
    return [f"{d.panel.title}: {d.error or 'no data'}" for d in data if d.error or d.points == 0]


def _series(s: dict[str, Any], alias: str) -> Series:
    tags = {str(k): str(v) for k, v in (s.get("tags") or {}).items()}
    if alias:
        label = re.sub(r"\$tag_(\w+)", lambda m: tags.get(m.group(1), ""), alias).strip()
    else:
        label = " ".join([s.get("name", "")] + [f"{k}={v}" for k, v in sorted(tags.items())])
    return Series(label, tuple(s["columns"]), tuple(tuple(row) for row in s.get("values", [])), tags)


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")
