"""End to end in the guest: a signaling run that leaves `nodelay` unset is coalesced by
Linux's Nagle algorithm, and its summary says so (analysis/stack_notes.py); the same run with
`nodelay: true` has no note and an MTT of the path's delay."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.guest_run import run_experiment

EXPERIMENT = """\
name: nagle-note
topology: dual-homed
sctp: {{{sctp}}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, duration: 2s}}
"""


def test_nodelay_unset_is_noted_with_the_mtt_it_made(tmp_path: Path) -> None:
    run_dir = run_experiment(tmp_path / "unset", EXPERIMENT.format(sctp="hb_interval: 1s"), "nagle-unset")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert [n["key"] for n in summary["notes"]] == ["nodelay"]
    # Nagle held messages for the delayed SACK: far above the 10 ms one-way delay
    assert summary["metrics"]["mtt_p50_ms"] > 30, summary["metrics"]
    assert f"MTT p50 {summary['metrics']['mtt_p50_ms']:.1f} ms" in summary["notes"][0]["text"]


def test_nodelay_set_has_no_note(tmp_path: Path) -> None:
    run_dir = run_experiment(tmp_path / "set", EXPERIMENT.format(sctp="hb_interval: 1s, nodelay: true"), "nagle-set")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert "notes" not in summary
    assert summary["metrics"]["mtt_p50_ms"] < 11, summary["metrics"]
