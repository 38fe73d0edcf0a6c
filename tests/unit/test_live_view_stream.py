"""The live view's panels fed read by read, as a run streams, without a browser or InfluxDB.

What a person relies on: the points drawn are those of the run (a read of new points leaves
the glyph as a whole read of the same window would draw it), they reach the browser as what
changed (streamed and patched, not the glyph's data again), the status line counts exactly
the points in the glyph, and the legend is beside the data, not on it.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from bokeh.document import Document
from bokeh.document.events import ColumnDataChangedEvent, ColumnsPatchedEvent, ColumnsStreamedEvent, DocumentChangedEvent
from bokeh.models import CustomJSTickFormatter, DataRange1d

from sctpbench.dashboards import catalog, evaluate, live
from sctpbench.dashboards.model import Panel
from sctpbench.telemetry import influx

PANELS = {p.title: p for row in catalog.RUNS.rows for p in row.panels}
MTT = PANELS["MTT per message (max per interval)"]  # points
SRTT = PANELS["SRTT per path"]  # lines
STATES = PANELS["Path state (client's view)"]
STEP = 10_000_000  # the window's interval: 10 ms
SPAN = evaluate.Window(0, 10_000_000_000)


def _data(panel: Panel, series: dict[str, list[tuple[int, float]]]) -> evaluate.PanelData:
    return evaluate.PanelData(panel, tuple(evaluate.Series(label, ("time", "v"), tuple(rows)) for label, rows in series.items()))


def _run(upto: int, last: float = 15.0) -> dict[str, list[tuple[int, float]]]:
    """Two paths' buckets up to `upto`; the last bucket of path a still filling (its value `last`)."""
    a = [(i * STEP, 15.0) for i in range(upto)] + [(upto * STEP, last)]
    b = [(i * STEP, 1200.0) for i in range(250, upto)]
    return {"main a": a, "main b": b} if upto > 400 else {"main a": a}


def _view(panel: Panel) -> tuple[Any, list[DocumentChangedEvent]]:
    view = live.VIEWS[panel.kind](panel)
    doc = Document()
    doc.add_root(view.fig)
    events: list[DocumentChangedEvent] = []
    doc.on_change(events.append)
    return view, events


def _drawn(view: Any) -> int:
    data = view.source.data
    if "n" in data:  # state bars, each standing for its intervals
        return sum(data["n"])
    return len(data["y"]) if "y" in data else sum(len(ys) for ys in data["ys"])


def _rows(view: Any) -> list[tuple[Any, ...]]:
    """What the glyph draws, point by point, in any order (a scatter's streamed rows interleave
    series; a line comes in pieces, each joined to the point before its own `n`)."""
    data = view.source.data
    if "xs" in data:
        return sorted((label, color, x, y) for xs, ys, color, label, n in
                      zip(data["xs"], data["ys"], data["color"], data["label"], data["n"], strict=True)
                      for x, y in list(zip(xs, ys, strict=True))[len(xs) - n:])
    return sorted(zip(*(data[c] for c in sorted(data)), strict=True))


def _lines(view: Any) -> dict[str, list[tuple[float, Any]]]:
    """Each line as drawn: its pieces end to end, each piece's first point the previous one's last."""
    data, lines = view.source.data, {}
    for xs, ys, label in zip(data["xs"], data["ys"], data["label"], strict=True):
        line = lines.setdefault(label, [])
        pts = list(zip(xs, ys, strict=True))
        assert not line or pts[0] == line[-1], (label, pts[0], line[-1])
        line += pts[1:] if line else pts
    return lines


def _status_points(view: Any) -> int:
    return int(view.box.status.html.split('data-points="')[1].split('"')[0])


def test_reads_of_new_points_stream_and_patch_what_a_whole_read_draws() -> None:
    for panel in (MTT, SRTT):
        view, events = _view(panel)
        view.show(_data(panel, _run(300)), [], SPAN, SPAN)
        assert _drawn(view) == _status_points(view) == 301
        for upto, last in ((301, 17.0), (500, 16.0), (500, 18.0), (800, 15.0)):
            events.clear()
            since = view.since(SPAN, SPAN.end_ns)
            assert since.start_ns > SPAN.start_ns and since.start_ns % STEP == 0 and since.interval_ms == 10
            rows = {label: [r for r in pts if r[0] >= since.start_ns] for label, pts in _run(upto, last).items()}
            view.show(_data(panel, rows), [], SPAN, since)
            whole, _ = _view(panel)
            whole.show(_data(panel, _run(upto, last)), [], SPAN, SPAN)
            assert _rows(view) == _rows(whole), (panel.title, upto)
            if panel is SRTT:  # the lines join up as one drawn whole
                assert _lines(view) == _lines(whole), upto
            assert _drawn(view) == _status_points(view) == whole.drawn.points()
            sent = {type(e) for e in events if getattr(e, "model", None) is view.source}
            assert sent and sent <= {ColumnsStreamedEvent, ColumnsPatchedEvent}, (panel.title, upto, sent)


def test_a_new_run_replaces_the_points_drawn() -> None:
    view, events = _view(MTT)
    view.show(_data(MTT, _run(500)), [], SPAN, SPAN)
    events.clear()
    later = evaluate.Window(20_000_000_000, 30_000_000_000)
    view.show(_data(MTT, {"main a": [(20_000_000_000 + i * STEP, 10.0) for i in range(5)]}), [], later, later)
    assert view.source.data["y"] == [10.0] * 5 and _status_points(view) == 5
    assert any(isinstance(e, ColumnDataChangedEvent) for e in events)


def test_state_bars_add_up_to_the_points_counted() -> None:
    view, _ = _view(STATES)
    rows = {"main 10.0.1.2": [(i * STEP, 3.0 if i < 50 else 0.0) for i in range(100)]}
    view.show(_data(STATES, rows), [], SPAN, SPAN)
    assert view.source.data["state"] == ["ACTIVE", "INACTIVE"] and view.source.data["n"] == [50, 50]
    assert _drawn(view) == _status_points(view) == 100


def test_legends_are_beside_the_data_not_on_it() -> None:
    for panel in (MTT, SRTT):
        view, _ = _view(panel)
        view.show(_data(panel, _run(500)), [], SPAN, SPAN)
        assert not view.fig.legend  # no Bokeh legend inside (or beside) the plot area
        assert view.box.body.objects[0] is view.legend.pane
        assert [s.split("</span> ")[1].split("<")[0] for s in view.legend.pane.html.split('class="sb-legend-item"')[1:]] == \
            ["main a", "main b"]


def test_the_mtt_distribution_spans_a_readable_range_that_stays_put_between_reads() -> None:
    """Before a failure every MTT is the configured 10 ms give or take a fraction of a µs: the
    axis spans at least 1 ms (not 10.00065-10.0009 ms, the jitter drawn as two bands), its bins
    round, and further messages within it leave the bins where they were."""
    panel = PANELS["MTT distribution"]
    view, _ = _view(panel)
    jitter = [10.00065, 10.0009, 10.0007, 10.00088]
    view.show(_data(panel, {"main a": [(i * STEP, jitter[i % 2]) for i in range(100)]}), [], SPAN, SPAN)
    left, right = view.source.data["left"], view.source.data["right"]
    assert left[0] <= 10.00065 and right[-1] - left[0] >= 1.0 and left[0] == 10.0, (left[0], right[-1])
    assert sum(view.source.data["top"]) == _status_points(view) == 100
    view.show(_data(panel, {"main a": [(i * STEP, jitter[i % 4]) for i in range(300)]}), [], SPAN, SPAN)
    assert (view.source.data["left"], view.source.data["right"]) == (left, right)
    assert sum(view.source.data["top"]) == 300
    # The failure's long transfers widen it, from a round value, every message still counted.
    view.show(_data(panel, {"main a": [(i * STEP, 1106.999 if i == 300 else 10.0007) for i in range(450)]}), [], SPAN, SPAN)
    assert view.source.data["left"][0] == 0.0 and view.source.data["right"][-1] >= 1106.999
    assert len(view.source.data["top"]) <= panel.options["bucketCount"] and sum(view.source.data["top"]) == 450


def test_histogram_edges_hold_every_value_in_round_bins() -> None:
    for values in ([0.0], [3.0, 3.0], [200.0, 201.0], [0.1, 0.3], [10.0, 1106.999], [-2.0, 5.0]):
        edges = live.histogram_edges(values, "ms", 50)
        assert edges[0] <= min(values) and edges[-1] >= max(values), values
        assert edges[-1] - edges[0] >= max(1.0, 0.05 * max(abs(v) for v in values)) - 1e-9, values
        width = edges[1] - edges[0]
        mantissa = width / 10 ** math.floor(math.log10(width))
        assert any(abs(mantissa - m) < 1e-6 for m in (1, 2, 5)), (values, width)


def test_the_variables_are_labelled_select_boxes_without_a_deprecated_call() -> None:
    """Panel deprecates a widget's `name` as its label (PendingDeprecationWarning, to go in 2.0):
    the dashboard's variables use `label`, and building the page warns of nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dash = live.LiveDashboard(catalog.RUNS, live.Source(influx.Target("http://127.0.0.1:9"), refresh_s=5), lambda _: None)
    assert {name: w.label for name, w in dash.widgets.items()} == {v.name: v.label for v in catalog.RUNS.variables}


def test_value_axes_end_at_a_round_value_that_moves_only_when_a_value_passes_it() -> None:
    """In the browser, a plot whose value axis changed its range at every point (Bokeh's
    auto-ranging) got new tick labels, and an axis whose labels changed width laid out the
    whole page again: the view sets the range itself, from 0 to a round end above the largest
    value and 10 %, moved when a value comes closer, and back down only for another run; the labels keep
    one width. The plots have a fixed size."""
    view, events = _view(MTT)
    view.show(_data(MTT, _run(300)), [], SPAN, SPAN)  # MTT 15 ms
    assert (view.fig.y_range.start, view.fig.y_range.end) == (0.0, 20.0)
    assert view.fig.sizing_mode is None and view.fig.width and view.fig.height and view.fig.title is None
    assert isinstance(view.fig.yaxis[0].formatter, CustomJSTickFormatter) and view.fig.yaxis[0].major_label_text_font == "monospace"
    for upto, last in ((301, 17.0), (320, 18.0)):  # within the 10 % of room below its end
        events.clear()
        since = view.since(SPAN, SPAN.end_ns)
        view.show(_data(MTT, {k: [r for r in pts if r[0] >= since.start_ns] for k, pts in _run(upto, last).items()}), [], SPAN, since)
        assert not [e for e in events if getattr(e, "model", None) is view.fig.y_range], (upto, events)
    since = view.since(SPAN, SPAN.end_ns)
    view.show(_data(MTT, {k: [r for r in pts if r[0] >= since.start_ns] for k, pts in _run(500).items()}), [], SPAN, since)
    assert view.fig.y_range.end == 1500.0  # the failure's 1200 ms
    later = evaluate.Window(20_000_000_000, 30_000_000_000)
    view.show(_data(MTT, {"main a": [(20_000_000_000 + i * STEP, 10.0) for i in range(5)]}), [], later, later)
    assert view.fig.y_range.end == 12.0  # another run (10 ms): drawn afresh
    for panel in PANELS.values():  # no plot of the page ranges itself in the browser
        fig = getattr(live.VIEWS[panel.kind](panel), "fig", None)
        assert fig is None or not any(isinstance(r, DataRange1d) for r in (fig.x_range, fig.y_range)) or not live.VIEWS[panel.kind](panel).live, \
            panel.title


def test_a_value_axis_ends_at_the_next_round_value_above_its_largest() -> None:
    assert [live.value_end(v, 1.0) for v in (15.0, 0.3, 1200.0, 19.0, 9.0)] == [20.0, 1.0, 1500.0, 25.0, 10.0]
    assert live.value_end(4380.0, 0.0) == 5000.0 and live.value_end(0.0, 0.0) > 0


def test_the_state_timeline_keeps_its_axes_size_from_before_its_first_row() -> None:
    """In the browser, an axis across a categorical range without factors has no size: the
    timeline's first path made its time axis appear, which laid out the whole page again at a
    run's first drawing. It always has a row, and its rows' names have one width."""
    view, _ = _view(STATES)
    assert list(view.fig.y_range.factors) == [live.NO_ROW]
    view.show(_data(STATES, {"main 10.0.1.2": [(i * STEP, 3.0) for i in range(10)]}), [], SPAN, SPAN)
    assert list(view.fig.y_range.factors) == ["main 10.0.1.2"]
    later = evaluate.Window(20_000_000_000, 30_000_000_000)
    view.show(_data(STATES, {}), [], later, later)
    assert list(view.fig.y_range.factors) == [live.NO_ROW]
    assert isinstance(view.fig.yaxis[0].formatter, CustomJSTickFormatter) and view.fig.yaxis[0].major_label_text_font == "monospace"
