"""The lab's switch on shared virtual time: one process that is the guests' calendar and
carries every frame between them.

`python -m sctpbench.lab.vswitch CONFIG` serves, in one loop:
- the time-travel calendar (backends/uml/timetravel.py) every guest of the lab is booted with
  (`time-travel=ext:`), paced by the wall clock and without free running, so it always knows
  the present virtual time;
- one vhost-user socket per guest NIC (vhost_user.py), grouped in segments: a wire's two
  ends, or a guest's management NIC and its tap in the lab's namespace.

A frame a guest sends is taken from its queue while the guest waits for the answer to its
kick, so at the sender's virtual time; each receiver is given it at that same time and
interrupted, and the sender is answered only once every receiver has put the interrupt on
the calendar. As the calendar lets one guest run at a time, every guest sees every frame at
the virtual moment it was sent, whatever the host's load. Frames from a tap (SSH from the
host) arrive at the wall clock's present. A receiver whose queue is full has its frames
held (up to HOLD_FRAMES) until it posts buffers, as a switch's port buffer would.

CONFIG is JSON: {"calendar": PATH, "stats": PATH, "ports": [{"socket": PATH, "mac": MAC,
"segment": NAME, "tap": NAME or null, "name": LABEL, "guest": ID}]}. The calendar socket appears last:
when it exists, every port listens. SIGTERM ends it; the guests then panic, as with a
calendar that is gone (timetravel.py), instead of hanging. On the way out it writes its
counts to `stats`.
"""

from __future__ import annotations

import faulthandler
import fcntl
import json
import os
import signal
import socket
import struct
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from sctpbench.backends.uml import timetravel
from sctpbench.lab import vhost_user as vu

HOLD_FRAMES = 1024
ANSWER_TIMEOUT_S = 60.0  # a guest that does not answer an interrupt for this long is taken to hang
TUNSETIFF = 0x400454CA
IFF_TAP, IFF_NO_PI = 0x0002, 0x1000
MAX_FRAME = 65536


@dataclass
class Counts:
    sent: int = 0  # frames the guest sent
    received: int = 0  # frames given to the guest
    dropped: int = 0  # frames for it beyond HOLD_FRAMES (for a management port: also its frames the tap refused)
    interrupts: int = 0


@dataclass
class Port:
    """One guest NIC: its vhost-user connection and queues."""

    name: str
    segment: str
    mac: str
    guest: int  # its guest's ID on the calendar (time-travel=ext:ID:...)
    listener: socket.socket
    conn: socket.socket | None = None
    backend: socket.socket | None = None
    memory: vu.Memory | None = None
    queues: list[vu.Virtqueue] = field(default_factory=lambda: [vu.Virtqueue(), vu.Virtqueue()])
    held: deque[bytes] = field(default_factory=deque)
    counts: Counts = field(default_factory=Counts)


class Switch:
    def __init__(self, config: dict[str, object]) -> None:
        self.calendar = timetravel.Calendar(path=Path(str(config["calendar"])), paced=True, free_running=False,
                                            max_catch_up_ns=timetravel.FOREVER)
        self.stats_path = Path(str(config["stats"]))
        self.ports: list[Port] = []
        self.taps: dict[str, int] = {}  # segment → tap fd
        for entry in config["ports"]:  # type: ignore[attr-defined]
            self._add_port(entry)

    # -- set-up ----------------------------------------------------------------------

    def _add_port(self, entry: dict[str, object]) -> None:
        path = Path(str(entry["socket"]))
        path.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(1)
        port = Port(name=str(entry["name"]), segment=str(entry["segment"]), mac=str(entry["mac"]),
                    guest=int(str(entry["guest"])), listener=listener)
        self.ports.append(port)
        self.calendar.watch(listener, lambda: self._accept(port))
        tap = entry.get("tap")
        if tap:
            fd = _open_tap(str(tap))
            self.taps[port.segment] = fd
            self.calendar.watch(fd, lambda: self._from_tap(port, fd))

    def serve(self) -> None:
        try:
            self.calendar.serve()
        finally:
            self._write_stats()

    def describe(self) -> str:
        """Where every guest and port stands (SIGUSR2 prints it to the log)."""
        first, *guests = self.calendar.describe()
        lines = [first, *(f"  {line}" for line in guests)]
        for p in self.ports:
            m = p.memory
            state = [f"{'rx' if i == vu.RX else 'tx'} avail {q.available(m) if m and q.ready else '-'} used {q.used_idx}"
                     for i, q in enumerate(p.queues)]
            lines.append(f"  port {p.name}: held {len(p.held)}, {', '.join(state)}, {p.counts}")
        return "\n".join(lines)

    def _write_stats(self) -> None:
        data = {"calendar": self.calendar.stats.as_dict(),
                "ports": {p.name: p.counts.__dict__ for p in self.ports}}
        self.stats_path.write_text(json.dumps(data, indent=2) + "\n")

    # -- vhost-user ------------------------------------------------------------------

    def _accept(self, port: Port) -> None:
        conn, _ = port.listener.accept()
        if port.conn is not None:  # the guest came back (rebooted): forget the old connection
            self._drop(port)
        port.conn = conn
        self.calendar.watch(conn, lambda: self._serve_port(port))

    def _drop(self, port: Port) -> None:
        for sock in (port.conn, port.backend):
            if sock is not None:
                self.calendar.unwatch(sock)
                sock.close()
        if port.memory is not None:
            port.memory.close()
        port.conn = port.backend = port.memory = None
        port.queues = [vu.Virtqueue(), vu.Virtqueue()]

    def _serve_port(self, port: Port) -> None:
        """One message from the port's guest; a guest that broke the protocol or went away
        loses its port, the others go on (its kernel has ended or will panic)."""
        try:
            self._message(port)
        except (vu.ProtocolError, OSError) as e:
            print(f"vswitch: {port.name}: {type(e).__name__}: {e}; port closed", flush=True)
            self._drop(port)

    def _message(self, port: Port) -> None:
        assert port.conn is not None
        message = vu.receive(port.conn)
        if message is None:  # the guest ended
            self._drop(port)
            return
        answer, after = self._handle(port, message)
        if answer is not None:
            port.conn.sendall(vu.reply(message, answer))
        elif message.needs_reply:
            port.conn.sendall(vu.reply(message, vu.U64.pack(0)))
        if after is not None:
            self._interrupt(port, after)

    def _handle(self, port: Port, m: vu.Message) -> tuple[bytes | None, int | None]:
        """The answer the message asks for (None: only an ACK if it wants one), and which of
        this port's queues to interrupt once it is answered."""
        r = m.request
        if r == vu.GET_FEATURES:
            return vu.U64.pack(vu.FEATURES), None
        if r == vu.GET_PROTOCOL_FEATURES:
            return vu.U64.pack(vu.PROTOCOL_FEATURES), None
        if r == vu.GET_CONFIG:
            offset, size, flags = vu.CONFIG.unpack_from(m.payload)
            space = vu.net_config(port.mac).ljust(offset + size, b"\0")
            return vu.CONFIG.pack(offset, size, flags) + space[:size], None
        if r == vu.SET_BACKEND_REQ_FD:
            port.backend = socket.socket(fileno=m.fds.pop())
        elif r == vu.SET_MEM_TABLE:
            if port.memory is not None:
                port.memory.close()
            port.memory = vu.Memory.from_table(m.payload, m.fds)
        elif r in (vu.SET_VRING_NUM, vu.SET_VRING_BASE, vu.SET_VRING_ENABLE, vu.GET_VRING_BASE):
            index, num = vu.VRING_STATE.unpack_from(m.payload)
            queue = port.queues[index]
            if r == vu.SET_VRING_NUM:
                queue.num = num
            elif r == vu.SET_VRING_BASE:
                queue.last_avail = queue.used_idx = num
            elif r == vu.SET_VRING_ENABLE:
                queue.enabled = bool(num)
            else:
                queue.enabled = False
                return vu.VRING_STATE.pack(index, queue.last_avail), None
        elif r == vu.SET_VRING_ADDR:
            index, _flags, desc, used, avail, _log = vu.VRING_ADDR.unpack_from(m.payload)
            port.queues[index].desc, port.queues[index].used, port.queues[index].avail = desc, used, avail
        elif r == vu.VRING_KICK:
            index = vu.VRING_STATE.unpack_from(m.payload)[0]
            return None, self._kick(port, index)
        elif r not in (vu.SET_OWNER, vu.RESET_OWNER, vu.SET_FEATURES, vu.SET_PROTOCOL_FEATURES, vu.SET_CONFIG,
                       vu.SET_VRING_KICK, vu.SET_VRING_CALL, vu.SET_VRING_ERR):
            raise vu.ProtocolError(f"{port.name}: request {r} is not served")
        for fd in m.fds:  # kick/call descriptors: notifications go in-band here
            os.close(fd)
        return None, None

    def _kick(self, port: Port, index: int) -> int | None:
        """The guest posted buffers (RX) or frames (TX); returns the queue to interrupt after the answer."""
        if index == vu.RX:  # interrupted after the answer: the guest is waiting for it now
            return vu.RX if self._fill(port, interrupt=False) else None
        queue, memory = port.queues[vu.TX], port.memory
        if memory is None or not queue.ready:
            return None
        frames = [vu.take_frame(queue, memory) for _ in range(queue.available(memory))]
        port.counts.sent += len(frames)
        self._forward(port, frames)
        return vu.TX if frames and queue.wants_interrupt(memory) else None

    def _forward(self, source: Port, frames: list[bytes]) -> None:
        tap = self.taps.get(source.segment)
        for peer in self.ports:
            if peer is not source and peer.segment == source.segment:
                self._give(peer, frames)
        if tap is not None:
            for frame in frames:
                try:
                    os.write(tap, frame)
                except BlockingIOError:  # the host's side is full: lost, as on a wire
                    source.counts.dropped += 1

    def _give(self, port: Port, frames: list[bytes]) -> None:
        room = HOLD_FRAMES - len(port.held)
        port.held.extend(frames[:max(room, 0)])
        port.counts.dropped += max(len(frames) - max(room, 0), 0)
        self._fill(port)

    def _fill(self, port: Port, interrupt: bool = True) -> bool:
        """Held frames into the guest's receive buffers; True when the guest wants an
        interrupt for them (given here unless `interrupt` is False)."""
        queue, memory = port.queues[vu.RX], port.memory
        if memory is None or not queue.ready or port.conn is None:
            return False
        given = 0
        for _ in range(min(len(port.held), queue.available(memory))):
            vu.give_frame(queue, memory, port.held.popleft())
            given += 1
        port.counts.received += given
        wanted = given > 0 and queue.wants_interrupt(memory)
        if wanted and interrupt:
            self._interrupt(port, vu.RX)
        return wanted

    def _interrupt(self, port: Port, index: int) -> None:
        """VRING_CALL on the backend channel; returns once the guest has the interrupt on the calendar."""
        if port.backend is None:
            return
        try:
            self.calendar.settle(port.guest, ANSWER_TIMEOUT_S)
            port.backend.sendall(vu.pack(vu.BACKEND_VRING_CALL, vu.VRING_STATE.pack(index, 0),
                                         vu.VERSION | vu.FLAG_NEED_REPLY))
            self.calendar.pump(port.backend, ANSWER_TIMEOUT_S)
            answer = vu.receive(port.backend)
        except OSError as e:  # gone, or hung (TimeoutError): the sender's port is not to blame
            print(f"vswitch: {port.name}: {type(e).__name__}: {e}; port closed", flush=True)
            answer = None
        if answer is None:
            self._drop(port)
            return
        port.counts.interrupts += 1

    # -- the host side ---------------------------------------------------------------

    def _from_tap(self, port: Port, fd: int) -> None:
        """Frames from the host (SSH): they reach the guest at the present."""
        frames = []
        while True:
            try:
                frames.append(os.read(fd, MAX_FRAME))
            except BlockingIOError:
                break
        if frames and port.conn is not None:
            self.calendar.present()
            self._give(port, frames)


def _open_tap(name: str) -> int:
    """The lab's tap (made by `ip tuntap add` in the lab's namespace), without packet info."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


def _stop(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(0)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m sctpbench.lab.vswitch CONFIG.json", file=sys.stderr)
        return 2
    config = json.loads(Path(argv[0]).read_text())
    signal.signal(signal.SIGTERM, _stop)
    faulthandler.register(signal.SIGUSR1)  # where it is, in its log, for whoever debugs a stuck lab
    switch = Switch(config)
    signal.signal(signal.SIGUSR2, lambda _s, _f: print(switch.describe(), flush=True))
    print("vswitch: serving", len(switch.ports), "ports", flush=True)
    switch.serve()  # until SIGTERM (exit status 0) or a failure (its traceback in the log)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
