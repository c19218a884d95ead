"""Message channels of PROTOCOL.md 4.1: sysv-mq, posix-mq, sysv-shm.

Every channel is one direction pair seen from one side, behind one small interface:

    capacity                M: the largest message
    send(message)           send one message of at most M bytes (blocking)
    recv_into(view) -> n    receive one message of n bytes; copies min(n, len(view)) bytes
                            into view and, when n > len(view), leaves the rest in `overflow`
    overflow                the bytes of the last message that did not fit (normally empty)
    check()                 raises OSError if the kernel object is gone (server, per client)

Errors surface as OSError (EIDRM and the like) or ReceiveTimeout, so the links and the server
handle them as they handle a broken socket. The stream-over-messages adapter is
links.MessageStream; creation (server) and opening (client) are below.
"""
import errno
import os
import secrets
import struct

import posix_ipc
import sysv_ipc

from ..errors import IoError, ProtocolError, ReceiveTimeout
from .sysvsem import SemaphoreSet, SemaphoreTimeout

CLIENT_TO_SERVER, SERVER_TO_CLIENT = 1, 2
QUEUE_MESSAGE_SIZE = 8192
POSIX_MAX_MESSAGES = 10
SHM_SLOT = 1 << 20
SHM_LENGTH = struct.Struct("<Q")
SHM_SLOT_SPAN = SHM_LENGTH.size + SHM_SLOT
SHM_SIZE = 2 * SHM_SLOT_SPAN  # 2097168
# Semaphores of the set: EMPTY and FULL per direction.
EMPTY = {CLIENT_TO_SERVER: 0, SERVER_TO_CLIENT: 2}
FULL = {CLIENT_TO_SERVER: 1, SERVER_TO_CLIENT: 3}
SEM_INITIAL = (1, 0, 1, 0)

SYSV_TAG = 0x1C1A0000
KEY_ATTEMPTS = 100
PRIVATE = 0o600
_EMPTY = b""
IPC_ERRORS = (sysv_ipc.Error, posix_ipc.Error)


def directions(server):
    """(send direction, receive direction) of one side."""
    if server:
        return SERVER_TO_CLIENT, CLIENT_TO_SERVER
    return CLIENT_TO_SERVER, SERVER_TO_CLIENT


def gone(what, err):
    return OSError(errno.EIDRM, f"{what}: {err}")


class SysvQueueChannel:
    """One System V queue for both directions; mtype is the direction. A load client's
    connection (PROTOCOL.md 11.5.5) receives from the server's reply queue `replies` instead,
    only its own mtype `reply_type`."""

    capacity = QUEUE_MESSAGE_SIZE

    def __init__(self, queue, server, replies=None, reply_type=None):
        self.queue = queue
        self.overflow = _EMPTY
        self._send_type, self._recv_type = directions(server)
        receive_from = queue
        if replies is not None:
            receive_from, self._recv_type = replies, reply_type
        self._send, self._receive = queue.send, receive_from.receive

    def send(self, message):
        try:
            self._send(message, True, self._send_type)
        except sysv_ipc.ExistentialError as err:
            raise gone("the server's queue was removed", err) from None

    def recv_into(self, view):
        # sysv_ipc's receive has no timeout: a client waits until the message arrives or the
        # queue is removed (the orchestrator removes a dead server's queue: EIDRM).
        try:
            message = self._receive(True, self._recv_type)[0]
        except sysv_ipc.ExistentialError as err:
            raise gone("the server's queue was removed", err) from None
        return _copy_message(self, message, view)

    def check(self):
        try:
            self.queue.current_messages
        except sysv_ipc.ExistentialError as err:
            raise gone("the queue was removed", err) from None


class PosixQueueChannel:
    """Two POSIX queues, one per direction; a client's waits are bounded by its timeout."""

    capacity = QUEUE_MESSAGE_SIZE

    def __init__(self, send_queue, receive_queue, timeout=None):
        self.queues = (send_queue, receive_queue)
        self.overflow = _EMPTY
        self._timeout = timeout
        self._send, self._receive = send_queue.send, receive_queue.receive

    def send(self, message):
        try:
            self._send(message, self._timeout)
        except posix_ipc.BusyError:
            raise ReceiveTimeout(f"queue full for {self._timeout:g} s") from None

    def recv_into(self, view):
        try:
            message = self._receive(self._timeout)[0]
        except posix_ipc.BusyError:
            raise ReceiveTimeout(f"no message within {self._timeout:g} s") from None
        return _copy_message(self, message, view)

    def check(self):
        pass  # an open queue lives until its last descriptor is closed

    def close(self):
        for queue in self.queues:
            queue.close()


def _copy_message(channel, message, view):
    size = len(message)
    if size <= len(view):
        view[:size] = message
    else:
        room = len(view)
        view[:room] = memoryview(message)[:room]
        channel.overflow = memoryview(message)[room:]
    return size


class ShmChannel:
    """One slot per direction in a System V segment, guarded by EMPTY/FULL semaphores."""

    capacity = SHM_SLOT

    def __init__(self, memory, semaphores, server, timeout=None):
        self.memory = memory
        self.overflow = _EMPTY
        self._semaphores = semaphores
        send_dir, recv_dir = directions(server)
        self._send_at = (send_dir - 1) * SHM_SLOT_SPAN
        self._recv_at = (recv_dir - 1) * SHM_SLOT_SPAN
        op = semaphores.operation
        self._take_empty = op(EMPTY[send_dir], -1, timeout)
        self._post_full = op(FULL[send_dir], 1)
        self._take_full = op(FULL[recv_dir], -1, timeout)
        self._post_empty = op(EMPTY[recv_dir], 1)
        self._timeout = timeout

    def send(self, message):
        size, at = len(message), self._send_at
        try:
            self._take_empty()
        except SemaphoreTimeout:
            raise ReceiveTimeout(f"slot still full after {self._timeout:g} s") from None
        SHM_LENGTH.pack_into(self.memory, at, size)
        at += SHM_LENGTH.size
        self.memory[at:at + size] = message
        self._post_full()

    def recv_into(self, view):
        at = self._recv_at
        try:
            self._take_full()
        except SemaphoreTimeout:
            raise ReceiveTimeout(f"no message within {self._timeout:g} s") from None
        size = SHM_LENGTH.unpack_from(self.memory, at)[0]
        at += SHM_LENGTH.size
        if size > SHM_SLOT:
            self._post_empty()
            raise ProtocolError(f"slot length {size} above {SHM_SLOT}")  # PROTOCOL.md 4.1
        room = len(view)
        if size <= room:
            view[:size] = self.memory[at:at + size]
        else:
            view[:room] = self.memory[at:at + room]
            self.overflow = bytes(self.memory[at + room:at + size])
        self._post_empty()
        return size

    def check(self):
        self._semaphores.check()


# ---- server: create exclusively with the ipclab tag ------------------------------------------


def removal(remove, *arguments):
    """A clean-up callable that treats an object already gone as removed."""
    def run():
        try:
            remove(*arguments)
        except (sysv_ipc.ExistentialError, posix_ipc.ExistentialError):
            pass
        except OSError as err:
            if err.errno not in (errno.EIDRM, errno.EINVAL):
                raise
    return run


def _draw_keys():
    for _ in range(KEY_ATTEMPTS):
        yield SYSV_TAG | (secrets.randbelow(0xFFFF) + 1)
    raise IoError(f"no free System V key with the ipclab tag after {KEY_ATTEMPTS} attempts")


def format_sysv(key):
    return f"sysv:0x{key:08x}"


def create_sysv_queue(created):
    """msgget(IPC_CREAT | IPC_EXCL | 0600) on a tagged key; `created(remove)` registers the
    removal with the server's clean-up as soon as the queue exists."""
    for key in _draw_keys():
        try:
            queue = sysv_ipc.MessageQueue(key, sysv_ipc.IPC_CREX, PRIVATE,
                                          max_message_size=QUEUE_MESSAGE_SIZE)
        except sysv_ipc.ExistentialError:
            continue
        created(removal(sysv_ipc.remove_message_queue, queue.id))
        return key, queue


def create_posix_queues(prefix, created):
    queues = []
    for direction in (CLIENT_TO_SERVER, SERVER_TO_CLIENT):
        name = f"{prefix}-{direction}"
        try:
            queue = posix_ipc.MessageQueue(name, posix_ipc.O_CREX, PRIVATE,
                                           POSIX_MAX_MESSAGES, QUEUE_MESSAGE_SIZE)
        except posix_ipc.ExistentialError:
            raise IoError(f"{name}: a POSIX message queue with this name exists") from None
        created(removal(posix_ipc.unlink_message_queue, name))
        queues.append(queue)
    return queues


def create_shm(created):
    """A segment and a set of four semaphores under one tagged key (IPC_EXCL on both)."""
    for key in _draw_keys():
        try:
            memory = sysv_ipc.SharedMemory(key, sysv_ipc.IPC_CREX, PRIVATE, SHM_SIZE,
                                           init_character=b"\0")
        except sysv_ipc.ExistentialError:
            continue
        created(removal(sysv_ipc.remove_shared_memory, memory.id))
        try:
            semaphores = SemaphoreSet.create(key, len(SEM_INITIAL), PRIVATE)
        except FileExistsError:
            memory.detach()
            sysv_ipc.remove_shared_memory(memory.id)
            continue
        created(removal(semaphores.remove))
        semaphores.set_all(SEM_INITIAL)
        return key, memory, semaphores


# ---- client: open what the server's READY named ----------------------------------------------


def open_sysv_queue(key):
    try:
        return sysv_ipc.MessageQueue(key, 0, max_message_size=QUEUE_MESSAGE_SIZE)
    except sysv_ipc.Error as err:
        raise IoError(f"cannot open the System V queue 0x{key:08x}: {err}") from None


def open_posix_queues(prefix, timeout):
    queues = []
    try:
        for direction in (CLIENT_TO_SERVER, SERVER_TO_CLIENT):
            queues.append(posix_ipc.MessageQueue(f"{prefix}-{direction}"))
    except posix_ipc.Error as err:
        for queue in queues:
            queue.close()
        raise IoError(f"cannot open the POSIX queue {prefix}-{len(queues) + 1}: {err}") from None
    return PosixQueueChannel(queues[0], queues[1], timeout)


def open_shm(key, timeout):
    try:
        memory = sysv_ipc.SharedMemory(key, 0)
    except sysv_ipc.Error as err:
        raise IoError(f"cannot attach the System V segment 0x{key:08x}: {err}") from None
    if memory.size < SHM_SIZE:
        memory.detach()
        raise IoError(f"the segment 0x{key:08x} has {memory.size} bytes, not {SHM_SIZE}")
    try:
        semaphores = SemaphoreSet.open(key, len(SEM_INITIAL))
    except OSError as err:
        memory.detach()
        raise IoError(f"cannot open the semaphore set 0x{key:08x}: {os.strerror(err.errno)}") \
            from None
    return ShmChannel(memoryview(memory), semaphores, server=False, timeout=timeout)
