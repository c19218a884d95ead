"""Pattern load, the server side of one connection (PROTOCOL.md 11.5.1): section 2's rr exchange
(REQUEST -> RESPONSE, ..., END -> END_ACK with this connection's corrupted count), then close.
The server models (burst/models.py) call it through Burst.serve / Burst.serve_async, in a
blocking form (threads, processes) and an asyncio form.

Frames come from the rr server's FrameReader (memory follows the bytes that arrived; every
header check of section 2) and the rr server's Responder (the RESPONSE and expected REQUEST
templates, END_ACK), one of each per connection: a connection's templates are patched in place
and never shared. A load server serves nothing but rr: MARK or a one-way frame is rejected.
"""
import contextlib
import socket

from ..burst.exchange import Failed, recording
from ..errors import describe_os_error, report
from ..frame import END, FLAGGED_KINDS, REQUEST, Rejected
from ..reader import FrameReader
from ..responder import Responder
from ..transport.links import SocketStream
from ..transport.sockets import set_no_delay


def serve_blocking(sock, record, config):
    """Answers the connection until END or end of stream; `record` gets the burst models'
    error and total (no file is written from it)."""
    with recording(sock, record), rejecting():
        responder, reader = _prepare(sock, config)
        reader.attach(SocketStream(sock))
        send = sock.sendall
        while (frame := reader.next_frame()) is not None:
            send(reply(responder, frame))
            if check(responder, frame):
                return


async def serve_async(loop, sock, record, config):
    """serve_blocking on the event loop: the socket is non-blocking, every wait an await."""
    with recording(sock, record), rejecting():
        responder, reader = _prepare(sock, config)

        def receive(view):
            return loop.sock_recv_into(sock, view)
        while (frame := await reader.next_frame_async(receive)) is not None:
            await loop.sock_sendall(sock, reply(responder, frame))
            if check(responder, frame):
                return


def warm(config):
    """Before READY: a first template makes payload.py import numpy, which would otherwise
    cost the first connection's first RESPONSE ~150 ms."""
    Responder(config).response_for(8)


def _prepare(sock, config):
    if sock.family != socket.AF_UNIX:
        set_no_delay(sock, config)
    return Responder(config), FrameReader()


def reply(responder, frame):
    """The frame to send back: the RESPONSE to a REQUEST, END_ACK to END."""
    kind, sequence, length, wanted, _ = frame
    if kind == REQUEST:
        response = responder.response_for(wanted)
        response.patch(sequence, length)
        return response.buf
    if kind == END:
        return responder.end_ack(kind, sequence)
    # A one-way frame (flag NO_REPLY) is pattern short's, MARK pattern stream's.
    raise Rejected("bad flags" if kind >> FLAGGED_KINDS else "unexpected kind")


def check(responder, frame):
    """After the reply is out: counts a corrupted request payload; True after END."""
    kind, sequence, length, wanted, received = frame
    if kind != REQUEST:
        return True
    expected = responder.expected_request_for(length)
    expected.patch(sequence, wanted)
    if expected.buf != received:
        responder.corrupted += 1
    return False


@contextlib.contextmanager
def rejecting():
    """A rejected frame is reported as the rr server does (PROTOCOL.md 2) and ends only this
    connection; a broken connection is reported too (the load server writes no file)."""
    try:
        yield
    except Rejected as rejected:
        report("rejected frame", rejected.reason)
        raise Failed("protocol") from None
    except OSError as err:
        report("io", describe_os_error(err))
        raise
