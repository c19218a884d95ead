"""PROTOCOL.md 4.3: shm, shm-spin, shm-futex -- a one-slot hand-off per direction in POSIX
shared memory, with a pair of counters (seq, ack) per direction instead of semaphores.

Layout: each side writes only its own 64-byte line (client at 0, server at 64): its seq, its
ack of the other direction, its message length and, for messages of at most 48 bytes, the
message itself; so a small hand-off moves one cache line. Longer messages go through the slots.

The channel has the message-channel interface of channels.py (capacity, send, recv_into,
overflow, check) and is carried by links.MessageStream like the other message channels.

Memory ordering. Python has no atomics and no fences. The counters are read and written as
naturally aligned little-endian u32 through a memoryview cast to 'I', which CPython turns into
one aligned 4-byte load or store. On x86-64 (TSO) stores are not reordered with other stores
and loads not with other loads, and CPython's interpreter performs the accesses of successive
statements in program order (each is an opaque C call the compiler cannot move across), so:
slot bytes -> length -> seq (the sender's stores) become visible in that order (release), and
the receiver's load of seq comes before its loads of length and slot (acquire). The one
reordering TSO allows, a later load passing an earlier store, matters only for the futex
wake decision: a side that cannot fence cannot read `sleepers` safely after storing a counter,
so this peer always calls FUTEX_WAKE in futex and hybrid mode (the contract allows an extra
wake). The atomic increment and decrement of `sleepers` (which C++ and Java peers read) are
done by the kernel: futex(FUTEX_WAKE_OP) with nr_wake 0 performs an atomic `*uaddr2 += arg`
(a locked instruction, so also a full barrier) and wakes nobody.

This is x86-64 (and Linux) specific; syscall 202 is futex on x86-64 only.
"""
import ctypes
import errno
import mmap
import os
import platform
import time

import posix_ipc

from ..errors import IoError, ReceiveTimeout

SLOT = 1 << 20
SLOTS_AT = 4096
SIZE = SLOTS_AT + 2 * SLOT  # 2101248
INLINE = 48  # messages up to this size travel in the sender's line
LINE = 64
SLEEPERS_AT = 128
CLIENT_TO_SERVER, SERVER_TO_CLIENT = 1, 2
# How a side waits (PROTOCOL.md 4.3); which mechanism uses which is in mechanisms.py.
HYBRID, SPIN, FUTEX = "hybrid", "spin", "futex"
SUFFIX = "-shm"
PRIVATE = 0o600
MASK = 0xFFFFFFFF

SYS_FUTEX = 202  # x86-64
FUTEX_WAIT, FUTEX_WAKE, FUTEX_WAKE_OP = 0, 1, 5
INT_MAX = 2**31 - 1
# FUTEX_OP(FUTEX_OP_ADD, arg, FUTEX_OP_CMP_EQ, 0): op 1 << 28, oparg in bits 12..23 (signed).
_FUTEX_OP_ADD = 1 << 28
SLEEPER_IN = _FUTEX_OP_ADD | (1 << 12)
SLEEPER_OUT = _FUTEX_OP_ADD | ((-1 & 0xFFF) << 12)
# Spin-only waits look at the clock once per this many checks (client: --io-timeout).
SPIN_CHECKS = 4096


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.argtypes = [ctypes.c_long] * 7
_syscall.restype = ctypes.c_long


def _offsets(direction):
    """Word indexes (u32) of the direction's seq, ack, length and sleepers, and the byte
    offsets of its slot and of its inline message. seq, length and the inline message are in
    the sender's line, ack in the receiver's (at 4 in each line)."""
    sender, receiver = (direction - 1) * LINE, (2 - direction) * LINE
    return (sender // 4, (receiver + 4) // 4, (sender + 8) // 4,
            (SLEEPERS_AT + (direction - 1) * LINE) // 4,
            SLOTS_AT + (direction - 1) * SLOT, sender + 16)


def check_platform():
    if platform.machine() not in ("x86_64", "AMD64"):
        raise IoError(f"shm mechanisms need x86-64 (TSO, futex syscall 202), "
                      f"not {platform.machine()}")


class ShmChannel:
    """One side of the two directions. `server` picks the directions; `mode` is spin, futex
    or hybrid; `timeout` (seconds, client only) bounds every wait."""

    capacity = SLOT

    def __init__(self, memory, server, mode, spin_us=50, timeout=None):
        self.memory = memory
        self.overflow = b""
        self.mode = mode
        self._bytes = memoryview(memory)
        self._words = self._bytes.cast("I")
        send_dir, recv_dir = ((SERVER_TO_CLIENT, CLIENT_TO_SERVER) if server
                              else (CLIENT_TO_SERVER, SERVER_TO_CLIENT))
        (self._s_seq, self._s_ack, self._s_len, self._s_sleep,
         self._s_slot, self._s_inline) = _offsets(send_dir)
        (self._r_seq, self._r_ack, self._r_len, self._r_sleep,
         self._r_slot, self._r_inline) = _offsets(recv_dir)
        words = self._words
        # This side is the only writer of its send seq and receive ack: kept locally.
        self._seq = words[self._s_seq]
        self._ack = words[self._r_ack]
        self._spin_ns = spin_us * 1000
        self._timeout = timeout
        self._timeout_ns = None if timeout is None else int(timeout * 1e9)
        self._keep = []
        self._addr = {i: self._address(i) for i in (self._s_seq, self._s_ack, self._s_sleep,
                                                    self._r_seq, self._r_ack, self._r_sleep)}
        if timeout is None:
            self._timespec = None
        else:
            seconds = min(timeout, 10**9)
            spec = _Timespec(int(seconds), int((seconds - int(seconds)) * 1e9))
            self._keep.append(spec)
            self._timespec = ctypes.addressof(spec)
        self._wake = (lambda address: None) if mode == SPIN else self._futex_wake

    def _address(self, index):
        word = ctypes.c_uint32.from_buffer(self.memory, index * 4)
        self._keep.append(word)
        return ctypes.addressof(word)

    # ---- the hand-off ------------------------------------------------------------------------

    def send(self, message):
        words, index = self._words, self._s_ack
        seq = self._seq
        if words[index] != seq:  # the slot is still full
            self._wait(index, seq, equal=True, sleepers=self._s_sleep, what="slot still full")
        size = len(message)
        at = self._s_inline if size <= INLINE else self._s_slot
        self._bytes[at:at + size] = message
        words[self._s_len] = size
        seq = (seq + 1) & MASK
        self._seq = seq
        words[self._s_seq] = seq  # release: after the slot and length (TSO store order)
        self._wake(self._addr[self._s_seq])

    def recv_into(self, view):
        words, index = self._words, self._r_seq
        ack = self._ack
        if words[index] == ack:  # nothing there yet
            self._wait(index, ack, equal=False, sleepers=self._r_sleep, what="no message")
        size = words[self._r_len]  # acquire: loaded after seq (TSO load order)
        at = self._r_inline if size <= INLINE else self._r_slot
        if size > SLOT:
            self._consumed()
            raise OSError(errno.EMSGSIZE, f"a slot claims {size} bytes, more than {SLOT}")
        room = len(view)
        if size <= room:
            view[:size] = self._bytes[at:at + size]
        else:
            view[:room] = self._bytes[at:at + room]
            self.overflow = bytes(self._bytes[at + room:at + size])
        self._consumed()
        return size

    def _consumed(self):
        ack = (self._ack + 1) & MASK
        self._ack = ack
        self._words[self._r_ack] = ack
        self._wake(self._addr[self._r_ack])

    def check(self):
        pass  # a mapping lives until it is unmapped, whatever happens to the name

    # ---- waiting -----------------------------------------------------------------------------

    def _wait(self, index, value, equal, sleepers, what):
        """Waits until words[index] == value (equal) or != value (not equal)."""
        if self.mode == SPIN:
            self._spin(index, value, equal, None, what)
            return
        if self.mode == HYBRID and self._spin_ns:
            if self._spin(index, value, equal, self._spin_ns, what):
                return
        self._sleep(index, value, equal, sleepers, what)

    def _spin(self, index, value, equal, limit_ns, what):
        """Re-reads the word; True once the condition holds, False after limit_ns
        (hybrid). Without a limit, a client gives up after its timeout."""
        words, clock = self._words, time.perf_counter_ns
        limit = limit_ns if limit_ns is not None else self._timeout_ns
        deadline = None if limit is None else clock() + limit
        while True:
            for _ in range(SPIN_CHECKS if limit_ns is None else 64):
                if (words[index] == value) == equal:
                    return True
            if deadline is not None and clock() > deadline:
                if limit_ns is not None:
                    return False
                raise ReceiveTimeout(f"{what} after {self._timeout:g} s")

    def _sleep(self, index, value, equal, sleepers, what):
        words, address = self._words, self._addr[index]
        sleepers_address = self._addr[sleepers]
        self._sleepers(sleepers_address, SLEEPER_IN)
        try:
            while True:
                observed = words[index]
                if (observed == value) == equal:
                    return
                if _syscall(SYS_FUTEX, address, FUTEX_WAIT, observed, self._timespec or 0,
                            0, 0) != 0:
                    err = ctypes.get_errno()
                    if err == errno.ETIMEDOUT:
                        raise ReceiveTimeout(f"{what} within {self._timeout:g} s")
                    if err not in (errno.EAGAIN, errno.EINTR):
                        raise OSError(err, f"futex wait: {os.strerror(err)}")
        finally:
            self._sleepers(sleepers_address, SLEEPER_OUT)

    @staticmethod
    def _sleepers(address, op):
        """Atomic sleepers += 1 or -= 1 by the kernel (FUTEX_WAKE_OP, waking nobody)."""
        if _syscall(SYS_FUTEX, address, FUTEX_WAKE_OP, 0, 0, address, op) < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"futex wake-op: {os.strerror(err)}")

    @staticmethod
    def _futex_wake(address):
        # Unconditional: without a fence this side cannot trust a read of `sleepers`.
        _syscall(SYS_FUTEX, address, FUTEX_WAKE, INT_MAX, 0, 0, 0)


def create(mode, prefix, created, spin_us):
    """Server: shm_open(O_CREAT | O_EXCL, 0600) + ftruncate (zero-filled) + mmap."""
    check_platform()
    name = prefix + SUFFIX
    try:
        shared = posix_ipc.SharedMemory(name, posix_ipc.O_CREX, PRIVATE, SIZE)
    except posix_ipc.ExistentialError:
        raise IoError(f"{name}: a POSIX shared memory object with this name exists") from None
    created(_unlinker(name))
    try:
        memory = mmap.mmap(shared.fd, SIZE)
    finally:
        shared.close_fd()
    return ShmChannel(memory, server=True, mode=mode, spin_us=spin_us)


def _unlinker(name):
    def unlink():
        try:
            posix_ipc.unlink_shared_memory(name)
        except posix_ipc.ExistentialError:
            pass
    return unlink


def open_client(mode, prefix, timeout, spin_us):
    check_platform()
    name = prefix + SUFFIX
    try:
        shared = posix_ipc.SharedMemory(name)
    except posix_ipc.Error as err:
        raise IoError(f"cannot open the POSIX shared memory {name}: {err}") from None
    try:
        size = os.fstat(shared.fd).st_size
        if size < SIZE:
            raise IoError(f"{name} has {size} bytes, not {SIZE}")
        memory = mmap.mmap(shared.fd, SIZE)
    finally:
        shared.close_fd()
    return ShmChannel(memory, server=False, mode=mode, spin_us=spin_us,
                      timeout=timeout)
