"""The guest's side of the paced clock's time of day (timetravel.py says why it is owed):
step the guest's realtime clock by what the calendar wrote into the run folder.

Its own module, standard library and ctypes only, because the netns engine calls it in every
guest just before t0, and the guest's imports are slow: the calendar's module brings sockets
and selectors the guest never uses.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

# In the run folder: the time of day the calendar owes the guest.
TOD_FILE = ".time-of-day-owed"

ADJ_SETOFFSET = 0x0100
ADJ_NANO = 0x2000


class _Timeval(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long)]


class _Timex(ctypes.Structure):
    """The kernel's struct timex (adjtimex(2)), as far as ADJ_SETOFFSET needs it, then its padding."""

    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("constant", ctypes.c_long), ("precision", ctypes.c_long), ("tolerance", ctypes.c_long),
                ("time", _Timeval), ("tick", ctypes.c_long), ("ppsfreq", ctypes.c_long), ("jitter", ctypes.c_long),
                ("shift", ctypes.c_int), ("stabil", ctypes.c_long), ("jitcnt", ctypes.c_long),
                ("calcnt", ctypes.c_long), ("errcnt", ctypes.c_long), ("stbcnt", ctypes.c_long),
                ("tai", ctypes.c_int), ("padding", ctypes.c_int * 11)]


def take(tod_path: Path) -> int | None:
    """In the guest: step the realtime clock by the time of day the calendar owes it (see
    the module's docstring) and return the step; None where no such file is (not a uml guest).

    A relative step (ADJ_SETOFFSET), exact to the ns, rather than reading the clock and
    setting it, which would lose the time between the two and the whole µs it starts on.
    """
    taken = tod_path.with_name(tod_path.name + ".taken")
    try:
        tod_path.rename(taken)
    except FileNotFoundError:
        return None
    owed = int(taken.read_text())
    taken.unlink()
    step = _Timex(modes=ADJ_SETOFFSET | ADJ_NANO, time=_Timeval(owed // 1_000_000_000, owed % 1_000_000_000))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.adjtimex(ctypes.byref(step)) < 0:
        raise OSError(ctypes.get_errno(), f"cannot step the guest's realtime clock by {owed} ns")
    return owed
