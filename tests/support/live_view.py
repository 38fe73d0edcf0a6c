"""Reading the live view (`sctpbench dashboards serve`) as a person sees it: Debian's chromium
driven by selenium through Debian's chromium-driver, headless, in a fresh profile.

Bokeh and Panel draw each model inside a shadow root, so the page is read with a script that
walks every shadow root: the status line under each panel (its title, how many points it
drew, or the error it shows), the stat panel's numbers, and the variables' select boxes.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Schemes that reach a network; chrome://, data: and blob: stay inside the browser.
NETWORK = {"http", "https", "ws", "wss", "ftp"}
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--window-size=1500,2400")

# Every element matching a selector, in the document and in every shadow root under it.
_DEEP = """
const found = [];
const walk = (root) => {
  root.querySelectorAll(arguments[0]).forEach((e) => found.push(e));
  root.querySelectorAll('*').forEach((e) => { if (e.shadowRoot) walk(e.shadowRoot); });
};
walk(document);
"""
# How tall a panel's drawing is on the page: the element before its status line in the
# panel's frame (0 when the panel is folded to its title and reason).
_HEIGHT = "(e) => { const body = e.getRootNode().host?.previousElementSibling; return body ? body.getBoundingClientRect().height : null; }"
STATUS = _DEEP + """
const height = """ + _HEIGHT + """;
return found.map((e) => ({panel: e.dataset.panel, points: Number(e.dataset.points), height: height(e),
                          error: e.classList.contains('sb-error') ? e.textContent : '', newest: e.dataset.newest || null,
                          series: (e.dataset.series || '').split('|').filter((s) => s),
                          marks: e.dataset.marks === undefined ? null : Number(e.dataset.marks), text: e.textContent}));
"""
STATS = _DEEP + "return found.map((e) => [e.dataset.field, Number(e.dataset.value)]);"
CHOOSE = _DEEP + """
const [label, value] = [arguments[1], arguments[2]];
for (const select of found) {
  const box = select.closest('.bk-input-group') || select.parentElement;
  if (!box || !box.textContent.trim().startsWith(label)) continue;
  if (![...select.options].some((o) => o.value === value)) return 'no option ' + value;
  select.value = value;
  select.dispatchEvent(new Event('input', {bubbles: true}));
  select.dispatchEvent(new Event('change', {bubbles: true}));
  return 'ok';
}
return 'no select ' + label;
"""


# The page at one instant (a script runs between two websocket messages, never inside one):
# each status line as the browser test reads it, and the points each panel's glyph holds in
# the browser's Bokeh document (its data source named "sb-source:" + the panel's title).
SHOWN = _DEEP + """
const statuses = found.map((e) => ({panel: e.dataset.panel, points: Number(e.dataset.points),
                                    newest: e.dataset.newest || null}));
const drawn = {};
for (const doc of (window.Bokeh ? window.Bokeh.documents : [])) {
  const models = doc._all_models instanceof Map ? [...doc._all_models.values()] : [...doc.all_models];
  for (const m of models) {
    if (!m.name || !m.name.startsWith('sb-source:')) continue;
    const data = m.data instanceof Map ? Object.fromEntries(m.data) : m.data;
    const sum = (xs) => [...xs].reduce((a, b) => a + b, 0);
    drawn[m.name.slice('sb-source:'.length)] = 'n' in data ? sum(data.n) : 'ys' in data ? sum([...data.ys].map((ys) => ys.length))
      : 'top' in data ? sum(data.top) : data.y.length;
  }
}
return {statuses, drawn};
"""


def shown(driver: Any) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """The status lines (title → points, newest) and the points each panel's glyph holds, read at one instant."""
    page = driver.execute_script(SHOWN, ".sb-status")
    return {s["panel"]: s for s in page["statuses"]}, {k: int(v) for k, v in page["drawn"].items()}


# When the page drew each change of a panel's newest point, recorded by the page itself: a
# MutationObserver on the shadow root holding the panel's status line, and the time taken the
# frame after the change (requestAnimationFrame, then a task: the plot painted), as the view's
# own acknowledgement does. Readings from outside run every 100-250 ms and take tens of ms
# each, so they add that much to any lag they measure. Installed again if the status line's
# root has left the page.
WATCH_DRAWN = """
if (window.__sbRoot && window.__sbRoot.host && window.__sbRoot.host.isConnected) return 'watching';
""" + _DEEP + """
const panel = arguments[1];
const status = found.find((e) => e.dataset.panel === panel);
if (!status) return 'no status line of ' + panel;
const root = status.getRootNode();
window.__sbDrawn = window.__sbDrawn || [];
let last = null;
const seen = () => {
  const now = root.querySelector('.sb-status');
  const newest = now ? now.dataset.newest || null : null;
  if (newest === null || newest === last) return;
  last = newest;
  requestAnimationFrame(() => setTimeout(() => window.__sbDrawn.push([Date.now(), newest])));
};
new MutationObserver(seen).observe(root, {subtree: true, childList: true, attributes: true, characterData: true});
window.__sbRoot = root;
seen();
return 'installed';
"""


def watch_drawn(driver: Any, panel: str) -> str:
    """Have the page record when it draws each newest point of `panel` ('installed' or 'watching')."""
    return str(driver.execute_script(WATCH_DRAWN, ".sb-status", panel))


def drawn_times(driver: Any) -> list[tuple[int, int]]:
    """(wall ms, newest point's ns) at each drawing the page recorded since watch_drawn."""
    return [(int(t), int(n)) for t, n in driver.execute_script("return window.__sbDrawn || []")]


def require_browser() -> None:
    """Skip (or fail under SCTPBENCH_REQUIRE_GUEST=1) where chromium or chromedriver is missing."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:
        why = f"{' and '.join(missing)} not installed (Debian packages chromium and chromium-driver; scripts/install)"
        if os.environ.get("SCTPBENCH_REQUIRE_GUEST") == "1":
            pytest.fail(why)
        pytest.skip(why)


@contextmanager
def browser(profile: Path) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # A reading waits for the page's work in hand: on a busy machine the browser's share of
    # the CPU makes that tens of seconds (selenium's own limit is 30 s).
    driver.set_script_timeout(300)
    try:
        yield driver
    finally:
        driver.quit()


def statuses(driver: Any) -> dict[str, dict[str, Any]]:
    return {s["panel"]: s for s in driver.execute_script(STATUS, ".sb-status")}


def panels_lacking_data(shown: dict[str, dict[str, Any]], expected: list[str]) -> list[str]:
    """The check the test makes of the page: every expected panel drew points and shows no error."""
    out = []
    for title in expected:
        s = shown.get(title)
        if s is None:
            out.append(f"{title}: not on the page")
        elif s["error"] or s["points"] == 0:
            out.append(f"{title}: {s['error'] or 'no data'}")
    return out


ALERTS = _DEEP + "return found.filter((e) => e.offsetParent !== null && e.textContent.trim()).map((e) => e.textContent.trim());"


def alerts(driver: Any) -> list[str]:
    """The messages the page shows about InfluxDB (visible ones)."""
    return list(driver.execute_script(ALERTS, ".sb-alert"))


TABLE = _DEEP + """
const table = found.find((e) => e.dataset.panel === arguments[1]);
if (!table) return null;
const rows = [...table.querySelectorAll('tr')].map((r) => [...r.children].map((c) => c.textContent));
return rows.length ? rows.slice(1).map((r) => Object.fromEntries(rows[0].map((h, i) => [h, r[i]]))) : [];
"""


def table(driver: Any, title: str) -> list[dict[str, str]] | None:
    """A table panel's rows as drawn, each by its column headers; None when the panel is not on the page."""
    rows = driver.execute_script(TABLE, "table[data-panel]", title)
    return None if rows is None else [dict(r) for r in rows]


def stats(driver: Any) -> dict[str, float]:
    return dict(driver.execute_script(STATS, ".sb-stat"))


def choose(driver: Any, label: str, value: str) -> None:
    result = driver.execute_script(CHOOSE, "select", label, value)
    assert result == "ok", result


def wait_for(condition: Callable[[], Any], timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(0.2)


def requested_hosts(driver: Any) -> set[str]:
    """Every host the page asked for: the performance log's requests and websockets, and resource entries."""
    hosts = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        url = params.get("request", {}).get("url") or (params.get("url") if "webSocket" in message.get("method", "") else None)
        if url and urlsplit(url).scheme in NETWORK:
            hosts.add(urlsplit(url).hostname or url)
    for url in driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)"):
        if urlsplit(url).scheme in NETWORK:
            hosts.add(urlsplit(url).hostname or url)
    return hosts


# Counts each rewrite of a <style> element of a plot's axes, grids and glyphs from now on (their
# position, which BokehJS writes at every repaint: each new text made the page work out its
# styles again; see sctpbench/dashboards/live.py's SAME_STYLES).
WATCH_STYLES = _DEEP.replace("root.querySelectorAll(arguments[0]).forEach((e) => found.push(e));", "found.push(root);") + """
const renderers = /\\bbk-(GlyphRenderer|LinearAxis|DatetimeAxis|CategoricalAxis|Grid)\\b/;
const counts = new Map();
window.__sbStyleWrites = counts;
const seen = (r) => {
  const style = r.target.nodeName === 'STYLE' ? r.target : r.target.parentNode;
  const host = style && style.nodeName === 'STYLE' ? style.getRootNode().host : null;
  if (host && renderers.test(host.className)) counts.set(style, (counts.get(style) || 0) + 1);
};
const observer = new MutationObserver((records) => records.forEach(seen));
for (const root of found) observer.observe(root, {subtree: true, childList: true, characterData: true});
return found.length;
"""


def watch_style_writes(driver: Any) -> None:
    driver.execute_script(WATCH_STYLES, "")


def style_writes(driver: Any) -> list[int]:
    """How often each renderer's <style> element was written since watch_style_writes, most first."""
    return sorted(driver.execute_script("return [...(window.__sbStyleWrites || new Map()).values()]"), reverse=True)


def same_styles(driver: Any) -> list[str]:
    """What the view's style guard says of itself (live.py's SameStyles): ["true"] once it took."""
    return list(driver.execute_script(_DEEP + "return found.map((e) => e.dataset.sameStyles);", ".sb-same-styles"))
