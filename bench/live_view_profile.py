"""Where the browser's time goes while the live view draws a streaming run: Chromium's own
profiler on the page, and why each plot was laid out again.

    .venv/bin/python bench/live_view_profile.py [--code CHECKOUT] [--messages 450] [--fail 250] [--from 150]

Starts Debian's influxd (a temp folder), `sctpbench dashboards serve` of CHECKOUT (default:
this one) on it at the dashboard's 5 s refresh, and Debian's chromium headless on the view
(selenium + chromium-driver). Then writes a run on the host as the live writer sends one: one
association, 50 messages a second in batches every 0.2 s (tests/support/telemetry.py's
live_points: MTT 10 ms, 1200 ms from message --fail on, path samples every 5th message), no
guest, so the page's share of the CPU is what the machine leaves it, not a guest's.

From message --from on, Chromium's sampling profiler (DevTools' Profiler domain, 1 ms) runs on
the page, and every Bokeh plot's `_invalidate_layout_if_needed` (what each repaint of a plot
calls first) is counted by its cause (layouts of the whole page also before): a forced layout, an axis or title whose size changed
(from -> to, in pixels), or none; and so is every layout of the whole page (the root's
compute_layout). A layout of one plot is a layout of the whole page: Bokeh's compute_layout
goes up to the root and measures every plot again; so is any element's change of size (its
resize observer).

Printed: the profile's wall time, the page's busy time (not idle), the time under a few
functions of interest (inclusive: repaint, compute_layout, has_size_changed, getComputedStyle,
the tick labels' measuring), the top functions by own time, the layout causes, and delivery ->
drawn of each message (the page's own record: a MutationObserver on the MTT distribution's
status line, tests/support/live_view.py's watch_drawn).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sctpbench.telemetry import influx, server  # noqa: E402
from tests.support import live_view  # noqa: E402
from tests.support.telemetry import live_points  # noqa: E402

MTT_POINTS = "MTT distribution"
BATCH = 10  # messages per write: 0.2 s of a 50/s run
# Functions whose inclusive time is reported (bokeh.js's names; getComputedStyle is the browser's).
OF_INTEREST = ("repaint", "_actual_paint", "_invalidate_layout_if_needed", "compute_layout", "has_size_changed",
               "_tick_label_extents", "getComputedStyle", "measureText", "update_layout", "after_resize")

# Counts each cause of a plot's layout at a repaint (installed once on PlotView's prototype).
WHY_LAYOUT = r"""
const found = [];
const walk = (v) => { if (!v || found.includes(v)) return; found.push(v);
  for (const c of (v.child_views || [])) walk(c);
  if (v.renderer_views) for (const c of v.renderer_views.values()) walk(c); };
for (const v of Object.values(Bokeh.index)) walk(v);
const plots = found.filter((v) => typeof v._invalidate_layout_if_needed === 'function');
window.__why = {};
const proto = Object.getPrototypeOf(plots[0]);
const named = (plot) => (plot.model.renderers.map((r) => r.data_source && r.data_source.name).find((n) => n) || plot.model.id)
  .replace('sb-source:', '');
const count = (key) => { window.__why[key] = (window.__why[key] || 0) + 1; };
if (!proto.__counted) {
  // The cause is looked for only when Bokeh lays the plot out (measuring the axes again here at
  // every repaint would add to what is measured).
  const invalidate = proto._invalidate_layout_if_needed;
  const layout = proto.compute_layout;
  proto._invalidate_layout_if_needed = function () {
    this.__forced = this._needs_layout;
    this.__laidOut = false;
    this.__inRepaint = true;
    try { return invalidate.call(this); } finally {
      this.__inRepaint = false;
      if (!this.__laidOut) count(named(this) + ' | none');
    }
  };
  proto.compute_layout = function () {
    if (this.__inRepaint && !this.__laidOut) {
      this.__laidOut = true;
      let why = this.__forced ? 'forced' : 'unknown';
      if (!this.__forced) for (const panel of this.model.side_panels) {
        const view = this.renderer_views.get(panel);
        const l = view && view.layout;
        if (l && l._content_size) { const c = l._content_size(); const hz = l.panel && l.panel.is_horizontal;
          const now = hz ? c.height : c.width, was = hz ? l.bbox.height : l.bbox.width;
          if (now != was) { why = panel.type + ' ' + (hz ? 'height' : 'width') + ' ' + was.toFixed(1) + '->' + now.toFixed(1); break; } }
      }
      count(named(this) + ' | ' + why);
    }
    return layout.call(this);
  };
  proto.__counted = true;
}
// Every layout of the whole page (a plot's, a resized element's): the root's compute_layout.
window.__pageLayouts = 0;
for (const root of Object.values(Bokeh.index)) {
  if (root.__counted || typeof root.compute_layout !== "function") continue;
  const layout = root.compute_layout.bind(root);
  root.compute_layout = () => { window.__pageLayouts += 1; return layout(); };
  root.__counted = true;
}
return plots.length;
"""


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarize(profile: dict[str, Any]) -> dict[str, Any]:
    """Busy time, inclusive time of the functions of interest, top own times (ms)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    deltas = profile["timeDeltas"]
    for sample, dt in zip(profile["samples"], [*deltas[1:], 0], strict=True):
        frame = nodes[sample]["callFrame"]
        own[f'{frame["functionName"] or "(anonymous)"} {frame["url"].rsplit("/", 1)[-1]}:{frame["lineNumber"]}'] += dt
        names, at = set(), sample
        while at is not None:
            names.add(nodes[at]["callFrame"]["functionName"])
            at = parent.get(at)
        for name in names & set(OF_INTEREST):
            inclusive[name] += dt
    # Busy: the samples of the page's main thread at work (not idle); the profile's wall time
    # also holds stretches without samples.
    busy = sum(v for k, v in own.items() if not k.startswith("(idle)"))
    return {"wall_ms": round((profile["endTime"] - profile["startTime"]) / 1000), "busy_ms": round(busy / 1000),
            "inclusive_ms": {k: round(inclusive[k] / 1000) for k in OF_INTEREST},
            "top_own_ms": [(k, round(v / 1000)) for k, v in own.most_common(15)]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout whose view runs")
    ap.add_argument("--messages", type=int, default=450)
    ap.add_argument("--fail", type=int, default=250, help="the message from which the MTT is 1200 ms")
    ap.add_argument("--from", dest="start", type=int, default=150, help="the message from which the profile runs")
    ap.add_argument("--out", type=Path, help="a folder for the raw profile (profile.cpuprofile, Chromium's format) and "
                                             "a screenshot at the end (end.png)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="live-view-profile-"))
    s = server.start(work / "influx", server.free_port())
    try:
        result = measure(args, work, s)
    finally:
        server.stop(work / "influx")
    print(json.dumps(result, indent=1))


def measure(args: argparse.Namespace, work: Path, s: server.LocalServer) -> dict[str, Any]:
    target = s.target()
    influx.ensure_database(target)
    port = server.free_port()
    view = subprocess.Popen([sys.executable, "-m", "sctpbench.cli", "dashboards", "serve", "--influx-dir", str(s.directory),
                             "--port", str(port), "--refresh", "5s"], cwd=args.code, stdout=subprocess.PIPE,
                            stderr=(work / "view.log").open("w"), text=True)
    url = view.stdout.readline().split()[-1] if view.stdout else ""
    try:
        with live_view.browser(work / "profile") as driver:
            driver.get(url)
            live_view.wait_for(lambda: live_view.statuses(driver), 60, "the page")
            live_view.watch_drawn(driver, MTT_POINTS)
            plots = driver.execute_script(WHY_LAYOUT)
            writer = influx.writer(target)
            cpu0, wall0, browser0 = _cpu_seconds(view.pid), time.monotonic(), _browser_cpu_seconds(work / "profile")
            t0 = time.time_ns()
            first_layouts = 0
            written: dict[int, int] = {}  # first message of a batch -> when InfluxDB had it (wall ns)
            for first in range(0, args.messages, BATCH):
                if first == args.start:
                    # What the run's first messages cost (the panels opening) apart from the rest.
                    first_layouts = driver.execute_script("const n = window.__pageLayouts; window.__why = {}; return n")
                    driver.execute_cdp_cmd("Profiler.enable", {})
                    driver.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 1000})
                    driver.execute_cdp_cmd("Profiler.start", {})
                due = t0 + (first + BATCH) * 20_000_000
                while time.time_ns() < due:
                    time.sleep(0.005)
                writer.write(live_points("r1", t0, range(first, first + BATCH), fail_seq=args.fail, associations=("main",)))
                written[first] = time.time_ns()
            profile = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
            view_cpu = {"cpu_s": round(_cpu_seconds(view.pid) - cpu0, 2), "over_s": round(time.monotonic() - wall0, 1),
                        "browser_cpu_s": round(_browser_cpu_seconds(work / "profile") - browser0, 2)}
            why = driver.execute_script("return window.__why || {}")
            page_layouts = driver.execute_script("return window.__pageLayouts") - first_layouts
            # The last messages drawn: the page's record waits for them (at most a minute).
            last = t0 + (args.messages - 1) * 20_000_000
            live_view.wait_for(lambda: any(n >= last for _, n in live_view.drawn_times(driver)), 60, "the last message drawn")
            drawn = live_view.drawn_times(driver)
            if args.out:
                args.out.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(args.out / "end.png"))
    finally:
        view.terminate()
        view.wait()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "profile.cpuprofile").write_text(json.dumps(profile))
    lags = []
    for seq in range(args.messages):
        t = t0 + seq * 20_000_000
        ms = next((ms for ms, newest in drawn if newest >= t), None)
        if ms is not None:
            lags.append(ms - written[seq - seq % BATCH] / 1e6)
    return {"code": str(args.code), "commit": _commit(args.code), "plots": plots, "view": view_cpu,
            "profile": summarize(profile),
            "page_layouts_before_from": first_layouts, "page_layouts_from": page_layouts,
            "plot_repaints_by_cause": dict(sorted(why.items(), key=lambda kv: -kv[1])),
            "drawings": len(drawn), "written_drawn_ms_p50": round(quantile(lags, 0.5)) if lags else None,
            "written_drawn_ms_p99": round(quantile(lags, 0.99)) if lags else None, "load_1min": os.getloadavg()[0]}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _browser_cpu_seconds(profile: Path) -> float:
    """CPU time of the Chromium of this profile and every process under it (the page's renderer,
    GPU, zygotes): on a shared machine the profiler's samples count the time the page waited
    for a CPU too."""
    parent, roots = {}, set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            parent[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if str(profile) in (proc / "cmdline").read_text():
                roots.add(int(proc.name))
        except OSError:
            continue  # gone meanwhile

    def under(pid: int) -> bool:
        while pid > 1:
            if pid in roots:
                return True
            pid = parent.get(pid, 0)
        return False

    total = 0.0
    for pid in parent:
        if under(pid):
            try:
                total += _cpu_seconds(pid)
            except OSError:
                continue
    return total


def _commit(code: Path) -> str:
    return subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
