"""A calendar for UML's external time travel: virtual time paced by the wall clock.

A guest booted with `time-travel=ext:ID:SOCKET` asks this calendar for every moment of
its virtual time (the protocol is the kernel's `include/uapi/linux/um_timetravel.h`;
how the guest uses it is `arch/um/kernel/time.c`). Each message is 16 bytes, `op`,
`seq`, `time`; the calendar ACKs each with the same `seq`, and the guest ACKs the
calendar's own RUN and FREE_UNTIL.

  START       a guest connects (time: its ID)                   ACK
  REQUEST t   the guest's next event is at t (replaces the last) ACK
  WAIT        the guest stops until granted                     ACK, later RUN t
  GET         the calendar's current time                       ACK with the time
  UPDATE t    the guest's own time, after running free          ACK
  GET_TOD     the time of day at virtual 0 + now                ACK with the time
  RUN t       (calendar → guest) run, the time is t
  FREE_UNTIL  (calendar → guest) run without asking up to this time

Scheduling is conservative, as if all guests shared one CPU: only when every guest
waits is the earliest request granted, and never before the wall clock has reached it
(virtual 0 is the wall-clock moment the first guest started). The guest works in zero
virtual time, as with `inf-cpu`, so its results are those of the virtual clock; the
calendar only holds it back. With each RUN the calendar lets the guest run free up to
the wall clock's present (FREE_UNTIL), bounded by every other guest's request, so a
guest catching up after boot does not pay one round trip per clock read.

A guest that fell far behind the wall clock (its boot costs no virtual time but seconds of
wall time on a slow host; a stalled host) does not race to catch up: beyond
`max_catch_up_ns` the calendar moves virtual 0 later on the wall clock (and the time of
day with it) by all of it, so the guest goes on at the wall clock's pace from where it is. Otherwise a
boot slower than the experiment would let the whole experiment run free, unpaced.

GET_TOD answers the time of day at which the current virtual time was due. The guest asks
it once, at boot, and from then on its realtime is that answer plus its virtual time: every
later rebase would leave the guest's time of day behind the host's by what it moved (seconds,
most of it the boot's). So the calendar writes the time of day it owes the guest (the sum of
the rebases since its GET_TOD) to `tod_path`, a file in the run folder, and the guest takes
it once its run is set up (time_of_day.take(), just before t0): it renames the file away,
which tells the calendar, and steps its realtime clock by that much. From then on the
calendar no longer rebases (the guest's time of day could not follow): a guest that falls
behind the wall clock catches up, running free, and its realtime stays the host's time of
day of each moment, never ahead of it. On the virtual and real clocks the backend writes
the file with 0, so the guest does the same work on every clock. GET answers the calendar's time, which a guest that ran free may
have passed; UML asks it only at boot and for interrupts of virtio devices with time
travel support, which these guests do not have.

The calendar is a thread in the process that boots the guests; it blocks in select()
until a message arrives or the next grant falls due, never polls. If it fails it closes
every link: a guest's next read then returns nothing and it panics instead of waiting.
"""

from __future__ import annotations

import enum
import select
import selectors
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sctpbench.backends.uml import time_of_day

MESSAGE = struct.Struct("=IIQ")  # op, seq, time: the kernel's struct um_timetravel_msg
# In the run folder: the time of day the calendar owes the guest (time_of_day.take).
TOD_FILE = time_of_day.TOD_FILE
# time_travel_set_time() panics at S64_MAX: a sleep "forever" asks for it or just below.
FOREVER = 2**63 - 1


class Op(enum.IntEnum):
    ACK = 0
    START = 1
    REQUEST = 2
    WAIT = 3
    GET = 4
    UPDATE = 5
    RUN = 6
    FREE_UNTIL = 7
    GET_TOD = 8


@dataclass
class Guest:
    """One connected guest, as the calendar sees it."""

    sock: socket.socket
    name: int = -1  # the ID the guest sent with START
    request: int | None = None  # virtual ns of its next event
    waiting: bool = False  # sent WAIT, not yet granted
    seq: int = 0  # sequence number of the calendar's own messages to it
    held: bool = False  # its current request had to wait for the wall clock
    pending: bytes = b""  # a partly received message
    unanswered: set[int] = field(default_factory=set)  # seqs of RUN/FREE_UNTIL sent, not yet ACKed


@dataclass
class Stats:
    """What the calendar did, for guest.json: how closely the guest kept to the wall clock."""

    guests: int = 0
    messages: int = 0
    grants: int = 0
    held: int = 0  # grants that had to wait for the wall clock
    max_behind_ns: int = 0  # furthest virtual time fell behind the wall clock (boot, the guest's work)
    rebased_ns: int = 0  # how much later virtual 0 was moved so the guest need not catch up
    time_of_day_step_ns: int | None = None  # what the guest's realtime was stepped by (None: it took no step)
    virtual_ns: int = 0  # the last time granted or reported (one catching up may run free past it to its end)
    wall_ns: int = 0  # from virtual 0 to the last grant
    error: str = ""

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass
class Calendar:
    """A unix-socket server granting virtual time no faster than the wall clock.

    `paced=False` grants every request at once (virtual time, as fast as the guests
    go); the pacing is the only difference.
    """

    path: Path | None = None  # where guests connect; None: only attach() (tests)
    paced: bool = True
    free_running: bool = True
    max_catch_up_ns: int = 10_000_000  # a guest further behind the wall clock goes on at its pace instead
    tod_path: Path | None = None  # where the time of day owed to the guest is written (None: nowhere, tests)
    now: int = 0  # virtual ns: the latest time granted to or reported by any guest
    stats: Stats = field(default_factory=Stats)
    _guests: dict[int, Guest] = field(default_factory=dict)  # by file descriptor
    _anchor_mono: int | None = None  # wall clock (monotonic ns) at virtual 0
    _anchor_tod: int = 0  # time of day (ns) at virtual 0
    _tod_answered: int | None = None  # _anchor_tod when the guest asked GET_TOD: its realtime's origin
    _selector: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    _listener: socket.socket | None = None
    _wake: tuple[socket.socket, socket.socket] = field(default_factory=socket.socketpair)
    _thread: threading.Thread | None = None
    _stopping: bool = False

    # -- life cycle --------------------------------------------------------------

    def start(self) -> None:
        """Listen (when a path is given) and serve in a thread until stop()."""
        self._listen()
        self._thread = threading.Thread(target=self._serve, name="timetravel-calendar", daemon=True)
        self._thread.start()

    def serve(self) -> None:
        """Listen and serve in this thread, until a watcher raises (a process whose whole job this is)."""
        self._listen()
        self._serve()
        if self.stats.error:
            raise RuntimeError(self.stats.error)

    def _listen(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._listener.bind(str(self.path))
            self._listener.listen()
            self._selector.register(self._listener, selectors.EVENT_READ, "listen")
        self._selector.register(self._wake[0], selectors.EVENT_READ, "wake")

    def watch(self, fileobj: socket.socket | int, callback: Callable[[], None]) -> None:
        """Call `callback` in the calendar's loop whenever `fileobj` is readable (devices sharing the loop)."""
        self._selector.register(fileobj, selectors.EVENT_READ, callback)

    def unwatch(self, fileobj: socket.socket | int) -> None:
        try:
            self._selector.unregister(fileobj)
        except (KeyError, ValueError):
            pass

    def pump(self, sock: socket.socket, timeout_s: float) -> None:
        """Serve the guests' calendar messages, granting nothing, until `sock` is readable.

        A device that interrupts a guest waits here for the guest's answer, which the guest
        sends only after asking the calendar for the time and to be run (virtio_uml's
        time-travel handler): the calendar must answer meanwhile, and must not let another
        guest run before the interrupt is on the calendar.
        """
        self._serve_guests_until(lambda: False, sock, timeout_s, "no answer from a guest")

    def settle(self, name: int, timeout_s: float) -> None:
        """Serve the guests' messages until guest `name` has read every RUN sent to it.

        A device must not interrupt a guest between RUN and its reading it: the guest's
        interrupt handler asks the calendar for the time, reads the RUN among the answers,
        and its idle loop then waits for a RUN that already came, for ever.
        """
        self._serve_guests_until(lambda: not any(g.name == name and g.unanswered for g in self._guests.values()),
                                 None, timeout_s, f"guest {name} did not answer its RUN")

    def _serve_guests_until(self, done: Callable[[], bool], sock: socket.socket | None, timeout_s: float,
                            what: str) -> None:
        """Receive (and answer) the guests' messages, granting nothing, until `done()` or `sock` is readable."""
        deadline = time.monotonic() + timeout_s
        while not done():
            left = deadline - time.monotonic()
            watched = [g.sock for g in self._guests.values()] + ([sock] if sock is not None else [])
            ready = select.select(watched, [], [], left)[0] if left > 0 else []
            if not ready:
                raise TimeoutError(f"{what} within {timeout_s:g} s")
            if sock is not None and sock in ready:
                return
            for s in ready:
                if s.fileno() in self._guests:
                    self._receive(s)

    def describe(self) -> list[str]:
        """Where virtual time and every guest stand, a line each (for a device's status output)."""
        lines = [f"virtual {self.now} ns, wall {self._wall_ns()} ns since virtual 0"]
        lines += [f"guest {g.name}: {'waiting' if g.waiting else 'running'}, next event {g.request}"
                  for g in self._guests.values()]
        return lines

    def present(self) -> int:
        """Bring virtual time up to the wall clock's present, where no guest runs or is due
        before it, and return it: the moment at which something from outside (a frame from
        the host) reaches a guest. Without this it would arrive at the last grant, which
        may be long past when every guest sleeps."""
        if self.paced and self._guests and all(g.waiting for g in self._guests.values()):
            due = [g.request for g in self._guests.values() if g.request is not None]
            self._advance(min([self._wall_ns(), *due]))
        return self.now

    def attach(self, sock: socket.socket) -> None:
        """Serve a guest already connected (a socketpair in tests); call before start()."""
        self._add(sock)

    def stop(self) -> None:
        """End the thread and close every socket; a guest still running sees its link break."""
        self._stopping = True
        try:
            self._wake[1].send(b"x")
        except OSError:
            pass
        thread = self._thread
        # A Ctrl-C can land inside start(), leaving a thread that never ran: nothing to join.
        if thread is not None and thread.ident is not None:
            thread.join(timeout=10)
        if thread is None or not thread.is_alive():
            self._close()

    # -- the loop ------------------------------------------------------------------

    def _serve(self) -> None:
        try:
            while not self._stopping:
                timeout = self._schedule()
                for key, _ in self._selector.select(timeout):
                    if key.data == "listen":
                        self._add(self._listener.accept()[0])  # type: ignore[union-attr]
                    elif key.data == "guest":
                        self._receive(key.fileobj)  # type: ignore[arg-type]
                    elif callable(key.data):
                        key.data()
        except Exception as exc:  # noqa: BLE001 - the guest must not wait on a dead calendar
            self.stats.error = f"{type(exc).__name__}: {exc}"
        finally:
            # Closing makes a guest's next read return 0: it panics ("external link is
            # broken") and exits rather than hanging on a calendar that is gone.
            self._close()

    def _close(self) -> None:
        for guest in list(self._guests.values()):
            self._drop(guest)
        if self._listener is not None:
            self._listener.close()
            if self.path is not None:
                self.path.unlink(missing_ok=True)
        for sock in self._wake:
            sock.close()
        self._selector.close()

    def _add(self, sock: socket.socket) -> None:
        self._guests[sock.fileno()] = Guest(sock)
        self._selector.register(sock, selectors.EVENT_READ, "guest")
        self.stats.guests += 1

    def _drop(self, guest: Guest) -> None:
        self._guests.pop(guest.sock.fileno(), None)
        try:
            self._selector.unregister(guest.sock)
        except (KeyError, ValueError):
            pass
        guest.sock.close()

    def _receive(self, sock: socket.socket) -> None:
        guest = self._guests[sock.fileno()]
        try:
            # Not blocking: a device's pump() may have read what select() reported ready.
            data = sock.recv(4096, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except ConnectionError:
            data = b""
        if not data:  # the guest went away: it no longer holds the others back
            self._drop(guest)
            return
        data = guest.pending + data
        whole = len(data) - len(data) % MESSAGE.size
        guest.pending = data[whole:]
        for offset in range(0, whole, MESSAGE.size):
            self._handle(guest, *MESSAGE.unpack_from(data, offset))

    # -- the protocol -----------------------------------------------------------------

    def _handle(self, guest: Guest, op: int, seq: int, at: int) -> None:
        self.stats.messages += 1
        if op == Op.ACK:  # the guest's answer to our RUN or FREE_UNTIL
            guest.unanswered.discard(seq)
            return
        reply = 0
        if op == Op.START:
            guest.name = at
            self._anchor()
        elif op == Op.REQUEST:
            guest.request = at
        elif op == Op.WAIT:
            guest.waiting = True
        elif op == Op.GET:
            reply = self.now
        elif op == Op.UPDATE:
            self._advance(at)
        elif op == Op.GET_TOD:
            self._anchor()
            if self._tod_answered is None:
                self._tod_answered = self._anchor_tod
            reply = self._anchor_tod + self.now
        self._send(guest, Op.ACK, seq, reply)

    def _anchor(self) -> None:
        """Virtual 0 is now on the wall clock: the first guest has just started."""
        if self._anchor_mono is None:
            self._anchor_mono = time.monotonic_ns()
            # Whole µs, as tcpdump stamps packets, and so is every rebase.
            self._anchor_tod = time.time_ns() // 1000 * 1000
            self._write_tod()

    def _advance(self, at: int) -> None:
        self.now = max(self.now, at)
        self.stats.virtual_ns = self.now

    def _send(self, guest: Guest, op: Op, seq: int, at: int) -> None:
        if op != Op.ACK:
            guest.unanswered.add(seq)
        try:
            guest.sock.sendall(MESSAGE.pack(op, seq, at))
        except OSError:  # gone while we answered: as if it had closed
            self._drop(guest)

    # -- scheduling -------------------------------------------------------------------

    def _schedule(self) -> float | None:
        """Grant what is due; return how long select() may sleep (None: until a message)."""
        while True:
            if any(not g.waiting for g in self._guests.values()):
                return None  # someone runs; its next message decides
            waiting = [g for g in self._guests.values() if g.request is not None]
            if not waiting:
                return None
            guest = min(waiting, key=lambda g: (g.request, g.name))
            assert guest.request is not None
            late_ns = self._wall_ns() - guest.request if self.paced else 0
            if late_ns > self.max_catch_up_ns and not self._tod_taken():
                # All the way to the wall clock: the guest is then on time, as is its time of day.
                self._rebase(late_ns)
                self.stats.max_behind_ns = max(self.stats.max_behind_ns, late_ns)
                late_ns = 0
            if late_ns < 0:
                guest.held = True
                return None if guest.request >= FOREVER else -late_ns / 1e9
            self._grant(guest, late_ns)

    def _rebase(self, shift_ns: int) -> None:
        """Virtual 0 (and the time of day at it) `shift_ns` later on the wall clock."""
        assert self._anchor_mono is not None
        shift_ns = -(-shift_ns // 1000) * 1000
        self._anchor_mono += shift_ns
        self._anchor_tod += shift_ns
        self.stats.rebased_ns += shift_ns
        self._write_tod()

    def owed_ns(self) -> int:
        """How far the guest's realtime (its GET_TOD answer + virtual time) is behind the host's time of day."""
        return 0 if self._tod_answered is None else self._anchor_tod - self._tod_answered

    def _write_tod(self) -> None:
        """Publish what the guest is owed, whole (a rename), while it has not taken it."""
        if self.tod_path is None or self.stats.time_of_day_step_ns is not None:
            return
        draft = self.tod_path.with_name(self.tod_path.name + ".new")
        draft.write_text(f"{self.owed_ns()}\n")
        draft.replace(self.tod_path)

    def _tod_taken(self) -> bool:
        """Whether the guest has taken its time of day (renamed the file away): then it can
        follow no more rebases. Asked only when one is due, rarely; the guest renames while
        it runs and the calendar rebases only while every guest waits, so they never cross."""
        if self.tod_path is None:
            return False
        if self.stats.time_of_day_step_ns is None and not self.tod_path.exists():
            self.stats.time_of_day_step_ns = self.owed_ns()
        return self.stats.time_of_day_step_ns is not None

    def _grant(self, guest: Guest, late_ns: int) -> None:
        assert guest.request is not None
        self._advance(guest.request)
        guest.request = None
        guest.waiting = False
        self.stats.held += guest.held
        guest.held = False
        if self.free_running:
            self._send(guest, Op.FREE_UNTIL, self._next_seq(guest), self._free_until(guest))
        self._send(guest, Op.RUN, self._next_seq(guest), self.now)
        self.stats.grants += 1
        self.stats.wall_ns = self._wall_ns()
        self.stats.max_behind_ns = max(self.stats.max_behind_ns, late_ns)

    def _free_until(self, guest: Guest) -> int:
        """How far the guest may run without asking: to the wall clock, short of any other guest's next event."""
        bound = self._wall_ns() if self.paced else FOREVER
        others = [g.request for g in self._guests.values() if g is not guest and g.request is not None]
        return max(self.now, min([bound, *others]))

    def _wall_ns(self) -> int:
        """Wall-clock time since virtual 0."""
        if self._anchor_mono is None:
            return 0
        return time.monotonic_ns() - self._anchor_mono

    @staticmethod
    def _next_seq(guest: Guest) -> int:
        guest.seq = (guest.seq + 1) & 0xFFFFFFFF
        return guest.seq
