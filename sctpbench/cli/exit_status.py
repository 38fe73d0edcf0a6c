"""The `sctpbench` command's exit statuses.

0 done, 1 a run failed (what was measured is kept), 2 bad input (nothing was built, also a
results folder that cannot be written), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM,
torn down as on Ctrl-C). A `disturbed` run (timing outside the self-check's tolerances)
finished and was recorded: `run` exits 0 for it with a warning on stderr, as for a
calibration that is off; its status is in the output and --json.
"""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143
