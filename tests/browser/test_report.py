"""Reports of real runs, a session and a campaign, looked at in headless Chromium.

One session-scoped fixture makes four short failover runs (RTO.min 200 and 300 ms, two
repetitions each, two sessions in parallel) and assembles them into a campaign folder
following the campaign contract, so every test here shares about 25 s of guest time.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from sctpbench.analysis.metrics import METRIC_KEYS, mean_ci95
from sctpbench.outputs import report

ROOT = Path(__file__).resolve().parents[2]
RTO_MIN = ["200ms", "300ms"]
SHORT = ["--set", "workload.duration=4s", "--set", "events.0.at=1.5s", "--repeat", "2"]
EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)
CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and os.environ.get("SCTPBENCH_REQUIRE_GUEST") != "1",
    reason="chromium is not installed (scripts/install installs it)")



def _run_sessions(out: Path) -> dict[str, Path]:
    """Both sessions at once: each guest is one process on its own CPU."""
    procs = {}
    for value in RTO_MIN:
        cmd = [sys.executable, "-m", "sctpbench.cli", "run", str(ROOT / "examples" / "failover.yaml"),
               "--set", f"sctp.rto_min={value}", "--set", f"sctp.rto_initial={value}", *SHORT,
               "--out", str(out / value), "--json"]
        procs[value] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sessions = {}
    for value, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=240)
        assert proc.returncode == 0, stderr
        sessions[value] = Path(json.loads(stdout)["directory"])
    return sessions


def _metric(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def build_campaign(sessions: dict[str, Path], directory: Path) -> Path:
    """A campaign folder exactly as the campaign contract describes it."""
    (directory / "runs").mkdir(parents=True)
    rows = []
    for n, (value, session) in enumerate(sessions.items(), 1):
        for run in sorted(session.glob("run-*")):
            summary = json.loads((run / "summary.json").read_text())
            run_key = f"c{n}-r{summary['repetition']}"
            shutil.copytree(run, directory / "runs" / run_key)
            rows.append({"run_key": run_key, "config_key": f"c{n}", "config": f"sctp.rto_min={value}",
                         "repetition": summary["repetition"], "seed": summary["seed"], "status": summary["status"],
                         "param.sctp.rto_min": value,
                         **{k: _metric(summary["metrics"].get(k)) for k in METRIC_KEYS}, "directory": f"runs/{run_key}"})
    float_columns = [(k, pa.float64()) for k in METRIC_KEYS]
    schema = pa.schema([("run_key", pa.string()), ("config_key", pa.string()), ("config", pa.string()),
                        ("repetition", pa.int64()), ("seed", pa.int64()), ("status", pa.string()),
                        ("param.sctp.rto_min", pa.string()), *float_columns, ("directory", pa.string())])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), directory / "campaign.parquet")
    configs = []
    for key in sorted({r["config_key"] for r in rows}):
        group = [r for r in rows if r["config_key"] == key]
        config = {"config_key": key, "config": group[0]["config"], "param.sctp.rto_min": group[0]["param.sctp.rto_min"]}
        for k in METRIC_KEYS:
            s = mean_ci95([r[k] for r in group if r["status"] == "ok"])
            config |= {f"{k}_mean": s["mean"], f"{k}_ci95": s["ci95"], f"{k}_n": s["n"]}
        configs.append(config)
    pq.write_table(pa.Table.from_pylist(configs), directory / "configs.parquet")
    (directory / "campaign.json").write_text(json.dumps(
        {"name": "rto-min", "experiment": "examples/failover.yaml", "swept": ["sctp.rto_min"], "budgets": [], "runs": len(rows)}))
    return directory


@pytest.fixture(scope="session")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("report-runs")
    sessions = _run_sessions(out)
    return {"session": sessions[RTO_MIN[0]], "run": sessions[RTO_MIN[0]] / "run-001",
            "campaign": build_campaign(sessions, out / "campaign")}


def screenshot(html: Path, png: Path, profile: Path) -> Image.Image:
    """Chromium in its own process group and profile; nothing of it outlives the call."""
    proc = subprocess.Popen(
        [CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
         f"--screenshot={png}", "--window-size=1200,3000", html.as_uri()],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=90)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    _none_left(profile)
    return Image.open(png).convert("RGB")


def _none_left(profile: Path, within_s: float = 30) -> None:
    """SIGKILLed processes take a moment to be gone, longer on a loaded machine (a fresh-clone
    suite saw one still there right after killpg, 2026-11-29), and one that left the group
    (Chromium's crash handler starts its own session) is killed by its profile here."""
    deadline = time.monotonic() + within_s
    while left := [int(pid) for pid in subprocess.run(["pgrep", "-f", str(profile)], capture_output=True,
                                                       text=True).stdout.split()]:
        assert time.monotonic() < deadline, f"chromium processes remain: {left}"
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


def ink(image: Image.Image) -> tuple[int, int]:
    """Pixels that are not page background, and distinct colours (to 4 bits a channel)."""
    pixels = np.asarray(image)
    drawn = int((pixels.min(axis=2) < 235).sum())
    q = (pixels >> 4).astype(np.int32)
    colours = int(np.count_nonzero(np.bincount((q[..., 0] << 8 | q[..., 1] << 4 | q[..., 2]).ravel(), minlength=4096)))
    return drawn, colours


def assert_plots_visible(path: Path, tmp: Path, figures: int) -> None:
    html, bare = tmp / "full.html", tmp / "bare.html"
    html.write_text(report.page(report.build(path)))
    bare.write_text(report.page(report.build(path, report.Options(draw_figures=False))))
    text = html.read_text()
    assert text.count("<svg") == figures
    assert not EXTERNAL.search(text), EXTERNAL.search(text)
    full_ink, full_colours = ink(screenshot(html, tmp / "full.png", tmp / "profile-full"))
    bare_ink, bare_colours = ink(screenshot(bare, tmp / "bare.png", tmp / "profile-bare"))
    # the same page with empty frames where the figures go: the plots must add lots of ink and colour
    # (one campaign figure adds about 25,000 such pixels, a run's five about 240,000)
    assert full_ink > bare_ink + 15_000 * figures, (full_ink, bare_ink)
    assert full_colours > 2 * bare_colours and full_colours > 40, (full_colours, bare_colours)


@needs_chromium
def test_run_report_shows_its_plots_in_chromium(results: dict[str, Path], tmp_path: Path) -> None:
    assert_plots_visible(results["run"], tmp_path, figures=5)
    text = (tmp_path / "full.html").read_text()
    for expected in ("fail primary", "RFC timer model", "association client (getsockopt)", "kernel_release"):
        assert expected in text


@needs_chromium
def test_campaign_report_shows_its_plots_in_chromium(results: dict[str, Path], tmp_path: Path) -> None:
    assert_plots_visible(results["campaign"], tmp_path, figures=1)
    text = (tmp_path / "full.html").read_text()
    assert "sctp.rto_min=200ms" in text and "sctp.rto_min=300ms" in text and "sctp.rto_min (ms)" in text


def test_session_report_holds_every_run_and_the_ci_table(results: dict[str, Path]) -> None:
    text = report.page(report.build(results["session"]))
    assert text.count("<svg") == 2 * 5 + 1  # five per run and the runs' MTT CDFs
    assert "mean ± 95% confidence interval" in text and "run-002" in text


def test_cli_png_export_of_a_campaign_and_a_session(results: dict[str, Path], tmp_path: Path) -> None:
    for name in ("campaign", "session"):
        r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "report", str(results[name]),
                            "--out", str(tmp_path / f"{name}.html"), "--png", str(tmp_path / name)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    assert [p.name for p in (tmp_path / "campaign").iterdir()] == ["campaign-sctp-rto_min.png"]
    assert len(list((tmp_path / "session").iterdir())) == 11
    for png in [*(tmp_path / "campaign").iterdir(), *(tmp_path / "session").iterdir()]:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, png
