"""experiment.yaml: the experiment as resolved, every default written out, beside a session's
runs (orchestration/runner.py writes it; a campaign's is campaign/execute.py's). Reports show
it as written; `push` takes the InfluxDB target from it when the run recorded none.

PyYAML and model/ are imported inside the functions: the guest's backends import this package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

NAME = "experiment.yaml"


def write(folder: Path, document: dict[str, Any]) -> None:
    """The resolved experiment (its model's JSON form), in the order the model has its keys."""
    import yaml

    (folder / NAME).write_text(yaml.safe_dump(document, sort_keys=False))


def exists(folder: Path) -> bool:
    """Whether the folder holds one: a session (or a campaign) once it started."""
    return (folder / NAME).exists()


def read_text(folder: Path) -> str | None:
    """The file as written, for a person to read; None where the folder has none."""
    return (folder / NAME).read_text() if exists(folder) else None


def read_document(folder: Path) -> Any:
    """The file parsed within the experiment file's limits (model/inputfile.py; SpecError in
    words), or None where the folder has none."""
    from sctpbench.model import inputfile

    if not exists(folder):
        return None
    document, _ = inputfile.load(folder / NAME)
    return document
