"""`python -m sctpbench.cli …`: the `sctpbench` command (tests and the guest start it this way)."""

import sys

from sctpbench.cli import main

sys.exit(main())
