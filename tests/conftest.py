"""A test's folder says its kind: unit/ runs anywhere; guest/, lab/ and browser/ need the
User-Mode Linux guest (or a capable host) and the built agent.

Where the machine cannot run them they are skipped with `sctpbench check`'s reason,
unless SCTPBENCH_REQUIRE_GUEST=1 (CI sets it), which turns that into a failure.
"""

import os
import signal
from pathlib import Path

import pytest

from sctpbench.orchestration import capabilities

TESTS = Path(__file__).resolve().parent
ON_A_GUEST = ("guest", "lab", "browser")


def pytest_configure(config: pytest.Config) -> None:
    """Tests stop the processes they start with SIGINT, as a terminal's Ctrl-C would. A suite
    started in the background (`… &` in a script) inherits SIGINT ignored and passes that on
    to every process it starts, which then cannot be interrupted (Python installs its Ctrl-C
    handler only where SIGINT is not ignored): a handler here is reset to the default in them."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.resolve().relative_to(TESTS).parts[0] in ON_A_GUEST:
            item.add_marker(pytest.mark.guest)
    backend, why = capabilities.choose_backend("auto")
    agent = capabilities.agent()
    reason = why if backend is None else ("" if agent.ok else agent.detail)
    if not reason:
        return
    if os.environ.get("SCTPBENCH_REQUIRE_GUEST") == "1":
        raise pytest.UsageError(f"guest tests required but cannot run: {reason}")
    for item in items:
        if "guest" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))
