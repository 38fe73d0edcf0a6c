"""The device side of vhost-user for UML's virtio_uml: one virtio-net NIC of one guest.

A guest booted with `virtio_uml.device=SOCKET:1` connects to SOCKET and drives a virtio-net
device over it (the messages are the kernel's arch/um/drivers/vhost_user.h). The device
offers what virtio_uml needs to tell the time-travel calendar about every frame it is
given: REPLY_ACK, a backend channel (SLAVE_REQ) and in-band notifications, so the guest's
kicks arrive as VRING_KICK messages here and this side's interrupts go to the guest as
VRING_CALL messages on the backend channel, each answered only once the guest has asked the
calendar to run it (virtio_uml.c, vu_req_read_message). Features: VERSION_1 and MAC only, so
frames come whole (no checksum offload, no GSO) behind a 12-byte header.

The guest's memory arrives as file descriptors (SET_MEM_TABLE) and is mapped here; the
queues are split virtqueues read and written in place.
"""

from __future__ import annotations

import mmap
import socket
import struct
from dataclasses import dataclass, field

HEADER = struct.Struct("<III")  # request, flags, size
U64 = struct.Struct("<Q")
VRING_STATE = struct.Struct("<II")  # index, num
VRING_ADDR = struct.Struct("<IIQQQQ")  # index, flags, desc, used, avail, log
REGION = struct.Struct("<QQQQ")  # guest_addr, size, user_addr, mmap_offset
CONFIG = struct.Struct("<III")  # offset, size, flags (then the bytes)
DESC = struct.Struct("<QIHH")  # addr, len, flags, next
USED_ELEM = struct.Struct("<II")  # id, len
U16 = struct.Struct("<H")

VERSION = 1
FLAG_REPLY = 1 << 2
FLAG_NEED_REPLY = 1 << 3

GET_FEATURES, SET_FEATURES, SET_OWNER, RESET_OWNER, SET_MEM_TABLE = 1, 2, 3, 4, 5
SET_VRING_NUM, SET_VRING_ADDR, SET_VRING_BASE, GET_VRING_BASE = 8, 9, 10, 11
SET_VRING_KICK, SET_VRING_CALL, SET_VRING_ERR = 12, 13, 14
GET_PROTOCOL_FEATURES, SET_PROTOCOL_FEATURES, GET_QUEUE_NUM, SET_VRING_ENABLE = 15, 16, 17, 18
SET_BACKEND_REQ_FD, GET_CONFIG, SET_CONFIG, VRING_KICK = 21, 24, 25, 35
BACKEND_VRING_CALL = 4

F_PROTOCOL_FEATURES = 1 << 30
VIRTIO_F_VERSION_1 = 1 << 32
VIRTIO_NET_F_MAC = 1 << 5
FEATURES = VIRTIO_F_VERSION_1 | VIRTIO_NET_F_MAC | F_PROTOCOL_FEATURES
P_REPLY_ACK, P_BACKEND_REQ, P_CONFIG, P_INBAND = 1 << 3, 1 << 5, 1 << 9, 1 << 14
PROTOCOL_FEATURES = P_REPLY_ACK | P_BACKEND_REQ | P_CONFIG | P_INBAND

DESC_F_NEXT, DESC_F_WRITE, DESC_F_INDIRECT = 1, 2, 4
AVAIL_F_NO_INTERRUPT = 1
NET_HEADER_LEN = 12  # struct virtio_net_hdr_v1 (VERSION_1 always has num_buffers)
RX, TX = 0, 1
MAX_MESSAGE = 4096


class ProtocolError(Exception):
    """The guest sent what this device cannot serve: the port is dropped."""


@dataclass
class Message:
    request: int
    flags: int
    payload: bytes
    fds: list[int] = field(default_factory=list)

    @property
    def needs_reply(self) -> bool:
        return bool(self.flags & FLAG_NEED_REPLY)


def pack(request: int, payload: bytes, flags: int = VERSION) -> bytes:
    return HEADER.pack(request, flags, len(payload)) + payload


def reply(message: Message, payload: bytes) -> bytes:
    return pack(message.request, payload, VERSION | FLAG_REPLY)


def receive(sock: socket.socket) -> Message | None:
    """One whole message (with the descriptors sent along), or None when the peer closed."""
    data, fds, _flags, _addr = socket.recv_fds(sock, HEADER.size, 8)
    if not data:
        return None
    while len(data) < HEADER.size:
        more = sock.recv(HEADER.size - len(data))
        if not more:
            return None
        data += more
    request, flags, size = HEADER.unpack(data)
    if size > MAX_MESSAGE:
        raise ProtocolError(f"message {request} of {size} bytes")
    payload = b""
    while len(payload) < size:
        more, extra, _f, _a = socket.recv_fds(sock, size - len(payload), 8)
        if not more:
            return None
        payload += more
        fds += extra
    return Message(request, flags, payload, fds)


@dataclass
class Region:
    guest_addr: int
    size: int
    memory: mmap.mmap


@dataclass
class Memory:
    """The guest's memory as SET_MEM_TABLE shared it; addresses are the guest's physical ones."""

    regions: list[Region] = field(default_factory=list)

    @classmethod
    def from_table(cls, payload: bytes, fds: list[int]) -> Memory:
        count = struct.unpack_from("<I", payload)[0]
        if count != len(fds):
            raise ProtocolError(f"SET_MEM_TABLE: {count} regions, {len(fds)} descriptors")
        regions = []
        for i, fd in enumerate(fds):
            guest_addr, size, _user, offset = REGION.unpack_from(payload, 8 + i * REGION.size)
            regions.append(Region(guest_addr, size, mmap.mmap(fd, size, mmap.MAP_SHARED,
                                                              mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)))
        return cls(regions)

    def _find(self, addr: int, length: int) -> tuple[mmap.mmap, int]:
        for r in self.regions:
            if r.guest_addr <= addr and addr + length <= r.guest_addr + r.size:
                return r.memory, addr - r.guest_addr
        raise ProtocolError(f"address {addr:#x}+{length} is outside the guest's shared memory")

    def read(self, addr: int, length: int) -> bytes:
        memory, at = self._find(addr, length)
        return memory[at:at + length]

    def write(self, addr: int, data: bytes) -> None:
        memory, at = self._find(addr, len(data))
        memory[at:at + len(data)] = data

    def close(self) -> None:
        for r in self.regions:
            r.memory.close()
        self.regions = []


@dataclass
class Virtqueue:
    """A split virtqueue: the guest offers chains in `avail`, the device returns them in `used`."""

    num: int = 0
    desc: int = 0
    avail: int = 0
    used: int = 0
    last_avail: int = 0  # the next avail entry this side has not taken
    used_idx: int = 0
    enabled: bool = False

    @property
    def ready(self) -> bool:
        return self.enabled and self.num > 0 and self.desc != 0

    def available(self, memory: Memory) -> int:
        idx = U16.unpack(memory.read(self.avail + 2, 2))[0]
        return (idx - self.last_avail) & 0xFFFF

    def wants_interrupt(self, memory: Memory) -> bool:
        return not U16.unpack(memory.read(self.avail, 2))[0] & AVAIL_F_NO_INTERRUPT

    def pop(self, memory: Memory) -> tuple[int, list[tuple[int, int, int]]]:
        """The next chain offered: its head and its (addr, len, flags) descriptors."""
        slot = self.avail + 4 + 2 * (self.last_avail % self.num)
        head = U16.unpack(memory.read(slot, 2))[0]
        self.last_avail = (self.last_avail + 1) & 0xFFFF
        chain, index = [], head
        for _ in range(self.num):
            addr, length, flags, nxt = DESC.unpack(memory.read(self.desc + DESC.size * index, DESC.size))
            if flags & DESC_F_INDIRECT:
                raise ProtocolError("indirect descriptors were not offered")
            chain.append((addr, length, flags))
            if not flags & DESC_F_NEXT:
                return head, chain
            index = nxt
        raise ProtocolError("a descriptor chain loops")

    def push(self, memory: Memory, head: int, written: int) -> None:
        """Give a chain back, `written` bytes filled in; the element before the index, as the guest reads them."""
        memory.write(self.used + 4 + USED_ELEM.size * (self.used_idx % self.num), USED_ELEM.pack(head, written))
        self.used_idx = (self.used_idx + 1) & 0xFFFF
        memory.write(self.used + 2, U16.pack(self.used_idx))


def take_frame(queue: Virtqueue, memory: Memory) -> bytes:
    """One frame the guest sends (TX chain), without its virtio-net header; the chain is given back."""
    head, chain = queue.pop(memory)
    data = b"".join(memory.read(addr, length) for addr, length, flags in chain if not flags & DESC_F_WRITE)
    queue.push(memory, head, 0)
    return data[NET_HEADER_LEN:]


def give_frame(queue: Virtqueue, memory: Memory, frame: bytes) -> None:
    """Write one frame into the next receive chain (header: no offload, one buffer)."""
    head, chain = queue.pop(memory)
    data = bytes(NET_HEADER_LEN - 2) + U16.pack(1) + frame
    written = 0
    for addr, length, flags in chain:
        if not flags & DESC_F_WRITE or written >= len(data):
            continue
        part = data[written:written + length]
        memory.write(addr, part)
        written += len(part)
    queue.push(memory, head, min(written, len(data)))


def net_config(mac: str) -> bytes:
    """virtio-net's config space: the MAC, then status, queue pairs and MTU (not offered, zero)."""
    return bytes(int(b, 16) for b in mac.split(":")) + bytes(6)
