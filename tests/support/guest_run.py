"""One experiment run end to end for a guest test: the file written, `sctpbench run --json`
in a subprocess (as a user runs it), the run folder returned; its stderr shown if it failed."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def run_experiment(folder: Path, text: str, name: str = "experiment", env: Mapping[str, str] | None = None) -> Path:
    """Writes `text` as FOLDER/NAME.yaml, runs it with results under FOLDER/NAME, returns the run folder."""
    folder.mkdir(parents=True, exist_ok=True)
    experiment = folder / f"{name}.yaml"
    experiment.write_text(text)
    return run_file(experiment, folder / name, env)


def run_file(experiment: Path, out: Path, env: Mapping[str, str] | None = None, *sets: str, cwd: Path | None = None) -> Path:
    """Runs the experiment file as a user runs it (with `--set` SETS), results under OUT;
    returns the run folder. From CWD, the sctpbench of a checkout there (`-m` imports the
    working folder's first)."""
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--json", "--out", str(out),
                        *(word for s in sets for word in ("--set", s))],
                       capture_output=True, text=True, env=None if env is None else dict(env), timeout=600, cwd=cwd)
    assert r.returncode == 0, r.stderr + r.stdout
    return Path(json.loads(r.stdout)["runs"][0]["directory"])
