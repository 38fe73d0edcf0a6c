"""Work inside a host's network namespace from the engine's own thread: sysctls as /proc/sys
files, processes started there directly.

`ip netns exec NS CMD` costs two program starts (ip, then CMD) and a mount namespace per
command; a program start is the dearest thing a User-Mode Linux guest does (every page it
touches traps to the guest kernel). setns(2) moves only the calling thread into the
namespace: what it opens under /proc/sys/net then is that namespace's, and a process it
starts is born there. The thread always returns to where it was, also on an error.
Standard library only (the engine's rule: the guest's imports are slow).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sctpbench.model.errors import BackendError

CLONE_NEWNET = 0x40000000
NETNS_DIR = Path("/run/netns")  # where `ip netns add` keeps a namespace
SYSCTL_ROOT = Path("/proc/sys")
# The prefix a plan's process command line has (render.process_argv): `ip netns exec NS …`.
EXEC_PREFIX = ["ip", "netns", "exec"]
PR_SET_TIMERSLACK = 29  # <linux/prctl.h>


def _setns(fd: int, what: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        raise BackendError(f"setns into {what}: {os.strerror(ctypes.get_errno())}")


@contextmanager
def namespace(name: str | None) -> Iterator[None]:
    """The calling thread in network namespace `name` (None: where it is) for the block."""
    if name is None:
        yield
        return
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        try:
            target = os.open(NETNS_DIR / name, os.O_RDONLY)
        except OSError as e:
            raise BackendError(f"network namespace {name}: {e.strerror}") from None
        try:
            _setns(target, name)
        finally:
            os.close(target)
        try:
            yield
        finally:
            _setns(own, "the engine's own network namespace")
    finally:
        os.close(own)


def exact_timers() -> None:
    """Wake-ups of the calling thread, and of every thread and process it starts from now on
    (timer slack is inherited across fork and exec), at their deadline: with the default
    50 µs of slack the kernel may coalesce one with whatever other timer of the run falls
    near it, so a message left up to 50 µs late depending on how the run's set-up went."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        raise BackendError(f"prctl(PR_SET_TIMERSLACK): {os.strerror(ctypes.get_errno())}")


def split_exec(argv: list[str]) -> tuple[str | None, list[str]]:
    """A process command line as (namespace, the command run there): `ip netns exec NS CMD…`
    becomes (NS, CMD…); any other is run where the engine is."""
    if argv[:3] == EXEC_PREFIX and len(argv) > 4:
        return argv[3], argv[4:]
    return None, argv


def sysctl_path(key: str) -> Path:
    return SYSCTL_ROOT / key.replace(".", "/")


def write_sysctls(settings: list[str], shown: str) -> None:
    """`sysctl -q -w KEY=VALUE…` in the calling thread's namespace: every one, or the error of the first that fails."""
    for setting in settings:
        key, _, value = setting.partition("=")
        try:
            sysctl_path(key).write_text(value + "\n")
        except OSError as e:
            raise BackendError(f"command failed: {shown}\nsysctl: setting key \"{key}\": {e.strerror}") from None


def read_sysctl(key: str) -> str | None:
    """A sysctl's value as `sysctl -n` prints it, or None where the kernel has none (`-e`)."""
    try:
        return sysctl_path(key).read_text().rstrip("\n")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise BackendError(f"sysctl {key}: {e.strerror}") from None
