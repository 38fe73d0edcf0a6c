"""`sctpbench run` imports, before it boots a guest, only what running needs: no scipy (a
single run computes no test or interval), no plotting, dashboards, InfluxDB client, ansible
or Dask, and no other command's module. Each of those is start-up time of every run
(docs/development.md, "Start-up")."""

from __future__ import annotations

import subprocess
import sys

# Imported by `sctpbench run` before its first progress line: the command line, the run
# command and what it runs the experiment with.
RUN_PATH = "from sctpbench import cli; cli.parser(['run', 'x.yaml']); import sctpbench.orchestration.calibrate"
NOT_BEFORE_THE_GUEST = ("scipy", "matplotlib", "panel", "bokeh", "influxdb_client", "ansible_runner", "distributed",
                        "sctpbench.campaign.command", "sctpbench.lab.command", "sctpbench.cli.dashboards")


def test_run_imports_nothing_heavy_it_does_not_need() -> None:
    code = f"{RUN_PATH}; import sys; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert "sctpbench.orchestration.runner" in loaded
    assert sorted(name for name in NOT_BEFORE_THE_GUEST if name in loaded) == []


def test_every_command_is_still_in_the_full_parser() -> None:
    code = "from sctpbench import cli; p = cli.parser(); print(p.format_help())"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "{run,plan,check,trace,verify,push,influx,dashboards,report,campaign,hosts,lab,schema}" in shown
