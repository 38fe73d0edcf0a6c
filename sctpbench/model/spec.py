"""The experiment file's public entry: `spec.load(path, overrides)` gives a validated
`spec.Experiment`, or raises SpecError with one line naming the file, the line, the dotted
key and what is allowed.

The work is done by the modules beside it, one job each:
- experiment.py: the models (with sctp.py, the `sctp:` mapping made from sctp_params.PARAMS,
  and policy.py, the agent's policy text);
- loading.py: reading the file and what it names, `--set` overrides (overrides.py);
- crosschecks.py: rules joining several parts of the file;
- wording.py: how a refused value is worded.
"""

from __future__ import annotations

from sctpbench.model.experiment import Experiment
from sctpbench.model.loading import load

__all__ = ["Experiment", "load"]
