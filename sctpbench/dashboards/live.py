"""The live view: the committed dashboards (catalog.py) drawn in the browser while a run streams.

`sctpbench dashboards serve` serves it on 127.0.0.1 with Panel (Bokeh server, BSD). Each
browser session gets its own LiveDashboard: the variables as select widgets in a sidebar, one
view per panel of the dashboard (timeseries, state timeline, histogram, bar chart, table,
stat), the annotations as vertical marks on the time axes. Every refresh (the dashboard's
interval) runs the panels' InfluxQL here, in the server, through telemetry/influx.py with the
credentials `run` uses; the browser receives only the numbers drawn, over Bokeh's websocket.

Nothing is loaded from outside the machine: Bokeh's and Panel's scripts come from this
server (Panel's "server" resources), and no template (the fast ones fetch web fonts) is used.
"""

from __future__ import annotations

import asyncio
import html
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, DataRange1d, FactorRange, HoverTool, Range1d
from bokeh.palettes import Category10_10
from bokeh.plotting import figure
from tornado.websocket import WebSocketClosedError

from sctpbench.dashboards import evaluate
from sctpbench.dashboards.model import Dashboard, Panel
from sctpbench.telemetry import influx

GRID_COLUMN_PX = 50  # Grafana's 24-column grid, 1200 pixels beside the sidebar
GRID_ROW_PX = 34
# The least a time series' value axis spans, by unit: an MTT that jitters by a fraction of a µs
# around 15.0007 ms otherwise fills the panel as two bands 0.0002 ms apart.
MIN_SPAN = {"ms": 1.0}
STATUS_CLASS = "sb-status"


def refresh_seconds(refresh: str) -> float:
    """Grafana's refresh interval ("5s", "1m", "500ms") in seconds."""
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for suffix in ("ms", "s", "m", "h"):
        if refresh.endswith(suffix):
            return float(refresh[: -len(suffix)]) * units[suffix]
    raise ValueError(f"refresh: {refresh!r} is not a duration like 5s")


class PanelView(Protocol):
    layout: Any

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window) -> None: ...


def _measurements(panel: Panel) -> list[str]:
    return sorted({m for q in panel.queries for m in re.findall(r'FROM\s+"([^"]+)"', q.influxql)})


def why_empty(panel: Panel) -> str:
    """The one line a panel without data shows instead of an empty frame."""
    names = " or ".join(_measurements(panel)) or "its query"
    return f"no data: the selected run and time range have no {names} points (the run recorded none of these)"


def _status(data: evaluate.PanelData, newest_ns: int | None, marks: int | None = None) -> str:
    """The line under each panel; its data attributes are what tests and the benchmark read."""
    text = html.escape(data.error) if data.error else f"{data.points} points" if data.points else html.escape(why_empty(data.panel))
    attrs = f' data-newest="{newest_ns}"' if newest_ns is not None else ""
    attrs += f' data-series="{html.escape("|".join(s.label for s in data.series))}"'
    if marks is not None:  # a panel on the time axis: how many annotations it marks
        attrs += f' data-marks="{marks}"'
    cls = f"{STATUS_CLASS} sb-error" if data.error else STATUS_CLASS
    return (f'<span class="{cls}" data-panel="{html.escape(data.panel.title)}" data-points="{data.points}"{attrs} '
            f'style="font-size:11px;color:{"#c00" if data.error else "#777"}">{text}</span>')


def _newest(data: evaluate.PanelData) -> int | None:
    times = [int(row[0]) for s in data.series for row in s.rows if isinstance(row[0], int) and any(v is not None for v in row[1:])]
    return max(times) if times else None


def _figure(panel: Panel, **kwargs: Any) -> Any:
    options: dict[str, Any] = {"height": panel.height * GRID_ROW_PX, "sizing_mode": "stretch_width",
                               "toolbar_location": None, "tools": ""} | kwargs
    return figure(**options)


def _set(source: ColumnDataSource, data: dict[str, list[Any]]) -> None:
    """New data for a glyph, sent to the browser only when it differs (a finished run stays put)."""
    if dict(source.data) != data:
        source.data = data


def _ms(ns: Any) -> float:
    return float(ns) / 1e6


class _Box:
    """A panel's frame: its title, the drawing, the status line."""

    def __init__(self, panel: Panel, body: Any) -> None:
        self.status = pn.pane.HTML("", sizing_mode="stretch_width", margin=(0, 5))
        title = pn.pane.HTML(f"<b>{html.escape(panel.title)}</b>", margin=(0, 5), sizing_mode="stretch_width")
        self.title, self.body = title, body
        self.layout = pn.Column(title, self.status, width=panel.width * GRID_COLUMN_PX,
                                styles={"border": "1px solid #ddd", "border-radius": "4px"}, margin=4)

    def show_status(self, data: evaluate.PanelData, marks: int | None = None) -> None:
        self.status.object = _status(data, _newest(data), marks)
        # Nothing to draw for this selection: the frame folds to its title and the reason.
        # By its children, not the body's `visible`: a Bokeh figure first drawn hidden stayed
        # blank (and broke the rest of its refresh's message) once shown.
        objects = [self.title, self.body, self.status] if data.points or data.error else [self.title, self.status]
        if len(self.layout.objects) != len(objects):
            self.layout.objects = objects


class _Marks:
    """Annotations as vertical marks on a time axis, with their text on hover."""

    def __init__(self, fig: Any) -> None:
        self.source = ColumnDataSource({"x": [], "color": [], "text": [], "tags": []})
        spans = fig.vspan(x="x", line_color="color", line_width=2, line_dash="dashed", source=self.source)
        fig.add_tools(HoverTool(renderers=[spans], tooltips=[("event", "@text"), ("kind", "@tags")]))

    def show(self, marks: list[evaluate.Mark]) -> None:
        _set(self.source, {"x": [_ms(m.time_ns) for m in marks], "color": [m.color for m in marks],
                             "text": [m.text for m in marks], "tags": [m.tags for m in marks]})


class TimeSeriesView:
    """All series of a panel in one glyph (a multi-line, or one scatter), coloured and named by
    columns of its data: a new series is new data, not a new model, so the browser never
    rebuilds the figure while a run streams (that took seconds under load)."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.points = panel.defaults.get("custom", {}).get("drawStyle") == "points"
        # A fixed range, moved by each refresh: a DataRange1d keeps the span of its first drawing.
        self.fig = _figure(panel, x_axis_type="datetime", x_range=Range1d(start=0.0, end=1.0), y_axis_label=panel.unit or None,
                           y_range=DataRange1d(min_interval=MIN_SPAN.get(panel.unit or "")))
        self.marks = _Marks(self.fig)
        self.colors: dict[str, str] = {}  # a series keeps its colour for the session
        if self.points:
            self.source = ColumnDataSource({"x": [], "y": [], "color": [], "label": []})
            self.fig.scatter("x", "y", source=self.source, size=4, color="color", legend_field="label")
        else:
            self.source = ColumnDataSource({"xs": [], "ys": [], "color": [], "label": []})
            self.fig.multi_line("xs", "ys", source=self.source, line_width=2, color="color", legend_field="label")
        # Inside, see-through, so the lines under it show: beside the plot it took a third of a
        # narrow panel's width and its time axis labels ran into each other.
        self.fig.legend.location = "top_left"
        self.fig.legend.label_text_font_size = "9px"
        self.fig.legend.background_fill_alpha = 0.4
        self.fig.legend.border_line_alpha = 0.0
        self.box = _Box(panel, pn.pane.Bokeh(self.fig, sizing_mode="stretch_width"))
        self.layout = self.box.layout

    def _color(self, label: str) -> str:
        return self.colors.setdefault(label, Category10_10[len(self.colors) % len(Category10_10)])

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window) -> None:
        out: dict[str, list[Any]] = {k: [] for k in self.source.data}
        for s in data.series:
            rows = [row for row in s.rows if row[1] is not None]
            xs, ys = [_ms(r[0]) for r in rows], [r[1] for r in rows]
            if self.points:
                out["x"] += xs
                out["y"] += ys
                out["color"] += [self._color(s.label)] * len(rows)
                out["label"] += [s.label] * len(rows)
            else:
                out["xs"].append(xs)
                out["ys"].append(ys)
                out["color"].append(self._color(s.label))
                out["label"].append(s.label)
        _set(self.source, out)
        self.fig.x_range.start, self.fig.x_range.end = _ms(span.start_ns), _ms(span.end_ns)
        self.marks.show(marks)
        self.box.show_status(data, len(marks))


class StateTimelineView:
    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        mapping = (panel.defaults.get("mappings") or [{"options": {}}])[0]["options"]
        self.states = {float(k): (v["text"], v["color"]) for k, v in mapping.items()}
        self.fig = _figure(panel, x_axis_type="datetime", x_range=Range1d(start=0.0, end=1.0), y_range=FactorRange())
        self.source = ColumnDataSource({"y": [], "left": [], "right": [], "color": [], "state": []})
        bars = self.fig.hbar(y="y", left="left", right="right", height=0.8, color="color", source=self.source)
        self.fig.add_tools(HoverTool(renderers=[bars], tooltips=[("path", "@y"), ("state", "@state")]))
        self.marks = _Marks(self.fig)
        self.box = _Box(panel, pn.pane.Bokeh(self.fig, sizing_mode="stretch_width"))
        self.layout = self.box.layout

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window) -> None:
        out: dict[str, list[Any]] = {"y": [], "left": [], "right": [], "color": [], "state": []}
        for s in data.series:
            rows = [r for r in s.rows if r[1] is not None]
            # One bar per stretch of the same state, not per interval: a few bars instead of
            # thousands to send and draw at every refresh.
            changes = [r for i, r in enumerate(rows) if i == 0 or r[1] != rows[i - 1][1]]
            for (t, v), nxt in zip(changes, [*changes[1:], (span.end_ns, None)], strict=True):
                text, color = self.states.get(float(v), (str(v), "gray"))
                out["y"].append(s.label)
                out["left"].append(_ms(t))
                out["right"].append(_ms(nxt[0]))
                out["color"].append(color)
                out["state"].append(text)
        self.fig.y_range.factors = sorted({s.label for s in data.series})
        _set(self.source, out)
        self.fig.x_range.start, self.fig.x_range.end = _ms(span.start_ns), _ms(span.end_ns)
        self.marks.show(marks)
        self.box.show_status(data, len(marks))


class HistogramView:
    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.buckets = int(panel.options.get("bucketCount", 30))
        self.fig = _figure(panel, x_axis_label=panel.unit or None)
        self.source = ColumnDataSource({"left": [], "right": [], "top": []})
        self.fig.quad(left="left", right="right", top="top", bottom=0, source=self.source, color=Category10_10[0])
        self.box = _Box(panel, pn.pane.Bokeh(self.fig, sizing_mode="stretch_width"))
        self.layout = self.box.layout

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window) -> None:
        values = [float(v) for s in data.series for r in s.rows for v in r[1:] if isinstance(v, int | float)]
        if values:
            counts, edges = np.histogram(values, bins=self.buckets)
            _set(self.source, {"left": edges[:-1].tolist(), "right": edges[1:].tolist(), "top": counts.tolist()})
        else:
            _set(self.source, {"left": [], "right": [], "top": []})
        self.box.show_status(data)


class BarChartView:
    """Grafana's bar chart of a table: one group per `xField` value, one bar per numeric column."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.x_field = str(panel.options.get("xField", "time"))
        self.fig = _figure(panel, x_range=FactorRange(), y_axis_label=panel.unit or None)
        self.source = ColumnDataSource({"x": [], "top": [], "color": []})
        bars = self.fig.vbar(x="x", top="top", width=0.9, color="color", source=self.source)
        self.fig.add_tools(HoverTool(renderers=[bars], tooltips=[("", "@x"), ("value", "@top")]))
        self.fig.xaxis.major_label_orientation = 0.8
        # A group's label (a run, a configuration) is often wider than its bars: slanted, so
        # neighbours do not overwrite each other.
        self.fig.xaxis.group_label_orientation = 0.3
        self.box = _Box(panel, pn.pane.Bokeh(self.fig, sizing_mode="stretch_width"))
        self.layout = self.box.layout

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window) -> None:
        out: dict[str, list[Any]] = {"x": [], "top": [], "color": []}
        for s in data.series:
            # The x field first, then the other tags the query grouped by (a run's associations).
            group = " ".join([s.tags.get(self.x_field, s.label), *(v for k, v in sorted(s.tags.items()) if k != self.x_field)])
            for row in s.rows:
                for i, (column, value) in enumerate(zip(s.columns[1:], row[1:], strict=True)):
                    # A factor once only: Bokeh refuses the whole document over a repeated one.
                    if isinstance(value, int | float) and (group, column) not in out["x"]:
                        out["x"].append((group, column))
                        out["top"].append(value)
                        out["color"].append(Category10_10[i % len(Category10_10)])
        self.fig.x_range.factors = out["x"]
        _set(self.source, out)
        self.box.show_status(data)


class TableView:
    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.table = pn.pane.HTML("", sizing_mode="stretch_width",
                                  styles={"overflow": "auto", "max-height": f"{panel.height * GRID_ROW_PX}px"})
        self.box = _Box(panel, self.table)
        self.layout = self.box.layout

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window) -> None:
        header: list[str] = []
        body = []
        for s in data.series:
            tag_names = sorted(s.tags)
            header = ["time", *tag_names, *s.columns[1:]]
            for row in s.rows:
                when = time.strftime("%H:%M:%S", time.gmtime(int(row[0]) / 1e9)) if isinstance(row[0], int) and row[0] else ""
                cells = [when, *(s.tags[k] for k in tag_names), *("" if v is None else _cell(v) for v in row[1:])]
                body.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        head = "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
        # One line per row: a long text cell (a policy's reason) scrolls sideways instead of
        # making every row several lines tall.
        self.table.object = (f'<style>td, th {{white-space: nowrap; padding: 0 6px; text-align: left}}</style>'
                             f'<table data-panel="{html.escape(self.panel.title)}" style="font-size:11px;border-collapse:collapse">'
                             f'{head}{"".join(body[-200:])}</table>')
        self.box.show_status(data)


def _cell(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


class StatView:
    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.numbers = pn.pane.HTML("", sizing_mode="stretch_width", height=max(60, panel.height * GRID_ROW_PX - 60))
        self.box = _Box(panel, self.numbers)
        self.layout = self.box.layout

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window) -> None:
        cells = []
        for s in data.series:
            for column, value in zip(s.columns[1:], s.rows[0][1:] if s.rows else (), strict=False):
                # A series grouped by a tag is named by its alias (e.g. the run's status); else the column.
                name = s.label if s.tags else column
                cells.append(f'<div style="display:inline-block;margin:0 24px"><div class="sb-stat" data-field="{html.escape(name)}" '
                             f'data-value="{value}" style="font-size:40px;color:#2a7">{value}</div>'
                             f'<div style="color:#777">{html.escape(name)}</div></div>')
        self.numbers.object = "".join(cells) or '<div style="color:#777">no data</div>'
        self.box.show_status(data)


VIEWS: dict[str, Callable[[Panel], PanelView]] = {
    "timeseries": TimeSeriesView, "state-timeline": StateTimelineView, "histogram": HistogramView,
    "barchart": BarChartView, "table": TableView, "stat": StatView,
}


@dataclass(frozen=True)
class Source:
    """Where the view reads: the InfluxDB target (credentials by folder, never in the page)."""

    target: influx.Target
    refresh_s: float


class LiveDashboard:
    """One browser session's dashboard: widgets, panel views, and the refresh that feeds them.

    `report` hears each change of the problem reading InfluxDB ("" once it is gone).
    """

    def __init__(self, dashboard: Dashboard, source: Source, report: Callable[[str], None]) -> None:
        self.dashboard = dashboard
        self.source = source
        self.report = report
        self.last_problem = ""
        self.updating = False
        self.widgets = {v.name: pn.widgets.Select(name=v.label, options=[evaluate.ALL], value=evaluate.ALL, width=220)
                        for v in dashboard.variables}
        for w in self.widgets.values():
            w.param.watch(self._chosen, "value")
        self.alert = pn.pane.HTML("", visible=False, sizing_mode="stretch_width")
        self.clock = pn.pane.HTML("", sizing_mode="stretch_width")
        self.views = [VIEWS[p.kind](p) for row in dashboard.rows for p in row.panels]
        rows: list[Any] = []
        views = iter(self.views)
        for row in dashboard.rows:
            rows.append(pn.pane.HTML(f"<h3 style='margin:4px 0'>{html.escape(row.title)}</h3>"))
            rows.append(pn.FlexBox(*[next(views).layout for _ in row.panels], flex_wrap="wrap"))
        sidebar = pn.Column(pn.pane.HTML(f"<h2>{html.escape(dashboard.title)}</h2>"), *self.widgets.values(), self.clock,
                            width=250)
        self.layout = pn.Row(sidebar, pn.Column(self.alert, *rows, sizing_mode="stretch_width"), sizing_mode="stretch_width")

    def selection(self) -> evaluate.Selection:
        return evaluate.Selection({name: str(w.value) for name, w in self.widgets.items()})

    def _chosen(self, _event: Any) -> None:
        if not self.updating:
            self.refresh()

    def _update_variables(self) -> None:
        # In order: each variable's values depend on the choices before it, as in Grafana.
        for v in self.dashboard.variables:
            w = self.widgets[v.name]
            options = [evaluate.ALL, *evaluate.variable_options(self.source.target, v, self.selection())]
            if options != w.options:
                w.options = options
                if w.value not in options:
                    w.value = evaluate.ALL

    def refresh(self) -> None:
        self.updating = True
        try:
            self._update_variables()
            selection = self.selection()
            span = evaluate.window(self.source.target, selection, time.time_ns())
            marks = [m for a in self.dashboard.annotations for m in evaluate.marks(self.source.target, a, selection, span)]
        except influx.WriteError as e:
            self._problem(explain(self.source.target, str(e)))
            return
        finally:
            self.updating = False
        data = evaluate.dashboard_data(self.source.target, self.dashboard, selection, span)
        for view, d in zip(self.views, data, strict=True):
            view.show(d, marks, span)
        self._problem("")
        self.clock.object = (f'<div class="sb-clock" style="color:#777;font-size:11px">updated '
                             f'{time.strftime("%H:%M:%S", time.gmtime())} UTC, every {self.source.refresh_s:g} s<br>'
                             f'window {time.strftime("%H:%M:%S", time.gmtime(span.start_ns / 1e9))}–'
                             f'{time.strftime("%H:%M:%S", time.gmtime(span.end_ns / 1e9))}</div>')

    def _problem(self, problem: str) -> None:
        """One message in the page and on stderr, said once while it lasts."""
        if problem == self.last_problem:
            return
        self.last_problem = problem
        self.alert.object = (f'<div class="sb-alert" style="background:#fdd;color:#900;padding:8px;border-radius:4px">'
                             f'InfluxDB: {html.escape(problem)}</div>') if problem else ""
        self.alert.visible = bool(problem)
        self.report(problem)

    def start(self) -> Any:
        self.refresh()
        callback = pn.state.add_periodic_callback(self.refresh, period=int(self.source.refresh_s * 1000))
        # A closed browser: no refresh writes to its gone websocket (a WebSocketClosedError in view.log).
        pn.state.on_session_destroyed(lambda _context: callback.stop())
        return self.layout


def explain(target: influx.Target, problem: str) -> str:
    """A failed query said plainly: refused credentials, or no server."""
    if "HTTP 401" in problem:
        return (f"{target.url} refused the credentials (HTTP 401): name the server's folder with --influx-dir "
                f"(or SCTPBENCH_INFLUX_DIR, or SCTPBENCH_INFLUX_USERNAME and _PASSWORD)")
    if "Connection refused" in problem or "timed out" in problem:
        return f"{problem}: no InfluxDB answers there (start one with `sctpbench influx start --dir DIR`)"
    return problem


def check(target: influx.Target) -> str:
    """Why the view cannot read InfluxDB now, or ""."""
    try:
        influx.query(target, "SHOW MEASUREMENTS")
    except influx.WriteError as e:
        return explain(target, str(e))
    return ""


class ProblemLog:
    """Says on stderr what stops the view reading InfluxDB: once while it lasts, for all sessions."""

    def __init__(self) -> None:
        self.said = ""

    def __call__(self, problem: str) -> None:
        if problem and problem != self.said:
            print(f"sctpbench dashboards serve: InfluxDB: {problem}", file=sys.stderr, flush=True)
        self.said = problem


def serve(dashboard: Dashboard, source: Source, port: int, ready: Callable[[str], None] | None = None) -> None:
    """Serve the view on 127.0.0.1:port until interrupted."""
    pn.extension(design=None)
    log = ProblemLog()
    log(check(source.target))  # before any browser comes: the terminal hears of it at once

    def session() -> Any:
        return LiveDashboard(dashboard, source, log).start()

    # The loop pn.serve runs on (tornado's current), with a handler for what a closing browser leaves.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.set_exception_handler(_closed_browser_is_no_error)
    url = f"http://127.0.0.1:{port}/"
    if ready is not None:
        ready(url)
    pn.serve(session, address="127.0.0.1", port=port, show=False, title=dashboard.title,
             websocket_origin=[f"127.0.0.1:{port}", f"localhost:{port}"], threaded=False, print_url=False)


def _closed_browser_is_no_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A browser closed while a refresh was being sent: Bokeh says so in one warning line, and
    tornado's write future, which nobody awaits, would add a traceback to the view's log."""
    if isinstance(context.get("exception"), WebSocketClosedError):
        return
    loop.default_exception_handler(context)
