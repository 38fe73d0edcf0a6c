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


# Tests that count sctpbench's guests of given run ids: a run of the same plan (the same
# content-derived id) in another test of the same suite would be counted too, so they never
# run beside one another or beside the tests that run those plans (scripts/test, xdist).
GUEST_CENSUS = "guest/test_mininet.py guest/test_campaign.py guest/test_distributed.py guest/test_teardown.py".split()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.resolve().relative_to(TESTS)
        if where.parts[0] in ON_A_GUEST:
            item.add_marker(pytest.mark.guest)
        # With `-n N --dist loadgroup` (scripts/test) a file's tests stay on one worker (its
        # module fixtures run once), and the guest census's files share one.
        item.add_marker(pytest.mark.xdist_group("guest-census" if where.as_posix() in GUEST_CENSUS else where.as_posix()))
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
