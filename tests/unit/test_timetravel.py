"""The calendar of `clock: paced`, driven by a fake guest speaking UML's time-travel protocol.

The fake guest does what arch/um/kernel/time.c does: each of its messages waits for an
ACK with the same sequence number, and it ACKs the calendar's RUN and FREE_UNTIL.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sctpbench.backends.uml.time_of_day import take as take_time_of_day
from sctpbench.backends.uml.timetravel import MESSAGE, TOD_FILE, Calendar, Op

MS = 1_000_000


class FakeGuest:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.seq = 0

    def ask(self, op: Op, at: int = 0) -> int:
        """Send one message, return the time in its ACK."""
        self.seq += 1
        self.sock.sendall(MESSAGE.pack(op, self.seq, at))
        got_op, seq, got = self.receive()
        assert (got_op, seq) == (Op.ACK, self.seq)
        return got

    def receive(self, timeout: float = 5.0) -> tuple[int, int, int]:
        self.sock.settimeout(timeout)
        data = b""
        while len(data) < MESSAGE.size:
            chunk = self.sock.recv(MESSAGE.size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return MESSAGE.unpack(data)

    def wait_for_run(self, timeout: float = 5.0) -> tuple[int, int | None]:
        """WAIT, then ACK what the calendar sends until RUN: (run time, free-until time)."""
        self.ask(Op.WAIT, 2**64 - 1)
        free_until = None
        while True:
            op, seq, at = self.receive(timeout)
            self.sock.sendall(MESSAGE.pack(Op.ACK, seq, 0))
            if op == Op.FREE_UNTIL:
                free_until = at
            elif op == Op.RUN:
                return at, free_until

    def nothing_within(self, seconds: float) -> bool:
        try:
            self.receive(seconds)
        except TimeoutError:
            return True
        return False


@pytest.fixture
def calendar_and_guest() -> Iterator[tuple[Calendar, FakeGuest]]:
    calendar = Calendar()
    ours, theirs = socket.socketpair()
    calendar.attach(ours)
    calendar.start()
    guest = FakeGuest(theirs)
    yield calendar, guest
    calendar.stop()
    theirs.close()


def test_start_get_and_time_of_day(calendar_and_guest: tuple[Calendar, FakeGuest]) -> None:
    _, guest = calendar_and_guest
    assert guest.ask(Op.START, 7) == 0
    tod = guest.ask(Op.GET_TOD)
    assert abs(tod - time.time_ns()) < 500 * MS  # the guest's realtime is the host's
    assert guest.ask(Op.GET) == 0


def test_a_grant_for_t_is_not_sent_before_start_plus_t(calendar_and_guest: tuple[Calendar, FakeGuest]) -> None:
    calendar, guest = calendar_and_guest
    started = time.monotonic_ns()
    guest.ask(Op.START, 1)
    for t in (80 * MS, 160 * MS, 161 * MS):
        guest.ask(Op.REQUEST, t)
        run, free_until = guest.wait_for_run()
        assert run == t and time.monotonic_ns() - started >= t
        assert free_until is not None and t <= free_until <= time.monotonic_ns() - started
    assert guest.ask(Op.GET) == 161 * MS
    assert calendar.stats.grants == 3 and calendar.stats.held >= 2


def test_a_due_request_is_granted_at_once_and_a_later_request_replaces_an_earlier(
        calendar_and_guest: tuple[Calendar, FakeGuest]) -> None:
    _, guest = calendar_and_guest
    guest.ask(Op.START, 1)
    time.sleep(0.05)
    guest.ask(Op.REQUEST, 10 * MS)
    guest.ask(Op.REQUEST, 20 * MS)  # the guest only ever asks for its single next event
    begun = time.monotonic()
    assert guest.wait_for_run()[0] == 20 * MS
    assert time.monotonic() - begun < 0.02


def test_nothing_is_granted_while_the_guest_runs_and_time_never_goes_back(
        calendar_and_guest: tuple[Calendar, FakeGuest]) -> None:
    _, guest = calendar_and_guest
    guest.ask(Op.START, 1)
    guest.ask(Op.REQUEST, 1 * MS)
    assert guest.nothing_within(0.05)  # requested, but still running: no RUN
    guest.ask(Op.UPDATE, 30 * MS)  # it ran free up to 30 ms
    assert guest.ask(Op.GET) == 30 * MS
    assert guest.wait_for_run()[0] == 30 * MS  # its old request lies behind the calendar's time


def test_a_guest_far_behind_goes_on_at_the_wall_clocks_pace_instead_of_racing(
        calendar_and_guest: tuple[Calendar, FakeGuest]) -> None:
    calendar, guest = calendar_and_guest
    guest.ask(Op.START, 1)
    time.sleep(0.4)  # a boot: wall time passes, virtual time does not
    guest.ask(Op.REQUEST, 10 * MS)
    run, free_until = guest.wait_for_run()
    assert run == 10 * MS and free_until is not None and free_until <= 10 * MS + 60 * MS  # not up to 400 ms
    begun = time.monotonic_ns()
    guest.ask(Op.REQUEST, 210 * MS)
    assert guest.wait_for_run()[0] == 210 * MS
    assert time.monotonic_ns() - begun >= 140 * MS  # 200 ms later, less at most the 50 ms allowed behind
    assert calendar.stats.rebased_ns >= 300 * MS and calendar.stats.held >= 1


def test_the_guest_is_owed_the_time_of_day_of_every_rebase_until_it_takes_it(tmp_path: Path) -> None:
    """The guest reads the time of day once, at boot (GET_TOD): a rebase after that leaves its
    realtime behind the host's by the rebase, unless it steps its clock by what it is owed.
    Once it has (the file renamed away) the calendar rebases no more: the guest catches up."""
    owed = tmp_path / TOD_FILE
    calendar = Calendar(tod_path=owed)
    ours, theirs = socket.socketpair()
    calendar.attach(ours)
    calendar.start()
    guest = FakeGuest(theirs)
    try:
        guest.ask(Op.START, 1)
        boot_tod = guest.ask(Op.GET_TOD)
        assert owed.read_text() == "0\n"
        time.sleep(0.4)  # a boot: wall time passes, virtual time does not
        guest.ask(Op.REQUEST, 10 * MS)
        guest.wait_for_run()
        step = int(owed.read_text())
        assert step == calendar.stats.rebased_ns >= 300 * MS
        # The guest's realtime (its boot answer + virtual time) plus the step is the host's now.
        assert abs(boot_tod + 10 * MS + step - time.time_ns()) < 60 * MS
        owed.rename(tmp_path / "taken")  # take_time_of_day()
        time.sleep(0.3)  # the guest falls behind again
        guest.ask(Op.REQUEST, 20 * MS)
        run, free_until = guest.wait_for_run()
        assert run == 20 * MS and free_until is not None and free_until >= 20 * MS + 250 * MS  # catching up
        assert calendar.stats.rebased_ns == step == calendar.stats.time_of_day_step_ns
        assert not owed.exists()
    finally:
        calendar.stop()
        theirs.close()


def test_take_time_of_day_does_nothing_outside_a_uml_guest(tmp_path: Path) -> None:
    assert take_time_of_day(tmp_path / TOD_FILE) is None


def test_waiting_for_the_wall_clock_is_not_a_busy_loop(calendar_and_guest: tuple[Calendar, FakeGuest]) -> None:
    _, guest = calendar_and_guest
    guest.ask(Op.START, 1)
    guest.ask(Op.REQUEST, 400 * MS)
    cpu = time.process_time()
    guest.wait_for_run()
    assert time.process_time() - cpu < 0.1


def test_unpaced_calendar_grants_at_once() -> None:
    calendar = Calendar(paced=False)
    ours, theirs = socket.socketpair()
    calendar.attach(ours)
    calendar.start()
    guest = FakeGuest(theirs)
    try:
        guest.ask(Op.START, 1)
        guest.ask(Op.REQUEST, 10_000 * MS)
        assert guest.wait_for_run(timeout=1.0)[0] == 10_000 * MS
    finally:
        calendar.stop()
        theirs.close()


def test_two_guests_share_one_time_and_the_earliest_request_runs_first(tmp_path: Path) -> None:
    calendar = Calendar(path=tmp_path / "calendar.sock", paced=False)
    calendar.start()
    a, b = (FakeGuest(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)) for _ in range(2))
    try:
        for name, guest in ((1, a), (2, b)):
            guest.sock.connect(str(tmp_path / "calendar.sock"))
            guest.ask(Op.START, name)
        a.ask(Op.REQUEST, 50 * MS)
        b.ask(Op.REQUEST, 20 * MS)
        a.ask(Op.WAIT)
        assert a.nothing_within(0.05)  # b still runs
        run, free_until = b.wait_for_run()
        assert run == 20 * MS and free_until == 50 * MS  # free only up to a's next event
        assert a.nothing_within(0.05)  # b runs again
        b.ask(Op.REQUEST, 90 * MS)
        b.ask(Op.WAIT)
        op, seq, at = a.receive()
        while op != Op.RUN:
            a.sock.sendall(MESSAGE.pack(Op.ACK, seq, 0))
            op, seq, at = a.receive()
        assert at == 50 * MS
    finally:
        calendar.stop()
        for guest in (a, b):
            guest.sock.close()
    assert not (tmp_path / "calendar.sock").exists()


def test_a_guest_going_away_ends_cleanly_and_a_stopped_calendar_breaks_the_link(tmp_path: Path) -> None:
    calendar = Calendar(path=tmp_path / "c.sock")
    calendar.start()
    first = FakeGuest(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    first.sock.connect(str(tmp_path / "c.sock"))
    first.ask(Op.START, 1)
    first.ask(Op.REQUEST, 5 * MS)
    first.sock.close()  # the guest went away: the calendar carries on
    second = FakeGuest(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    second.sock.connect(str(tmp_path / "c.sock"))
    second.ask(Op.START, 2)
    second.ask(Op.REQUEST, 10 * MS)
    assert second.wait_for_run()[0] == 10 * MS
    calendar.stop()
    with pytest.raises((EOFError, ConnectionError)):
        second.ask(Op.GET)  # what makes a guest panic instead of hanging
    second.sock.close()
    assert calendar.stats.error == ""


class FailingCalendar(Calendar):
    def _handle(self, guest, op: int, seq: int, at: int) -> None:  # type: ignore[no-untyped-def]
        if op == Op.GET:
            raise RuntimeError("the calendar broke")
        super()._handle(guest, op, seq, at)


def test_a_calendar_that_fails_breaks_the_link_instead_of_leaving_the_guest_waiting() -> None:
    calendar = FailingCalendar()
    ours, theirs = socket.socketpair()
    calendar.attach(ours)
    calendar.start()
    guest = FakeGuest(theirs)
    try:
        guest.ask(Op.START, 1)
        with pytest.raises((EOFError, ConnectionError)):
            guest.ask(Op.GET)
        assert "the calendar broke" in calendar.stats.error
    finally:
        calendar.stop()
        theirs.close()


# -- devices in the calendar's loop (the lab's vswitch): watch, pump, settle, present --------


@pytest.fixture
def device_loop() -> Iterator[tuple[Calendar, FakeGuest, socket.socket, list[object], socket.socket]]:
    """A calendar with one fake guest and a device: a byte on the trigger makes the device
    call the calendar in its loop, as the vswitch does when a frame arrives (p: pump until
    a byte comes on the answer socket, s: settle guest 7, n: present); what it did lands in
    the list."""
    calendar = Calendar(paced=True, free_running=False)
    ours, theirs = socket.socketpair()
    calendar.attach(ours)
    trigger, device = socket.socketpair()
    answer_a, answer_b = socket.socketpair()
    results: list[object] = []

    def act() -> None:
        what = device.recv(1)
        if what == b"p":
            calendar.pump(answer_a, 5)
            results.append("answered")
        elif what == b"s":
            calendar.settle(7, 5)
            results.append("settled")
        elif what == b"n":
            results.append(calendar.present())

    calendar.watch(device, act)
    calendar.start()
    guest = FakeGuest(theirs)
    guest.ask(Op.START, 7)
    yield calendar, guest, trigger, results, answer_b
    calendar.stop()
    for s in (theirs, trigger, device, answer_a, answer_b):
        s.close()


def _soon(results: list[object], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not results and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(results)


def test_a_device_waiting_for_a_guests_answer_still_has_the_calendar_answer_it(device_loop) -> None:  # type: ignore[no-untyped-def]
    calendar, guest, trigger, results, answer = device_loop
    trigger.sendall(b"p")
    time.sleep(0.1)
    # The guest's interrupt handler asks the calendar for the time and to be run, then answers the device.
    assert guest.ask(Op.GET) == calendar.now
    assert guest.ask(Op.REQUEST, 3 * MS) == 0
    assert not results
    answer.sendall(b"x")
    assert _soon(results) and results == ["answered"]


def test_a_guest_is_not_interrupted_before_it_has_read_its_run(device_loop) -> None:  # type: ignore[no-untyped-def]
    _, guest, trigger, results, _ = device_loop
    guest.ask(Op.REQUEST, 0)
    guest.sock.sendall(MESSAGE.pack(Op.WAIT, 99, 0))  # WAIT; its ACK and the RUN follow
    assert guest.receive()[:2] == (Op.ACK, 99)
    op, seq, _ = guest.receive()
    assert op == Op.RUN
    trigger.sendall(b"s")
    assert not _soon(results, 0.3)  # the RUN is unanswered: the device waits
    guest.sock.sendall(MESSAGE.pack(Op.ACK, seq, 0))
    assert _soon(results) and results == ["settled"]


def test_something_from_outside_arrives_at_the_present_not_at_the_last_grant(device_loop) -> None:  # type: ignore[no-untyped-def]
    calendar, guest, trigger, results, _ = device_loop
    guest.ask(Op.REQUEST, 60_000 * MS)  # a guest asleep for a minute
    guest.ask(Op.WAIT)
    time.sleep(0.2)
    trigger.sendall(b"n")
    assert _soon(results)
    present = results[0]
    assert isinstance(present, int) and 150 * MS <= present <= 60_000 * MS
    assert guest.ask(Op.GET) == present  # what the interrupted guest then reads


def test_a_ctrl_c_inside_start_leaves_a_calendar_that_stops_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A campaign's Ctrl-C once landed inside Thread.start(): stop() then raised "cannot join
    thread before it is started", the worker died without tearing its run down, and the run
    was recorded as "orchestrator killed" instead of "interrupted"."""
    def interrupted(self: threading.Thread) -> None:
        raise KeyboardInterrupt

    calendar = Calendar(paced=False)
    monkeypatch.setattr(threading.Thread, "start", interrupted)
    with pytest.raises(KeyboardInterrupt):
        calendar.start()
    monkeypatch.undo()
    calendar.stop()
    assert calendar._wake[0].fileno() == -1, "the calendar's sockets are closed"
