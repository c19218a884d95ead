"""One burst connection's exchange (PROTOCOL.md 11.4): read one REQUEST, send its RESPONSE,
then check the request payload. Both a blocking form (threads, processes) and an asyncio form.

The frames are built from templates shared by every task (one lock), patched per connection
and copied out, so concurrent tasks never write into each other's frame. The templates of the
default sizes are built before READY (warm()): generating a payload is not a phase.
"""
import contextlib
import errno
import threading

from ..errors import PeerError, report
from ..frame import (FLAGGED_KINDS, HEADER_SIZE, REQUEST, RESPONSE, FrameTemplate, Rejected,
                     check_incoming)
from ..payload import REQUEST_STREAM, RESPONSE_STREAM
from .record import now

DEFAULT_REQUEST, DEFAULT_RESPONSE = 1000, 8
RESET_ERRNOS = {errno.ECONNRESET, errno.EPIPE}


class Failed(Exception):
    """A connection that did not complete; `kind` is the phases file's `error`."""

    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


class Frames:
    def __init__(self, seed):
        self._seed = seed
        self._lock = threading.Lock()
        self._responses = {}
        self._requests = {}

    def warm(self):
        with self._lock:
            self._template(self._responses, RESPONSE, DEFAULT_RESPONSE, RESPONSE_STREAM)
            self._template(self._requests, REQUEST, DEFAULT_REQUEST, REQUEST_STREAM)

    def response(self, sequence, wanted, length):
        """The RESPONSE to a REQUEST (sequence, length, wanted), as bytes of its own."""
        with self._lock:
            template = self._template(self._responses, RESPONSE, wanted, RESPONSE_STREAM)
            template.patch(sequence, length)
            return bytes(template.buf)

    def request_intact(self, sequence, length, wanted, received):
        """Whether the whole REQUEST frame `received` is the one the contract expects."""
        with self._lock:
            template = self._template(self._requests, REQUEST, length, REQUEST_STREAM)
            template.patch(sequence, wanted)
            return template.buf == received

    def _template(self, cache, kind, length, stream):
        template = cache.get(length)
        if template is None:
            template = cache[length] = FrameTemplate(kind, length, 0, self._seed, stream)
        return template


def header(data):
    """(sequence, length, wanted) of a REQUEST header; Failed("protocol") for anything else."""
    try:
        kind, sequence, length, wanted = check_incoming(data)
        if kind != REQUEST:
            # A one-way frame (flag NO_REPLY) belongs to pattern short only.
            raise Rejected("bad flags" if kind >> FLAGGED_KINDS else "unexpected kind")
    except Rejected as rejected:
        report("rejected frame", rejected.reason)
        raise Failed("protocol") from None
    return sequence, length, wanted


def failure(err):
    """The phases file's error kind for an exception of the exchange."""
    if isinstance(err, Failed):
        return err.kind
    if isinstance(err, OSError) and err.errno in RESET_ERRNOS:
        return "reset"
    return "io"


@contextlib.contextmanager
def recording(sock, record):
    """Around one exchange: a failure becomes record.error; then the close and `total`."""
    try:
        yield
    except (OSError, Failed, PeerError) as err:
        record.error = failure(err)
    finally:
        sock.close()
        record.total = now() - record.accepted_at
        record.done = True


def answered(record, start, frames, request):
    """The RESPONSE is out: `transfer` ends; then the request payload is checked."""
    record.transfer = now() - start
    if not frames.request_intact(*request):
        raise Failed("payload-mismatch")


def serve_blocking(sock, record, frames):
    """Reads the REQUEST, answers, checks the payload, closes; fills the task's phases."""
    with recording(sock, record):
        start = now()
        head = _read_exactly(sock, HEADER_SIZE)
        sequence, length, wanted = header(head)
        received = head + _read_exactly(sock, length) if length else head
        sock.sendall(frames.response(sequence, wanted, length))
        answered(record, start, frames, (sequence, length, wanted, received))


# At most this much asked of one recv: recv(n) sets aside n bytes before any arrive, and a
# header may claim 128 MiB and then send nothing (memory follows the bytes that arrived).
CHUNK = 1 << 16


def _read_exactly(sock, size):
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), CHUNK))
        if not chunk:
            raise Failed("eof")
        data += chunk
    return bytes(data)


async def serve_async(loop, sock, record, frames):
    """serve_blocking on the event loop: the socket is non-blocking, every wait is an await."""
    with recording(sock, record):
        start = now()
        head = await _read_exactly_async(loop, sock, HEADER_SIZE)
        sequence, length, wanted = header(head)
        received = head + await _read_exactly_async(loop, sock, length) if length else head
        await loop.sock_sendall(sock, frames.response(sequence, wanted, length))
        answered(record, start, frames, (sequence, length, wanted, received))


async def _read_exactly_async(loop, sock, size):
    data = bytearray()
    while len(data) < size:
        chunk = await loop.sock_recv(sock, min(size - len(data), CHUNK))
        if not chunk:
            raise Failed("eof")
        data += chunk
    return bytes(data)
