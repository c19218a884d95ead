"""`serve`: answer REQUESTs until shut down (PROTOCOL.md sections 2, 4, 5, 6, 10). The
mechanism's listener comes from mechanisms.py; its family picks the loop (LOOPS, below)."""
import errno
import json
import os
import socket
import sys

from . import shutdown, variants
from .burst.server import serve as burst_serve
from .errors import (IoError, PeerError, ProtocolError, Unsupported, describe_os_error,
                     report)
from .datagram_stream import Clients, stream_datagram
from .frame import (END, END_NO_REPLY, FLAGGED_KINDS, HEADER_SIZE, MARK, MAX_PAYLOAD, NO_REPLY,
                    REQUEST, REQUEST_NO_REPLY, RESPONSE, FrameTemplate, Rejected,
                    check_incoming, end_ack, one_way_end_ack)
from .mechanisms import DATAGRAMS, FRAMES, MECHANISMS, RPC
from .messages import MessageTally, receive_stream
from .payload import REQUEST_STREAM, RESPONSE_STREAM
from .reader import FrameReader
from .runtime import CONTRACT, LANGUAGE, runtime
from .transport.datagram import size_error

# How a connection ended, and what that means for a pipe server, whose only client it was.
CLOSED, REJECTED, BROKEN, FAILED = "closed", "rejected", "broken", "failed"
PIPE_EXIT_CODES = {CLOSED: 0, REJECTED: ProtocolError.code, BROKEN: IoError.code,
                   FAILED: PeerError.code}
# accept() failures that concern one would-be client, not the listener.
TRANSIENT_ACCEPT_ERRORS = {errno.ECONNABORTED, errno.EINTR, errno.EPROTO}


def serve(config):
    """Never returns: every way out goes through Cleanup.exit()."""
    if config.server_model is not None:
        # tcp, the one burst mechanism here, takes --nodelay either way (its exchange is
        # one write each way, which Nagle's algorithm never holds back).
        burst_serve(config, MECHANISMS.get(config.mechanism), announce_ready)
    cleanup = shutdown.Cleanup()
    with cleanup.held():
        shutdown.install(cleanup)
        mechanism, listener = start(config, cleanup)
    try:
        code = LOOPS[mechanism.family](listener, config)
    except Exception as err:  # noqa: BLE001 - report it, but still remove our files
        report("internal", f"{type(err).__name__}: {err}")
        code = PeerError.code
    cleanup.exit(code)


def start(config, cleanup):
    """Opens the endpoint and announces READY, or reports why not and exits."""
    with shutdown.exiting_on_error(cleanup):
        mechanism = MECHANISMS.get(config.mechanism)
        if mechanism is None or mechanism.listen is None:
            raise Unsupported(f"mechanism {config.mechanism!r} is not implemented for serve")
        variants.check_serve(config, mechanism)
        listener = listen(mechanism, config, cleanup)
        announce_ready(listener.endpoint, config.mechanism)
    return mechanism, listener



def listen(mechanism, config, cleanup):
    try:
        return mechanism.listen(config.endpoint, config, cleanup)
    except OSError as err:
        raise IoError(f"cannot listen on {config.endpoint}: {describe_os_error(err)}") from None


def announce_ready(endpoint, mechanism, **more):
    """READY (PROTOCOL.md section 5); `more`: a burst server's server_model (11.4)."""
    ready = {"endpoint": endpoint, "mechanism": mechanism, "language": LANGUAGE,
             "runtime": runtime(), "pid": os.getpid(), "contract": CONTRACT, **more}
    try:
        sys.stdout.write("READY " + json.dumps(ready) + "\n")
        sys.stdout.flush()
    except OSError as err:
        raise IoError(f"cannot write READY: {describe_os_error(err)}") from None


class Responder:
    """The server's preallocated frames: the last response frame built (per wanted size)
    and the last expected request (per length). Callers patch them in place per round trip;
    they are rebuilt only when a client changes sizes.

    `corrupted` counts bad REQUEST payloads of the connections that ended since the last
    END: pattern short sends its END over a connection of its own (PROTOCOL.md 11.2)."""

    def __init__(self, config):
        self._seed = config.seed
        self._flip = config.fault == "flip-response-byte"
        self._fault = config.fault
        self._response = self._request = self._one_way = None
        self.corrupted = 0
        # One-way REQUESTs (PROTOCOL.md 11.2) since the last END, across connections.
        self.received = 0

    def tally(self):
        """A new stream's counters (PROTOCOL.md 11.1)."""
        return MessageTally(self._seed, self._fault)

    def response_for(self, wanted):
        if self._response is None or self._response.length != wanted:
            self._response = FrameTemplate(RESPONSE, wanted, 0, self._seed, RESPONSE_STREAM,
                                           self._flip)
        return self._response

    def take_one_way(self, frame):
        """A REQUEST with flag NO_REPLY: validated and counted, never answered."""
        _, sequence, length, wanted, received = frame
        expected = self._one_way
        if expected is None or expected.length != length:
            expected = self._one_way = FrameTemplate(REQUEST, length, 0, self._seed,
                                                     REQUEST_STREAM, flags=NO_REPLY)
        expected.patch(sequence, wanted)
        if expected.buf != received:
            self.corrupted += 1
        self.received += 1

    def end_ack(self, kind, sequence):
        """END_ACK to END (a one-way END's carries the requests received too); the counts
        start again."""
        if kind == END_NO_REPLY:
            ack = one_way_end_ack(sequence, self.corrupted, self.received)
        else:
            ack = end_ack(sequence, self.corrupted)
        self.corrupted = self.received = 0
        return ack

    def expected_request_for(self, length):
        if self._request is None or self._request.length != length:
            self._request = FrameTemplate(REQUEST, length, 0, self._seed, REQUEST_STREAM)
        return self._request


def report_rejection(reason):
    report("rejected frame", reason)


def serve_streams(listener, config):
    """Stream listeners, and the message-channel and file listeners, which hand out links
    that look like connections (see transport/listeners.py)."""
    responder = Responder(config)
    reader = getattr(listener, "new_reader", FrameReader)()
    while True:
        try:
            link = listener.accept()
        except OSError as err:
            if err.errno in TRANSIENT_ACCEPT_ERRORS:
                continue
            report("io", f"cannot accept a client: {describe_os_error(err)}")
            return IoError.code
        try:
            outcome = serve_connection(link, reader, responder)
        finally:
            link.close()
        if listener.single_client:
            return PIPE_EXIT_CODES[outcome]


def serve_connection(link, reader, responder):
    """Answers one client until it closes; a bad frame or a failed write ends only this
    connection, never the server."""
    reader.attach(link)
    try:
        answer_frames(link, reader, responder)
    except Rejected as rejected:
        report_rejection(rejected.reason)
        return REJECTED
    except OSError as err:
        report("io", describe_os_error(err))
        return BROKEN
    except Exception as err:  # noqa: BLE001 - a bug must not take the server down
        report("internal", f"{type(err).__name__}: {err}")
        return FAILED
    return CLOSED


def answer_frames(link, reader, responder):
    """The server's hot loop; the request is checked only after the response is sent.
    A MARK hands the connection to the stream loop (messages.py) until its END."""
    send, next_frame = link.send_all, reader.next_frame
    response, expected = responder.response_for(0), responder.expected_request_for(0)
    corrupted = 0
    try:
        while True:
            frame = next_frame()
            if frame is None:
                return
            kind, sequence, length, wanted, received = frame
            if kind == REQUEST:
                if response.length != wanted:
                    response = responder.response_for(wanted)
                response.patch(sequence, length)
                send(response.buf)
                if expected.length != length:
                    expected = responder.expected_request_for(length)
                expected.patch(sequence, wanted)
                if expected.buf != received:
                    corrupted += 1
            elif kind == END or kind == END_NO_REPLY:
                responder.corrupted += corrupted
                corrupted = 0
                send(responder.end_ack(kind, sequence))
            elif kind == REQUEST_NO_REPLY:
                responder.take_one_way(frame)
            elif not receive_stream(frame, reader, send, responder.tally(), MAX_PAYLOAD):
                return
    finally:
        responder.corrupted += corrupted


def serve_datagrams(listener, config):
    """udp, uds-dgram: one frame or stream message per datagram, answered to its source
    address."""
    responder, sock = Responder(config), listener.sock
    buf = bytearray(listener.capacity)
    view = memoryview(buf)
    clients = Clients()
    while True:
        try:
            size, peer = sock.recvfrom_into(buf, 0, socket.MSG_TRUNC)
        except OSError as err:
            report("io", f"cannot receive: {describe_os_error(err)}")
            return IoError.code
        try:
            datagram = view[:size]
            if not stream_datagram(datagram, size, peer, listener, clients):
                answer_datagram(sock, datagram, size, peer, listener, responder, clients)
        except Rejected as rejected:
            report_rejection(rejected.reason)
        except OSError as err:
            report("io", f"cannot answer {peer or 'an unbound socket'}: "
                         f"{describe_os_error(err)}")


def answer_datagram(sock, datagram, size, peer, listener, responder, clients):
    """Answers one datagram of `size` bytes (`datagram` holds those that fitted the buffer)."""
    if size < HEADER_SIZE:
        raise Rejected("truncated header")
    kind, sequence, length, wanted = check_incoming(datagram)
    if size != HEADER_SIZE + length or size > len(datagram):
        raise Rejected("length mismatch")
    if kind >> FLAGGED_KINDS:
        raise Rejected("bad flags")  # one-way (flag NO_REPLY) is pattern short's, not here
    if kind == END:
        sock.sendto(clients.end_ack(peer, sequence), peer)
        return
    if kind == MARK:
        ack = clients.mark(peer, datagram, sequence, responder, listener.max_message)
        sock.sendto(ack, peer)
        return
    if wanted > listener.max_payload:
        raise Rejected("length too large")  # the response would not fit in one datagram
    response = responder.response_for(wanted)
    response.patch(sequence, length)
    try:
        sock.sendto(response.buf, peer)
    except OSError as err:
        raise size_error(err, len(response.buf)) or err
    expected = responder.expected_request_for(length)
    expected.patch(sequence, wanted)
    if expected.buf != datagram:
        clients.corrupted[peer] = clients.corrupted.get(peer, 0) + 1


def serve_rpc(listener, config):
    """The framework's own threads serve; this waits until shutdown ends the process."""
    listener.wait()
    return 0


# How each family of mechanisms (mechanisms.py) is served.
LOOPS = {FRAMES: serve_streams, DATAGRAMS: serve_datagrams, RPC: serve_rpc}
