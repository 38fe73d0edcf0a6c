"""The vswitch's side of virtio: split virtqueues read and written in shared memory, as a
guest's virtio-net driver lays them out (no kernel needed: the memory is a memfd here)."""

from __future__ import annotations

import os
import struct

import pytest

from sctpbench.lab import vhost_user as vu

BASE = 0x100000  # the guest-physical address the region starts at
NUM = 8
DESC, AVAIL, USED, BUFFERS = BASE, BASE + 0x1000, BASE + 0x2000, BASE + 0x4000


@pytest.fixture
def memory() -> vu.Memory:
    fd = os.memfd_create("guest")
    os.ftruncate(fd, 0x10000)
    table = struct.pack("<II", 1, 0) + vu.REGION.pack(BASE, 0x10000, BASE, 0)
    mem = vu.Memory.from_table(table, [fd])
    os.close(fd)
    yield mem
    mem.close()


def queue() -> vu.Virtqueue:
    return vu.Virtqueue(num=NUM, desc=DESC, avail=AVAIL, used=USED, enabled=True)


def offer(memory: vu.Memory, q: vu.Virtqueue, head: int, parts: list[tuple[int, int, int]], slot: int) -> None:
    """Write a descriptor chain from `head` and put it in the avail ring at `slot` (the driver's side)."""
    for i, (addr, length, flags) in enumerate(parts):
        index = head + i
        more = vu.DESC_F_NEXT if i < len(parts) - 1 else 0
        memory.write(DESC + 16 * index, vu.DESC.pack(addr, length, flags | more, index + 1))
    memory.write(AVAIL + 4 + 2 * (slot % NUM), struct.pack("<H", head))
    memory.write(AVAIL + 2, struct.pack("<H", slot + 1))


def used(memory: vu.Memory) -> tuple[int, list[tuple[int, int]]]:
    idx = struct.unpack("<H", memory.read(USED + 2, 2))[0]
    return idx, [vu.USED_ELEM.unpack(memory.read(USED + 4 + 8 * i, 8)) for i in range(idx)]


def test_a_sent_frame_is_gathered_from_its_chain_without_the_header(memory: vu.Memory) -> None:
    q = queue()
    frame = bytes(range(60))
    memory.write(BUFFERS, bytes(vu.NET_HEADER_LEN) + frame[:20])
    memory.write(BUFFERS + 0x800, frame[20:])
    offer(memory, q, 0, [(BUFFERS, vu.NET_HEADER_LEN + 20, 0), (BUFFERS + 0x800, 40, 0)], 0)
    assert q.available(memory) == 1
    assert vu.take_frame(q, memory) == frame
    assert q.available(memory) == 0
    assert used(memory) == (1, [(0, 0)])


def test_a_received_frame_fills_the_writable_chain_after_a_header_of_one_buffer(memory: vu.Memory) -> None:
    q = queue()
    offer(memory, q, 3, [(BUFFERS, 1526, vu.DESC_F_WRITE)], 0)
    frame = b"\xaa" * 100
    vu.give_frame(q, memory, frame)
    header = memory.read(BUFFERS, vu.NET_HEADER_LEN)
    assert header == bytes(10) + struct.pack("<H", 1)
    assert memory.read(BUFFERS + vu.NET_HEADER_LEN, 100) == frame
    assert used(memory) == (1, [(3, vu.NET_HEADER_LEN + 100)])


def test_the_rings_wrap_and_interrupts_follow_the_drivers_flag(memory: vu.Memory) -> None:
    q = queue()
    for slot in range(NUM + 3):
        memory.write(BUFFERS, bytes(vu.NET_HEADER_LEN) + bytes([slot]) * 14)
        offer(memory, q, 0, [(BUFFERS, vu.NET_HEADER_LEN + 14, 0)], slot)
        assert vu.take_frame(q, memory) == bytes([slot]) * 14
    assert q.used_idx == NUM + 3
    assert q.wants_interrupt(memory)
    memory.write(AVAIL, struct.pack("<H", vu.AVAIL_F_NO_INTERRUPT))
    assert not q.wants_interrupt(memory)


def test_an_address_outside_the_shared_memory_is_refused(memory: vu.Memory) -> None:
    q = queue()
    offer(memory, q, 0, [(BASE - 0x1000, 64, 0)], 0)
    with pytest.raises(vu.ProtocolError, match="outside the guest's shared memory"):
        vu.take_frame(q, memory)


def test_a_looping_chain_is_refused(memory: vu.Memory) -> None:
    q = queue()
    memory.write(DESC, vu.DESC.pack(BUFFERS, 64, vu.DESC_F_NEXT, 0))  # points at itself
    memory.write(AVAIL + 4, struct.pack("<H", 0))
    memory.write(AVAIL + 2, struct.pack("<H", 1))
    with pytest.raises(vu.ProtocolError, match="loops"):
        vu.take_frame(q, memory)


def test_the_config_space_carries_the_mac() -> None:
    assert vu.net_config("02:00:00:00:01:0a")[:6] == bytes([2, 0, 0, 0, 1, 10])


def test_a_message_with_descriptors_is_received_whole() -> None:
    import socket
    a, b = socket.socketpair()
    fd = os.memfd_create("x")
    socket.send_fds(a, [vu.pack(vu.SET_BACKEND_REQ_FD, b"", vu.VERSION | vu.FLAG_NEED_REPLY)], [fd])
    m = vu.receive(b)
    assert m is not None and m.request == vu.SET_BACKEND_REQ_FD and m.needs_reply and len(m.fds) == 1
    for f in (fd, *m.fds):
        os.close(f)
    a.close()
    assert vu.receive(b) is None
    b.close()

