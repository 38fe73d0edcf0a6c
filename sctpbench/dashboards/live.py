"""The live view: the committed dashboards (catalog.py) drawn in the browser while a run streams.

`sctpbench dashboards serve` serves it on 127.0.0.1 with Panel (Bokeh server, BSD). Each
browser session gets its own LiveDashboard: the variables as select widgets in a sidebar, one
view per panel of the dashboard (timeseries, state timeline, histogram, bar chart, table,
stat), the annotations as vertical marks on the time axes. Every 0.2 s one request asks for
the run's new points and each plot gets them streamed; every refresh (the dashboard's
interval) reads every panel whole. The InfluxQL runs here, in the server, through
telemetry/influx.py with the credentials `run` uses; the browser receives only the numbers
drawn, over Bokeh's websocket, and only what changed.

Nothing is loaded from outside the machine: Bokeh's and Panel's scripts come from this
server (Panel's "server" resources), and no template (the fast ones fetch web fonts) is used.
"""

from __future__ import annotations

import asyncio
import bisect
import html
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np
import panel as pn
import param
from bokeh.models import (
    ColumnDataSource,
    CustomJSTickFormatter,
    DatetimeTicker,
    DatetimeTickFormatter,
    FactorRange,
    HoverTool,
    Range1d,
)
from bokeh.palettes import Category10_10
from bokeh.plotting import figure
from panel.io.state import set_curdoc
from panel.reactive import ReactiveHTML
from tornado.websocket import WebSocketClosedError

from sctpbench.dashboards import evaluate
from sctpbench.dashboards.model import Dashboard, Panel
from sctpbench.telemetry import influx, points

GRID_COLUMN_PX = 50  # Grafana's 24-column grid, 1200 pixels beside the sidebar
GRID_ROW_PX = 34
# A plot is narrower than its panel's frame by the frame's border and the plot pane's margins.
FRAME_PX = 24
# The least a time series' value axis spans, by unit: an MTT that jitters by a fraction of a µs
# around 15.0007 ms otherwise fills the panel as two bands 0.0002 ms apart.
MIN_SPAN = {"ms": 1.0}
# A histogram's value axis spans at least this share of its largest value too (or MIN_SPAN's):
# before a failure the MTT distribution drew 10.00065-10.0009 ms, sub-µs jitter as bands.
MIN_SHARE = 0.05
# Room above a value axis's largest value (the axis then ends at the next of ENDS × 10^k).
VALUE_ROOM = 0.1
# A value axis's tick labels: this many characters, padded, in a fixed-width font, so the axis
# keeps its width whatever its range. In the browser a plot whose axis changed width is laid out
# again, and Bokeh lays a plot out from the page's root: every plot of the page measured anew
# (tick labels, CSS values read), which took most of a starved page's time (see VALUE_LABELS).
LABEL_CHARS = 6
VALUE_LABELS = f"""
const a = Math.abs(tick);
const [d, s] = a >= 1e9 ? [1e9, 'G'] : a >= 1e6 ? [1e6, 'M'] : a >= 1e4 ? [1e3, 'k'] : [1, ''];
return (String(+(tick / d).toPrecision(4)) + s).padStart({LABEL_CHARS});
"""
# The live plots' data on the plot's upper canvas layer, alone there: new points repaint that
# layer only, not the axes and grids below (each axis's repaint measures its tick labels and
# reads CSS values: most of a repaint's time in Chromium's profiler). The ranges (which move
# rarely) repaint both. The data stay inside the frame: the ranges hold them (no clip there).
DATA_LEVEL = "overlay"
# The state timeline's rows (a path each: association, path and run, "main secondary
# cb9a20a2f7f7") are named in this many characters, padded, in a fixed-width font, the end of a
# longer name left out, and the timeline always has a row: an axis without factors has no size,
# so the first path's row (and each longer name) laid out the whole page again (1.4 s of the
# page at a run's first drawing, load 10).
ROW_CHARS = 28
ROW_LABELS = f"""
const s = String(tick);
return (s.length > {ROW_CHARS} ? s.slice(0, {ROW_CHARS - 1}) + '\\u2026' : s).padStart({ROW_CHARS});
"""
NO_ROW = ""
STATUS_CLASS = "sb-status"
SOURCE_PREFIX = "sb-source:"


def refresh_seconds(refresh: str) -> float:
    """Grafana's refresh interval ("5s", "1m", "500ms") in seconds."""
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for suffix in ("ms", "s", "m", "h"):
        if refresh.endswith(suffix):
            return float(refresh[: -len(suffix)]) * units[suffix]
    raise ValueError(f"refresh: {refresh!r} is not a duration like 5s")


# How often the view asks InfluxDB for new points (one request for every panel on the time
# axis) while none come. While they come, the next read follows the browser's word that it has
# drawn the last (Drawn): a 0.2 s poll alone kept a message 0.1 s on average, and a read that
# had to wait for that word waited for the next poll after it (the page drew about every 0.5 s).
TICK_S = 0.2
# How often the view looks whether a read is due; while a run streams, each look between reads
# asks InfluxDB for the run's newest message only (one statement, a tenth of a read's CPU), so a
# batch the writer sends (every 0.2 s) is read within this, not within a tick.
LOOK_S = 0.05
# A run streams while its newest message changed within this.
STREAMING_S = 1.0
# How far behind a panel's newest point each read starts again: points InfluxDB gets late (a
# batch the writer sent after newer ones) are drawn at the next read; later ones at the refresh.
LOOKBACK_NS = 1_000_000_000
# Room on the time axis past a run's newest point: a share of its window, and at least
# AHEAD_MS. Each move of the axis repaints every plot whole (axes, grid and data: most of a
# repaint's time); at 15 % alone a run's first seconds (a window of 2-3 s) moved it at almost
# every message. A paced failover run's 9 s now move it twice.
HEADROOM = 0.25
AHEAD_MS = 4000.0
# How far past the window's end (the newest message and a second) a read looks: a query that
# fills gaps with the previous value (the path states) returns a row per interval up to its
# end, so an open end cost thousands of rows per read. A run further ahead than this is caught
# up with at this pace per read.
AHEAD_NS = 2_000_000_000


class PanelView(Protocol):
    layout: Any
    panel: Panel
    live: bool  # read at every tick, not only at the refresh

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window: ...

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window,
             since: evaluate.Window) -> None: ...


def _measurements(panel: Panel) -> list[str]:
    return sorted({m for q in panel.queries for m in re.findall(r'FROM\s+"([^"]+)"', q.influxql)})


# What a run's writer sends once the run has ended (telemetry/points.py): a run still going has none yet.
AT_RUN_END = frozenset({"sctp_run", points.HANDOVER, points.CUM_TSN, points.TCP_THROUGHPUT})


def why_empty(panel: Panel) -> str:
    """The one line a panel without data shows instead of an empty frame. While a run goes,
    what is written at its end is not yet there: said so, not that the run recorded none
    (as the campaign row and the handover panel said in the middle of a failover run)."""
    measurements = _measurements(panel)
    names = " or ".join(measurements) or "its query"
    if not any("$timeFilter" in q.influxql for q in panel.queries):
        return f"no data: the selected campaigns have no such {names} points yet (written when a run ends)"
    if measurements and set(measurements) <= AT_RUN_END:
        return f"no data: the selected run has no {names} points (written when a run ends, by runs that have them)"
    return f"no data: the selected run and time range have no {names} points (the run recorded none of these)"


@dataclass(frozen=True)
class Shown:
    """What a panel's status line says: the points it draws (exactly those in its glyph's data),
    its newest point's time, its series, its annotations, or the error its query met."""

    points: int
    newest_ns: int | None = None
    series: tuple[str, ...] = ()
    marks: int | None = None
    error: str = ""


def _status(panel: Panel, shown: Shown) -> str:
    """The line under each panel; its data attributes are what tests and the benchmark read."""
    text = (html.escape(shown.error) if shown.error else f"{shown.points} points" if shown.points
            else html.escape(why_empty(panel)))
    attrs = f' data-newest="{shown.newest_ns}"' if shown.newest_ns is not None else ""
    attrs += f' data-series="{html.escape("|".join(shown.series))}"'
    if shown.marks is not None:  # a panel on the time axis: how many annotations it marks
        attrs += f' data-marks="{shown.marks}"'
    cls = f"{STATUS_CLASS} sb-error" if shown.error else STATUS_CLASS
    return (f'<span class="{cls}" data-panel="{html.escape(panel.title)}" data-points="{shown.points}"{attrs} '
            f'style="font-size:11px;color:{"#c00" if shown.error else "#777"}">{text}</span>')


def _newest(data: evaluate.PanelData) -> int | None:
    times = [int(row[0]) for s in data.series for row in s.rows if isinstance(row[0], int) and any(v is not None for v in row[1:])]
    return max(times) if times else None


def _figure(panel: Panel, **kwargs: Any) -> Any:
    """A plot of a fixed size (the panel's grid cells): one sized by its container is laid out
    again with it."""
    # No title in the plot (the panel's frame has it): an empty one is still measured and drawn
    # at every repaint.
    options: dict[str, Any] = {"width": panel.width * GRID_COLUMN_PX - FRAME_PX, "height": panel.height * GRID_ROW_PX,
                               "title": None, "toolbar_location": None, "tools": ""} | kwargs
    fig = figure(**options)
    if options.get("x_axis_type") == "datetime":
        # A time label per 150 pixels or so: a third-width panel's labels ran into each other.
        fig.xaxis.ticker = DatetimeTicker(desired_num_ticks=max(3, panel.width // 3))
        # Times on one line: Bokeh's default adds the date under some labels, and the axis grew
        # and shrank by that line as the window moved (each time a layout of the whole page).
        fig.xaxis.formatter = DatetimeTickFormatter(milliseconds="%H:%M:%S.%3N", seconds="%H:%M:%S", minsec="%H:%M:%S",
                                                    minutes="%H:%M", hourmin="%H:%M", hours="%H:%M")
    return fig


# The mantissas a value axis's end is rounded up to (× 10^k): fine enough that a plot uses most
# of its height, round enough that the ticks are.
ENDS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def value_end(largest: float, least: float) -> float:
    """Where a value axis from 0 ends: the next round value (ENDS × 10^k) above its largest
    value and some room, at least `least`."""
    at_least = max(largest * (1 + VALUE_ROOM), least, 1e-9)
    power = 10.0 ** math.floor(math.log10(at_least))
    return next(m * power for m in ENDS if m * power >= at_least * (1 - 1e-9))


class _ValueAxis:
    """A plot's value axis: from 0 (every panel's quantity is a size, a time or a count: a level
    is read against zero, and an MTT that jitters by a fraction of a µs stays a flat line) to a
    round end that moves when a value comes within VALUE_ROOM of it, a few times in a run (20 ms to 1,500 ms at a
    failure), and back down only when the points are drawn afresh (another run or selection).
    Its tick labels keep their width (VALUE_LABELS). Bokeh's auto-ranging (DataRange1d) moved
    the end with every new point in the browser, and with it the labels' width."""

    def __init__(self, fig: Any, unit: str) -> None:
        self.range = fig.y_range
        self.least = MIN_SPAN.get(unit, 0.0)
        self.fitted = False  # the range still the figure's first, 0-1
        fig.yaxis.formatter = CustomJSTickFormatter(code=VALUE_LABELS)
        fig.yaxis.major_label_text_font = "monospace"

    def fit(self, values: list[float], afresh: bool) -> None:
        if not values:
            return
        largest = max(values)
        if afresh or not self.fitted or largest * (1 + VALUE_ROOM) > self.range.end:
            self.fitted = True
            end = value_end(largest, self.least)
            if end != self.range.end:
                self.range.end = end


def _numbers(drawn: _Drawn) -> list[float]:
    return [float(v) for pts in drawn.series.values() for _, v in pts if isinstance(v, int | float)]


def _source(panel: Panel, columns: list[str]) -> ColumnDataSource:
    """A glyph's data, named after its panel: the browser test reads what is drawn by this name."""
    return ColumnDataSource({c: [] for c in columns}, name=f"{SOURCE_PREFIX}{panel.title}")


def _set(source: ColumnDataSource, data: dict[str, list[Any]]) -> None:
    """New data for a glyph, sent to the browser only when it differs (a finished run stays put)."""
    if dict(source.data) != data:
        source.data = data


def _ms(ns: Any) -> float:
    return float(ns) / 1e6


Point = tuple[int, Any]


@dataclass
class _Change:
    """How a read changed a panel's points: per series, values changed in place (by position)
    and points after its last one; `rebuild` when anything else moved (a new run, a regrouping)."""

    rebuild: bool = False
    patched: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    appended: dict[str, list[Point]] = field(default_factory=dict)


class _Drawn:
    """A panel's points as the browser holds them: series label → (time ns, value) in time order.

    A read covers a window from its start on: it replaces the points from that start, so a
    bucket still filling (a count, a maximum) is corrected in place, and new ones follow."""

    def __init__(self) -> None:
        self.series: dict[str, list[Point]] = {}

    def points(self) -> int:
        return sum(len(p) for p in self.series.values())

    def newest(self) -> int | None:
        return max((p[-1][0] for p in self.series.values() if p), default=None)

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window:
        newest = self.newest()
        start = span.start_ns if newest is None else max(span.start_ns, newest - LOOKBACK_NS)
        return span.since(start, end_ns)

    def merge(self, data: evaluate.PanelData, since: evaluate.Window, span: evaluate.Window) -> _Change:
        """The points of a read of `since`, within `span` (the window: another run's is elsewhere)."""
        incoming: dict[str, list[Point]] = {}
        for s in data.series:
            incoming.setdefault(s.label, []).extend(
                (int(r[0]), r[1]) for r in s.rows
                if r[1] is not None and isinstance(r[0], int) and span.start_ns <= r[0] <= span.end_ns)
        change = _Change()
        for label in [*self.series, *(k for k in incoming if k not in self.series)]:
            old = self.series.get(label, [])
            first = bisect.bisect_left(old, span.start_ns, key=lambda p: p[0])
            cut = max(first, bisect.bisect_left(old, since.start_ns, key=lambda p: p[0]))
            before, after = old[cut:], incoming.get(label, [])
            if first or len(after) < len(before) or any(a[0] != b[0] for a, b in zip(before, after, strict=False)):
                change.rebuild = True
            else:
                if patched := [(cut + i, b[1]) for i, (a, b) in enumerate(zip(before, after, strict=False)) if a[1] != b[1]]:
                    change.patched[label] = patched
                if after[len(before):]:
                    change.appended[label] = after[len(before):]
            if old[first:cut] or after:
                self.series[label] = old[first:cut] + after
            else:
                self.series.pop(label, None)
        return change


class Text(ReactiveHTML):
    """HTML the view changes while a run goes (a status line, a legend, the clock, a table):
    set in the browser by a line of script, with no layout of the page.

    Not Panel's HTML pane, nor Bokeh's Div: the browser lays out the whole page again at every
    change of a Div's text (Bokeh's MarkupView.rerender → compute_layout from the root, every
    figure's tick labels measured again: 0.1-0.4 s here), and a read changes a dozen of them
    (each panel's count, the clock), so the page fell ever further behind and drew a run at its
    end (Chromium's profiler: 8.4 of 14 s in that layout). Here a change is an `innerHTML`; the
    page's CSS places what grows, and Bokeh's resize observer lays the page out only when an
    element's size changes. Nor an HTML pane on the server: once the browser has connected,
    Panel's stylesheet cache is emptied, so the first update of each pane in a session brought
    new stylesheet models and Bokeh recomputed the document's model graph for each (a run's
    first drawing: 9.8 s of the server in one read, 9.2 s of it in `Document.models.recompute`)."""

    # A list of one string: Panel strips a string parameter of ReactiveHTML of its attributes
    # (nh3), and the tests and the benchmark read the status lines' data attributes. What
    # comes from InfluxDB is escaped where it is put into the HTML.
    content = param.List(default=[""], item_type=str)
    _template = '<div id="text" style="width: 100%"></div>'
    _scripts: ClassVar[dict[str, str]] = {"render": "text.innerHTML = data.content.join('')",
                                          "content": "text.innerHTML = data.content.join('')"}

    @property
    def html(self) -> str:
        return "".join(self.content)


class Drawn(ReactiveHTML):
    """The browser's word that it has drawn what it was sent: each message of new points ends
    with `sent` counted up, and the browser sets `seen` to it once it has painted them (the
    frame after the message). The view sends nothing new while the browser has not: on a
    starved CPU, messages five a second that the browser drew slower than they came queued up
    in it, and it drew a run at its end (a page reading waited 44 s beside load 12); now each
    message carries all that came meanwhile, and the browser is never more than one behind."""

    sent = param.Integer(default=0)
    seen = param.Integer(default=0)
    _template = '<div id="drawn"></div>'
    _scripts: ClassVar[dict[str, str]] = {
        "render": "data.seen = data.sent",
        "sent": "const n = data.sent; requestAnimationFrame(() => setTimeout(() => { data.seen = n }))"}

    def busy(self) -> bool:
        return self.seen < self.sent


# BokehJS 3.9 writes each renderer's position into a <style> element at every repaint of its plot
# (RendererView.update_position, InlineStyleSheet._update: `el.textContent = css`): the same text
# for an axis or a grid of a plot of fixed size, and for a glyph the box of its data, which grows
# with each new point. Each new text of a <style> element makes the browser work out the page's
# styles again, and the next plot's read of its CSS variables (getComputedStyle for `--bk-*`
# values, at every repaint: bokeh/bokeh#15286) forced that at once: a style recalculation per
# plot per message (Chromium's trace of a host-written run, 7 s of it on this 2-CPU Debian 12
# machine at load 8: 95 forced recalculations, 561 ms; 2026-11-30). A glyph's element is empty
# (what it draws is on the canvas; its position only places that element), so it is placed
# once; any other text is written only when it differs.
SAME_STYLES = """
const dom = Bokeh.require("core/dom");
const sheet = dom.InlineStyleSheet.prototype;
if (!sheet.__sbSame) {
  const update = sheet._update;
  sheet._update = function (css) { if (this.el.textContent !== css) update.call(this, css); };
  sheet.__sbSame = true;
}
const glyph = Bokeh.require("models/renderers/glyph_renderer").GlyphRendererView.prototype;
if (!glyph.__sbOnce) {
  const place = glyph.update_position;
  glyph.update_position = function () {
    if (!this.__sbPlaced) { place.call(this); const box = this.bbox; this.__sbPlaced = box != null && box.is_valid; }
  };
  glyph.__sbOnce = true;
}
mark.dataset.sameStyles = String(sheet.__sbSame && glyph.__sbOnce);
"""


class SameStyles(ReactiveHTML):
    """Loads SAME_STYLES in the page once; `data-same-styles="true"` on its element says it took
    (the browser test checks it: a BokehJS without that module fails it rather than going slow)."""

    _template = '<div id="mark" class="sb-same-styles"></div>'
    _scripts: ClassVar[dict[str, str]] = {"render": SAME_STYLES}


def _say(text: Text, html_text: str) -> None:
    """New text for the browser, sent only when it differs."""
    if text.html != html_text:
        text.content = [html_text]


class _Box:
    """A panel's frame: its title, the drawing, the status line."""

    FOLDED = {"height": "0px", "overflow": "hidden"}
    # Said, not left out: the browser keeps an inline style that a new `styles` no longer names.
    OPEN = {"height": "auto", "overflow": "visible"}

    def __init__(self, panel: Panel, body: Any, legend: Any = None) -> None:
        self.panel = panel
        self.status = Text(sizing_mode="stretch_width", margin=(0, 5))
        title = pn.pane.HTML(f"<b>{html.escape(panel.title)}</b>", margin=(0, 5), sizing_mode="stretch_width")
        # Nothing to draw for this selection: the frame folds to its title and the reason, the
        # drawing kept in the page at its size, clipped to nothing. Taken out of the page, each
        # figure was built again when a run brought it data (the page stood still 20 s and more
        # at load 9); hidden (`visible`), a figure first drawn hidden stayed blank once shown.
        self.body = pn.Column(*([body] if legend is None else [legend, body]), sizing_mode="stretch_width",
                              styles=dict(self.FOLDED), margin=0)
        self.layout = pn.Column(title, self.body, self.status, width=panel.width * GRID_COLUMN_PX,
                                styles={"border": "1px solid #ddd", "border-radius": "4px"}, margin=4)

    def show_status(self, shown: Shown) -> None:
        _say(self.status, _status(self.panel, shown))
        styles = dict(self.OPEN) if shown.points or shown.error else dict(self.FOLDED)
        if self.body.styles != styles:
            self.body.styles = styles


class _Marks:
    """Annotations as vertical marks on a time axis, with their text on hover."""

    def __init__(self, fig: Any) -> None:
        self.source = ColumnDataSource({"x": [], "color": [], "text": [], "tags": []})
        spans = fig.vspan(x="x", line_color="color", line_width=2, line_dash="dashed", source=self.source)
        fig.add_tools(HoverTool(renderers=[spans], tooltips=[("event", "@text"), ("kind", "@tags")]))

    def show(self, marks: list[evaluate.Mark]) -> None:
        _set(self.source, {"x": [_ms(m.time_ns) for m in marks], "color": [m.color for m in marks],
                             "text": [m.text for m in marks], "tags": [m.tags for m in marks]})


def _follow(fig: Any, span: evaluate.Window) -> None:
    """The time axis on the window, with room ahead for a live run's next points: it moves
    when the run reaches its end (every few seconds), not at every read, each move a new
    drawing of every plot in the browser."""
    start, end = _ms(span.start_ns), _ms(span.end_ns)
    ahead = max(HEADROOM * (end - start), AHEAD_MS)
    if fig.x_range.start != start or not end <= fig.x_range.end <= end + ahead:
        fig.x_range.start, fig.x_range.end = start, end + ahead


class _Legend:
    """The series' names and colours in a line above the plot, outside the data: inside, they
    covered the cwnd, SRTT and RTO lines; as Bokeh legends beside the plot, every change of the
    plot's data laid out the figure again (the view's own lag p50 13.6 s at load 9-12)."""

    def __init__(self) -> None:
        self.pane = Text(sizing_mode="stretch_width", margin=(0, 5))
        self.colors: dict[str, str] = {}  # a series keeps its colour for the session

    def color(self, label: str) -> str:
        return self.colors.setdefault(label, Category10_10[len(self.colors) % len(Category10_10)])

    def show(self, labels: list[str]) -> None:
        items = "".join(f'<span class="sb-legend-item" style="white-space:nowrap;margin-right:10px">'
                        f'<span style="color:{self.color(label)}">&#9632;</span> {html.escape(label)}</span> '
                        for label in labels)
        text = f'<div class="sb-legend" style="font-size:10px;line-height:1.3">{items}</div>'
        _say(self.pane, text)


class TimeSeriesView:
    """All series of a panel in one glyph (a multi-line, or one scatter), coloured and named by
    columns of its data: a new series is new data, not a new model, so the browser never
    rebuilds the figure while a run streams (that took seconds under load). New points are
    streamed to the glyph, a bucket still filling is patched in place: the browser gets what
    changed, not the panel again."""

    live = True

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.points = panel.defaults.get("custom", {}).get("drawStyle") == "points"
        # Fixed ranges, moved by the reads (_follow, _ValueAxis): no auto-ranging in the browser.
        self.fig = _figure(panel, x_axis_type="datetime", x_range=Range1d(start=0.0, end=1.0), y_axis_label=panel.unit or None,
                           y_range=Range1d(start=0.0, end=1.0))
        self.values = _ValueAxis(self.fig, panel.unit or "")
        self.marks = _Marks(self.fig)
        self.legend = _Legend()
        self.drawn = _Drawn()
        self.index: dict[str, list[int]] = {}  # points: each series' rows in the scatter's data
        # Lines: each series' pieces, one row of the multi-line's data each: (row, first, end)
        # holds the series' points [first, end), drawn from the point before `first` on.
        self.pieces: dict[str, list[tuple[int, int, int]]] = {}
        if self.points:
            self.source = _source(panel, ["x", "y", "color", "label"])
            glyph = self.fig.scatter("x", "y", source=self.source, size=4, color="color", level=DATA_LEVEL)
        else:
            # `n`: the points a piece stands for (its first point is the one before them, so the
            # pieces join up): they add up to the points the status line counts.
            self.source = _source(panel, ["xs", "ys", "color", "label", "n"])
            glyph = self.fig.multi_line("xs", "ys", source=self.source, line_width=2, color="color", level=DATA_LEVEL)
        self.fig.add_tools(HoverTool(renderers=[glyph], tooltips=[("", "@label")]))
        self.box = _Box(panel, pn.pane.Bokeh(self.fig), self.legend.pane)
        self.layout = self.box.layout

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window:
        return self.drawn.since(span, end_ns)

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window,
             since: evaluate.Window) -> None:
        change = self.drawn.merge(data, since, span)
        if change.rebuild:
            self._rebuild()
        elif self.points:
            self._send_points(change)
        else:
            self._send_lines(change)
        self.values.fit(_numbers(self.drawn), change.rebuild)
        self.legend.show(list(self.drawn.series))
        if self.drawn.series:  # a folded panel's plot is left alone: each change repaints it
            _follow(self.fig, span)
            self.marks.show(marks)
        self.box.show_status(Shown(self.drawn.points(), self.drawn.newest(), tuple(self.drawn.series), len(marks), data.error))

    def _rebuild(self) -> None:
        if self.points:
            out: dict[str, list[Any]] = {"x": [], "y": [], "color": [], "label": []}
            self.index = {}
            for label, pts in self.drawn.series.items():
                self.index[label] = list(range(len(out["x"]), len(out["x"]) + len(pts)))
                out["x"] += [_ms(t) for t, _ in pts]
                out["y"] += [v for _, v in pts]
                out["color"] += [self.legend.color(label)] * len(pts)
                out["label"] += [label] * len(pts)
        else:
            self.pieces = {}
            out = {"xs": [], "ys": [], "color": [], "label": [], "n": []}
            for label, pts in self.drawn.series.items():
                self._piece(out, label, len(out["xs"]), 0, len(pts))
        _set(self.source, out)

    def _piece(self, out: dict[str, list[Any]], label: str, row: int, first: int, end: int) -> None:
        """A new row of the lines' data: the series' points [first, end), joined to the one before."""
        pts = self.drawn.series[label][max(first - 1, 0):end]
        self.pieces.setdefault(label, []).append((row, first, end))
        out["xs"].append([_ms(t) for t, _ in pts])
        out["ys"].append([v for _, v in pts])
        out["color"].append(self.legend.color(label))
        out["label"].append(label)
        out["n"].append(end - first)

    def _send_points(self, change: _Change) -> None:
        patches = [(self.index[label][at], v) for label, moved in change.patched.items() for at, v in moved]
        if patches:
            self.source.patch({"y": patches})
        new: dict[str, Any] = {"x": [], "y": [], "color": [], "label": []}
        rows = sum(len(i) for i in self.index.values())
        for label, pts in change.appended.items():
            self.index.setdefault(label, []).extend(range(rows + len(new["x"]), rows + len(new["x"]) + len(pts)))
            new["x"] += [_ms(t) for t, _ in pts]
            new["y"] += [v for _, v in pts]
            new["color"] += [self.legend.color(label)] * len(pts)
            new["label"] += [label] * len(pts)
        if new["x"]:
            self.source.stream(new)

    def _send_lines(self, change: _Change) -> None:
        """New points as a new piece of each line, streamed; a piece holding a changed value
        (a bucket still filling) sent again, patched. A line sent whole at each read grew with
        the run: a read of a paced failover run sent hundreds of kB to the browser."""
        xs: list[tuple[int, list[float]]] = []
        ys: list[tuple[int, list[Any]]] = []
        for label, moved in change.patched.items():
            at = {i for i, _ in moved}
            for row, first, end in self.pieces[label]:
                # A piece draws its points and the one before them.
                if any(first - 1 <= i < end for i in at):
                    pts = self.drawn.series[label][max(first - 1, 0):end]
                    xs.append((row, [_ms(t) for t, _ in pts]))
                    ys.append((row, [v for _, v in pts]))
        if xs:
            self.source.patch({"xs": xs, "ys": ys})
        new: dict[str, Any] = {"xs": [], "ys": [], "color": [], "label": [], "n": []}
        rows = sum(len(p) for p in self.pieces.values())
        for label, pts in change.appended.items():
            end = len(self.drawn.series[label])
            self._piece(new, label, rows + len(new["xs"]), end - len(pts), end)
        if new["xs"]:
            self.source.stream(new)


class StateTimelineView:
    live = True

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        mapping = (panel.defaults.get("mappings") or [{"options": {}}])[0]["options"]
        self.states = {float(k): (v["text"], v["color"]) for k, v in mapping.items()}
        self.fig = _figure(panel, x_axis_type="datetime", x_range=Range1d(start=0.0, end=1.0), y_range=FactorRange(factors=[NO_ROW]))
        self.fig.yaxis.formatter = CustomJSTickFormatter(code=ROW_LABELS)
        self.fig.yaxis.major_label_text_font = "monospace"
        # `n`: the intervals a bar stands for, so the bars add up to the points the status line counts.
        self.source = _source(panel, ["y", "left", "right", "color", "state", "n"])
        bars = self.fig.hbar(y="y", left="left", right="right", height=0.8, color="color", source=self.source, level=DATA_LEVEL)
        self.fig.add_tools(HoverTool(renderers=[bars], tooltips=[("path", "@y"), ("state", "@state")]))
        self.marks = _Marks(self.fig)
        self.drawn = _Drawn()
        self.box = _Box(panel, pn.pane.Bokeh(self.fig))
        self.layout = self.box.layout

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window:
        return self.drawn.since(span, end_ns)

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window,
             since: evaluate.Window) -> None:
        self.drawn.merge(data, since, span)
        out: dict[str, list[Any]] = {"y": [], "left": [], "right": [], "color": [], "state": [], "n": []}
        for label, rows in self.drawn.series.items():
            # One bar per stretch of the same state, not per interval: a few bars instead of
            # thousands to send and draw.
            starts = [i for i, r in enumerate(rows) if i == 0 or r[1] != rows[i - 1][1]]
            for i, j in zip(starts, [*starts[1:], len(rows)], strict=True):
                text, color = self.states.get(float(rows[i][1]), (str(rows[i][1]), "gray"))
                out["y"].append(label)
                out["left"].append(_ms(rows[i][0]))
                out["right"].append(_ms(rows[j][0] if j < len(rows) else span.end_ns))
                out["color"].append(color)
                out["state"].append(text)
                out["n"].append(j - i)
        factors = sorted(self.drawn.series) or [NO_ROW]
        if list(self.fig.y_range.factors) != factors:
            self.fig.y_range.factors = factors
        _set(self.source, out)
        if self.drawn.series:
            _follow(self.fig, span)
            self.marks.show(marks)
        self.box.show_status(Shown(self.drawn.points(), self.drawn.newest(), tuple(self.drawn.series), len(marks), data.error))


def _round_step(least: float) -> float:
    """The smallest of 1, 2 and 5 times a power of ten at or above `least` (> 0)."""
    power = 10.0 ** math.floor(math.log10(least))
    return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= least * (1 - 1e-9))


def histogram_edges(values: list[float], unit: str, buckets: int) -> np.ndarray:
    """A histogram's bin edges: round bins (1, 2, 5 × 10^k), at most about `buckets` of them,
    from a multiple of their width at or below the least value, over at least MIN_SPAN (by
    unit) or MIN_SHARE of the largest value. The range moves only when a value falls outside
    it or the data's spread outgrows it, not with each new value (np.histogram's own range is
    the values' least to greatest: a new extreme moved every bin, and a sub-µs spread filled
    the axis)."""
    lo, hi = min(values), max(values)
    least = max(MIN_SPAN.get(unit, 0.0), MIN_SHARE * max(abs(lo), abs(hi))) or 1.0
    width = _round_step(max(hi - lo, least) / buckets)
    start = math.floor(lo / width) * width
    bins = max(math.ceil((hi - start) / width), math.ceil(least / width - 1e-9), 1)
    edges = start + width * np.arange(bins + 1)
    # Floating point: the edges hold every value (np.histogram leaves out what is outside them).
    edges[0], edges[-1] = min(edges[0], lo), max(edges[-1], hi)
    return edges


class HistogramView:
    live = True

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.buckets = int(panel.options.get("bucketCount", 30))
        self.fig = _figure(panel, x_axis_label=panel.unit or None, x_range=Range1d(start=0.0, end=1.0),
                           y_range=Range1d(start=0.0, end=1.0))
        self.counts = _ValueAxis(self.fig, "")
        self.source = _source(panel, ["left", "right", "top"])
        self.fig.quad(left="left", right="right", top="top", bottom=0, source=self.source, color=Category10_10[0], level=DATA_LEVEL)
        self.drawn = _Drawn()
        self.box = _Box(panel, pn.pane.Bokeh(self.fig))
        self.layout = self.box.layout

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window:
        return self.drawn.since(span, end_ns)

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window,
             since: evaluate.Window) -> None:
        change = self.drawn.merge(data, since, span)
        values = _numbers(self.drawn)
        if values:
            counts, edges = np.histogram(values, bins=histogram_edges(values, self.panel.unit or "", self.buckets))
            _set(self.source, {"left": edges[:-1].tolist(), "right": edges[1:].tolist(), "top": counts.tolist()})
            # The bins' span: histogram_edges moves it only when a value falls outside it.
            if (self.fig.x_range.start, self.fig.x_range.end) != (edges[0], edges[-1]):
                self.fig.x_range.start, self.fig.x_range.end = float(edges[0]), float(edges[-1])
            self.counts.fit([float(c) for c in counts], change.rebuild)
        else:
            _set(self.source, {"left": [], "right": [], "top": []})
        self.box.show_status(Shown(len(values), self.drawn.newest(), tuple(self.drawn.series), error=data.error))


def _whole(span: evaluate.Window, end_ns: int) -> evaluate.Window:
    """A panel read whole at every tick (a few rows: counts, events): the window, open-ended."""
    return evaluate.Window(span.start_ns, end_ns, span.interval_ms)


def _shown(data: evaluate.PanelData) -> Shown:
    return Shown(data.points, _newest(data), tuple(s.label for s in data.series), error=data.error)


class BarChartView:
    """Grafana's bar chart of a table: one group per `xField` value, one bar per numeric column."""

    live = False

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
        self.box = _Box(panel, pn.pane.Bokeh(self.fig))
        self.layout = self.box.layout

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window:
        return _whole(span, end_ns)

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window,
             since: evaluate.Window) -> None:
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
        if list(self.fig.x_range.factors) != out["x"]:
            self.fig.x_range.factors = out["x"]
        _set(self.source, out)
        self.box.show_status(_shown(data))


class TableView:
    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        # A table of the run (its events, its policy's decisions) is read at every tick: a few rows.
        self.live = "$timeFilter" in " ".join(q.influxql for q in panel.queries)
        self.table = Text(sizing_mode="stretch_width",
                          styles={"overflow": "auto", "max-height": f"{panel.height * GRID_ROW_PX}px"})
        self.box = _Box(panel, self.table)
        self.layout = self.box.layout

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window:
        return _whole(span, end_ns)

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window,
             since: evaluate.Window) -> None:
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
        text = (f'<style>td, th {{white-space: nowrap; padding: 0 6px; text-align: left}}</style>'
                f'<table data-panel="{html.escape(self.panel.title)}" style="font-size:11px;border-collapse:collapse">'
                f'{head}{"".join(body[-200:])}</table>')
        _say(self.table, text)
        self.box.show_status(_shown(data))


def _cell(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


class StatView:
    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.live = "$timeFilter" in " ".join(q.influxql for q in panel.queries)
        self.numbers = Text(sizing_mode="stretch_width", height=max(60, panel.height * GRID_ROW_PX - 60))
        self.box = _Box(panel, self.numbers)
        self.layout = self.box.layout

    def since(self, span: evaluate.Window, end_ns: int) -> evaluate.Window:
        return _whole(span, end_ns)

    def show(self, data: evaluate.PanelData, marks: list[evaluate.Mark], span: evaluate.Window,
             since: evaluate.Window) -> None:
        cells = []
        for s in data.series:
            for column, value in zip(s.columns[1:], s.rows[0][1:] if s.rows else (), strict=False):
                # A series grouped by a tag is named by its alias (e.g. the run's status); else the column.
                name = s.label if s.tags else column
                cells.append(f'<div style="display:inline-block;margin:0 24px"><div class="sb-stat" data-field="{html.escape(name)}" '
                             f'data-value="{html.escape(str(value))}" style="font-size:40px;color:#2a7">{html.escape(str(value))}</div>'
                             f'<div style="color:#777">{html.escape(name)}</div></div>')
        text = "".join(cells) or '<div style="color:#777">no data</div>'
        _say(self.numbers, text)
        self.box.show_status(_shown(data))


VIEWS: dict[str, Callable[[Panel], PanelView]] = {
    "timeseries": TimeSeriesView, "state-timeline": StateTimelineView, "histogram": HistogramView,
    "barchart": BarChartView, "table": TableView, "stat": StatView,
}


@dataclass(frozen=True)
class Source:
    """Where the view reads: the InfluxDB target (credentials by folder, never in the page);
    every panel again each refresh_s, the new points of the run's panels each tick_s while none
    come, and as soon as the browser has drawn the last ones while they come."""

    target: influx.Target
    refresh_s: float
    tick_s: float = TICK_S


class LiveDashboard:
    """One browser session's dashboard: widgets, panel views, and the reads that feed them.

    Each tick asks InfluxDB, in one request, for the newest run's last message and every live
    panel's points from a little before its newest one; the panels send the browser what changed
    (ColumnDataSource.stream and .patch). Each refresh reads every panel and the variables whole,
    as Grafana does; that too sends only differences. `report` hears each change of the problem
    reading InfluxDB ("" once it is gone).
    """

    def __init__(self, dashboard: Dashboard, source: Source, report: Callable[[str], None]) -> None:
        self.dashboard = dashboard
        self.source = source
        self.report = report
        self.last_problem = ""
        self.updating = False
        self.span: evaluate.Window | None = None
        self.run: tuple[str, str] | None = None  # (campaign, run) the window shows
        self.next_refresh = 0.0
        self.resume = 0.0  # no read before then (see tick)
        self.due = 0.0  # the next read of new points (a look, peek, may bring it forward)
        self.newest_ns: int | None = None  # the newest message the last read found
        self.came = -STREAMING_S  # when it came (monotonic)
        self.doc: Any = None  # the session's document, to read again when the browser answers
        self.widgets = {v.name: pn.widgets.Select(label=v.label, options=[evaluate.ALL], value=evaluate.ALL, width=220)
                        for v in dashboard.variables}
        for w in self.widgets.values():
            w.param.watch(self._chosen, "value")
        # Margins as Panel's HTML pane had them: the clock ran into the sidebar's left edge.
        self.alert = Text(visible=False, sizing_mode="stretch_width", margin=(5, 10))
        self.drawn = Drawn(width=0, height=0, margin=0)
        self.same_styles = SameStyles(width=0, height=0, margin=0)
        self.drawn.param.watch(self._answered, "seen")
        self.asked = 0.0  # when the browser was last sent something to draw (monotonic)
        self.clock = Text(sizing_mode="stretch_width", margin=(5, 10))
        self.views = [VIEWS[p.kind](p) for row in dashboard.rows for p in row.panels]
        rows: list[Any] = []
        views = iter(self.views)
        for row in dashboard.rows:
            rows.append(pn.pane.HTML(f"<h3 style='margin:4px 0'>{html.escape(row.title)}</h3>"))
            rows.append(pn.FlexBox(*[next(views).layout for _ in row.panels], flex_wrap="wrap"))
        sidebar = pn.Column(pn.pane.HTML(f"<h2>{html.escape(dashboard.title)}</h2>"), *self.widgets.values(), self.clock, self.drawn,
                            self.same_styles, width=250)
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

    def tick(self) -> None:
        began = time.monotonic()
        if began < self.resume:
            return
        # The browser still drawing the last message: what comes meanwhile goes into the next.
        # Not for longer than a refresh (a reply lost, a browser slower than that).
        if self.drawn.busy() and began - self.asked < self.source.refresh_s:
            return
        if began >= self.next_refresh:
            read = self.refresh
        elif self.span is not None and began >= self.due:  # None: no answer from InfluxDB yet; the refresh tries again
            read = self.follow
        elif self.run is not None and began - self.came < STREAMING_S:
            read = self.peek
        else:
            return
        cpu = time.process_time()
        read()
        # At most half the view's CPU in reads: on a starved CPU a read takes longer than the
        # tick. The pause is the CPU the read used, not its wall time: a read that waited for
        # InfluxDB (short of CPU itself) kept nothing else from running, and pausing as long
        # again doubled every such stall (a read of 1.6 s, 0.18 s of it CPU, left the page
        # 3.2 s without new points).
        self.resume = time.monotonic() + (time.process_time() - cpu)

    def _answered(self, _event: Any) -> None:
        """The browser has drawn the last message: the next look goes now, not at the next tick."""
        if self.doc is not None and not self.drawn.busy():
            doc = self.doc
            doc.add_next_tick_callback(lambda: _in_doc(doc, self.tick))

    def refresh(self) -> None:
        """Every panel and variable read whole."""
        self.next_refresh = time.monotonic() + self.source.refresh_s
        self.due = time.monotonic() + self.source.tick_s
        self.updating = True
        try:
            self._update_variables()
            selection = self.selection()
            span, run = evaluate.newest_window(self.source.target, selection, time.time_ns())
            marks = [m for a in self.dashboard.annotations for m in evaluate.marks(self.source.target, a, selection, span)]
        except influx.WriteError as e:
            self._problem(explain(self.source.target, str(e)))
            return
        finally:
            self.updating = False
        data = evaluate.dashboard_data(self.source.target, self.dashboard, selection, span)
        self.span, self.run = span, run
        # One message to the browser: a status line's count and its plot change together.
        with pn.io.hold():
            for view, d in zip(self.views, data, strict=True):
                view.show(d, marks, span, span)
            self._problem("")
            self._clock(span)
            self._sent()

    def peek(self) -> None:
        """Between reads while a run streams: its newest message only; a new one is read at once."""
        try:
            newest = evaluate.newest_run(self.source.target, self.selection())
        except influx.WriteError:
            return  # the next read says what went wrong
        if newest is not None and newest[0] != self.newest_ns:
            self.follow()

    def follow(self) -> None:
        """The live panels' new points, in one request; the whole refresh when the run changed."""
        assert self.span is not None
        self.due = time.monotonic() + self.source.tick_s
        if self.run is None:
            # Nothing written yet: one statement asks whether a run has begun, so its first
            # points are drawn as they come, not at the next refresh (up to 5 s later).
            try:
                begun = evaluate.newest_run(self.source.target, self.selection()) is not None
            except influx.WriteError:
                begun = False  # the refresh, at its time, says what went wrong
            if begun:
                self.refresh()
            return
        live = [v for v in self.views if v.live]
        end = self.span.end_ns + AHEAD_NS
        asks = [(v.panel, v.since(self.span, end)) for v in live]
        try:
            tail = evaluate.tail(self.source.target, asks, self.dashboard.annotations, self.selection(),
                                 evaluate.Window(self.span.start_ns, end, self.span.interval_ms))
        except influx.WriteError:
            self.refresh()  # which says what went wrong, panel by panel
            return
        if tail.newest is None or tail.newest[1:] != self.run:
            self.refresh()  # another run (or none): a new window
            return
        span = evaluate.Window(self.span.start_ns, max(self.span.end_ns, tail.newest[0] + evaluate.MARGIN_NS))
        if span.interval_ms != self.span.interval_ms:
            self.refresh()  # a wider window's buckets: every point regrouped
            return
        self.span = span
        if tail.newest[0] != self.newest_ns:  # points come: look for more at once when these are drawn
            self.newest_ns, self.came = tail.newest[0], time.monotonic()
        with pn.io.hold():
            for view, d, (_, since) in zip(live, tail.data, asks, strict=True):
                view.show(d, tail.marks, span, since)
            self._clock(span)
            self._sent()

    def _sent(self) -> None:
        """The last change of a message: the browser answers it once it has drawn the message."""
        self.drawn.sent += 1
        self.asked = time.monotonic()

    def _clock(self, span: evaluate.Window) -> None:
        text = (f'<div class="sb-clock" style="color:#777;font-size:11px">updated '
                f'{time.strftime("%H:%M:%S", time.gmtime())} UTC: new points as they come (every {self.source.tick_s:g} s '
                f'while none do), '
                f'every panel every {self.source.refresh_s:g} s<br>'
                f'window {time.strftime("%H:%M:%S", time.gmtime(span.start_ns / 1e9))}–'
                f'{time.strftime("%H:%M:%S", time.gmtime(span.end_ns / 1e9))}</div>')
        _say(self.clock, text)

    def _problem(self, problem: str) -> None:
        """One message in the page and on stderr, said once while it lasts."""
        if problem == self.last_problem:
            return
        self.last_problem = problem
        _say(self.alert, (f'<div class="sb-alert" style="background:#fdd;color:#900;padding:8px;border-radius:4px">'
                          f'InfluxDB: {html.escape(problem)}</div>') if problem else "")
        self.alert.visible = bool(problem)
        self.report(problem)

    def start(self) -> Any:
        self.refresh()  # the first drawing goes with the page
        self.doc = pn.state.curdoc
        callbacks: list[Any] = []

        def follow() -> None:
            callbacks.append(pn.state.add_periodic_callback(self.tick, period=int(LOOK_S * 1000)))

        # From the moment the page has drawn itself: Panel drops the changes made between the
        # document's sending and the browser's "ready" (the first points of a run, lost until
        # the next whole refresh, and a status line ahead of its plot meanwhile).
        pn.state.onload(follow)
        # A closed browser: no refresh writes to its gone websocket (a WebSocketClosedError in view.log).
        def stop(_context: Any) -> None:
            for c in callbacks:
                c.stop()

        pn.state.on_session_destroyed(stop)
        return self.layout


def _in_doc(doc: Any, callback: Callable[[], None]) -> None:
    """A callback of the session's document run as Panel runs its own (pn.io.hold finds the document)."""
    with set_curdoc(doc):
        callback()


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
