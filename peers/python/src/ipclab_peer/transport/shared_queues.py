"""Pattern load over a message queue (PROTOCOL.md 11.5.5): one request queue shared by every
client connection, a reply address per connection. Server and client sides of sysv-mq and
posix-mq; the server's loop is load/queue_server.py, the client's connection load/frames.py.

    REQUEST / END     one message on the request queue (sysv: mtype 1); its `flags` are the
                      reply address 0x8000 + c of connection c
    RESPONSE / END_ACK  cut into messages of M = 8192 bytes (4.1) to connection c's address:
                      sysv: the reply queue K | 0x8000 with mtype 2 + c;
                      posix: the queue /ipclab-<server pid>-r<c>, made by the client

Server queues: `endpoint` (READY), `receive()` -> one request message (bytes), `reply(c,
frame)`, `ended(c)` after END_ACK. The client side is `connect_all(endpoint, config)`, a
context manager giving the C links (links.MessageStream) and removing what it made.
"""
import contextlib
import math
import os
import secrets
import threading
from dataclasses import dataclass
from typing import Callable

import posix_ipc
import sysv_ipc

from ..errors import IoError, Unsupported, report
from ..frame import HEADER_SIZE
from . import channels
from .links import MessageStream

REPLY_ADDRESS = 0x8000
MAX_CONNECTIONS = 1024  # reply addresses 0x8000 ... 0x83FF
M = channels.QUEUE_MESSAGE_SIZE
MAX_REQUEST = M - HEADER_SIZE  # a REQUEST is one message: 8168
REQUEST_TYPE = 1
REPLY_KEY_BIT = 0x8000
REQUEST_KEY_RANGE = 0x7FFF  # r in 1 ... 0x7FFF, so that K | 0x8000 is a key of its own


def pieces(frame):
    """A frame's messages (4.1): M bytes each, the last one shorter."""
    if len(frame) <= M:
        return (frame,)
    view = memoryview(frame)
    return [view[start:start + M] for start in range(0, len(view), M)]


def _format_keys(request_key, reply_key):
    return f"{channels.format_sysv(request_key)},0x{reply_key:08x}"


# ---- server -----------------------------------------------------------------------------


class SysvServerQueues:
    """The request queue K and the reply queue K | 0x8000 (msgsnd blocks, as in 4.1)."""

    def __init__(self, created):
        self.request_key, requests, replies = _create_sysv_pair(created)
        self.endpoint = _format_keys(self.request_key, self.request_key | REPLY_KEY_BIT)
        self._receive, self._send = requests.receive, replies.send

    def receive(self):
        try:
            return self._receive(True, REQUEST_TYPE)[0]
        except sysv_ipc.ExistentialError as err:
            raise channels.gone("the request queue was removed", err) from None

    def reply(self, connection, frame):
        send, mtype = self._send, 2 + connection
        try:
            for piece in pieces(frame):
                send(piece, True, mtype)
        except sysv_ipc.ExistentialError as err:
            raise channels.gone("the reply queue was removed", err) from None

    def ended(self, connection):
        pass


def _create_sysv_pair(created):
    """Two queues under K and K | 0x8000, both exclusive; a taken key of either draws again
    (what was made for the draw is removed first)."""
    for _ in range(channels.KEY_ATTEMPTS):
        key = channels.SYSV_TAG | (secrets.randbelow(REQUEST_KEY_RANGE) + 1)
        try:
            requests = _sysv_queue(key)
        except sysv_ipc.ExistentialError:
            continue
        remove_requests = channels.removal(sysv_ipc.remove_message_queue, requests.id)
        try:
            replies = _sysv_queue(key | REPLY_KEY_BIT)
        except sysv_ipc.ExistentialError:
            remove_requests()
            continue
        created(remove_requests)
        created(channels.removal(sysv_ipc.remove_message_queue, replies.id))
        return key, requests, replies
    raise IoError(f"no free pair of System V keys with the ipclab tag after "
                  f"{channels.KEY_ATTEMPTS} attempts")


def _sysv_queue(key):
    return sysv_ipc.MessageQueue(key, sysv_ipc.IPC_CREX, channels.PRIVATE,
                                 max_message_size=M)


class PosixServerQueues:
    """The request queue /ipclab-<pid>-1; each client's reply queue is opened when first
    needed (O_WRONLY | O_NONBLOCK: a full one drops the answer instead of blocking a
    worker) and kept until that connection's END. Every reply queue opened is closed and
    unlinked at exit."""

    def __init__(self, prefix, created):
        self.endpoint = f"posix:{prefix}"
        self._prefix = prefix
        name = f"{prefix}-{channels.CLIENT_TO_SERVER}"
        try:
            requests = posix_ipc.MessageQueue(name, posix_ipc.O_CREX, channels.PRIVATE,
                                              channels.POSIX_MAX_MESSAGES, M, write=False)
        except posix_ipc.ExistentialError:
            raise IoError(f"{name}: a POSIX message queue with this name exists") from None
        created(channels.removal(posix_ipc.unlink_message_queue, name))
        self._receive = requests.receive
        self._replies = {}
        self._opened = set()
        self._opening = threading.Lock()
        created(self._remove_replies)

    def receive(self):
        return self._receive()[0]

    def reply(self, connection, frame):
        queue = self._replies.get(connection) or self._open(connection)
        if queue is None:
            return
        try:
            for piece in pieces(frame):
                queue.send(piece)
        except posix_ipc.BusyError:
            report("io", f"{queue.name} is full (more than one request outstanding): "
                         "answer dropped")
        except (posix_ipc.Error, OSError) as err:  # the client is gone, or a size it refuses
            report("io", f"{queue.name}: {err}: answer dropped")

    def ended(self, connection):
        """After END_ACK: the client unlinks its queue when it ends, and a later client
        makes a new one under the same name, which a kept descriptor would not reach."""
        queue = self._replies.pop(connection, None)
        if queue is not None:
            queue.close()

    def _open(self, connection):
        name = f"{self._prefix}-r{connection}"
        with self._opening:
            try:
                queue = posix_ipc.MessageQueue(name, posix_ipc.O_NONBLOCK, read=False)
            except (posix_ipc.Error, OSError) as err:  # the client is gone, or EMFILE
                report("io", f"cannot open the reply queue {name}: {err}: answer dropped")
                return None
            self._opened.add(name)
            self._replies[connection] = queue
        return queue

    def _remove_replies(self):
        for queue in list(self._replies.values()):
            queue.close()
        for name in self._opened:
            channels.removal(posix_ipc.unlink_message_queue, name)()


# ---- client -----------------------------------------------------------------------------


def _check_request(config):
    if config.request_size > MAX_REQUEST:
        raise Unsupported(f"--request-size {config.request_size}: a load request over a "
                          f"message queue is one message, at most {MAX_REQUEST} payload bytes")


@contextlib.contextmanager
def connect_sysv(endpoint, config):
    """Connection c sends on the request queue (mtype 1) and receives mtype 2 + c from the
    reply queue; sysv_ipc has no timed receive, so a lost answer waits for EIDRM."""
    _check_request(config)
    requests = channels.open_sysv_queue(endpoint.key)
    replies = channels.open_sysv_queue(endpoint.reply)
    yield [MessageStream(channels.SysvQueueChannel(requests, server=False, replies=replies,
                                                   reply_type=2 + c), config.io_timeout)
           for c in range(config.clients)]


def reply_queue_size(response_size):
    """(mq_maxmsg, mq_msgsize) of a reply queue: room for one RESPONSE (or END_ACK)."""
    size = min(M, HEADER_SIZE + max(response_size, 8))
    return min(channels.POSIX_MAX_MESSAGES, math.ceil((HEADER_SIZE + response_size) / size)), size


@contextlib.contextmanager
def connect_posix(endpoint, config):
    """Opens the request queue and creates each connection's reply queue before T0; closes
    them all and unlinks the reply queues at the end, whatever happened."""
    _check_request(config)
    timeout, prefix = config.io_timeout, endpoint.prefix
    with contextlib.ExitStack() as made:
        name = f"{prefix}-{channels.CLIENT_TO_SERVER}"
        requests = _posix_open(name, read=False)
        made.callback(requests.close)
        count, size = reply_queue_size(config.response_size)
        links = []
        for c in range(config.clients):
            name = f"{prefix}-r{c}"
            reply = _posix_open(name, posix_ipc.O_CREX, channels.PRIVATE, count, size,
                                write=False)
            made.callback(channels.removal(posix_ipc.unlink_message_queue, name))
            made.callback(reply.close)
            links.append(MessageStream(channels.PosixQueueChannel(requests, reply, timeout),
                                       timeout))
        yield links


def _posix_open(name, *args, **kwargs):
    try:
        return posix_ipc.MessageQueue(name, *args, **kwargs)
    except (posix_ipc.Error, OSError, ValueError) as err:
        raise IoError(f"cannot open the POSIX queue {name}: {err}") from None


@dataclass(frozen=True)
class SharedQueue:
    """A mechanism's transport for 11.5.5 (mechanisms.Mechanism.shared_queue)."""
    listen: Callable  # (created) -> server queues
    connect_all: Callable  # (endpoint, config) -> context manager of C links


def _listen_posix(created):
    return PosixServerQueues(f"/ipclab-{os.getpid()}", created)


SYSV = SharedQueue(SysvServerQueues, connect_sysv)
POSIX = SharedQueue(_listen_posix, connect_posix)
