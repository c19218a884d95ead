"""Pattern short (PROTOCOL.md 11.2) over section 2 frames: every round trip opens its own
connection (tcp, uds: a new socket; sysv-mq: msgget; posix-mq: mq_open of both queues), sends
the REQUEST, receives the RESPONSE and closes; the sample is all of it. END goes over one more
connection. How connection i is made ready comes from the mechanism table: `connect_short`
(tcp, uds) makes the socket, and binds tcp's source address, before the clock starts, so the
sample is connect, exchange, close (since contract 4); a queue is opened inside the sample.

The round trips are rr's (rr.Exchange) over `Connections`, a link whose prepare() makes the
next connection ready, whose send connects and sends and whose receive closes it.

One-way (--one-way): each connection carries one REQUEST with flag NO_REPLY and is closed
without reading; END (flag NO_REPLY too) is answered with the server's corrupted count and the
number of requests it received, checked after the clock."""
import time

from .errors import IoError, PayloadMismatch, ProtocolError, describe_os_error
from .frame import (END, END_ACK, HEADER_SIZE, NO_REPLY, ONE_WAY_ACK, ONE_WAY_ACK_LENGTH,
                    REQUEST, FrameTemplate, encode_header)
from .payload import REQUEST_STREAM
from . import rr
from .rr import Exchange, frame_problem


def run(config, mechanism, recorder):
    link = Connections(mechanism, config)
    try:
        if config.one_way:
            one_way(link, config, recorder)
        else:
            exchange = Exchange(config)
            round_trips(link, exchange, config, recorder)
            link.prepare()
            exchange.end(link, config.warmup + config.iterations)
    finally:
        link.close()


def round_trips(link, exchange, config, recorder):
    """rr's loop with the next connection made ready before each clock read."""
    rr.round_trips(link, exchange, config, recorder, ready=link.prepare)


def one_way(link, config, recorder):
    """Connect, send, close: the sample is all three; nothing comes back until END."""
    request = FrameTemplate(REQUEST, config.request_size, 0, config.seed, REQUEST_STREAM,
                            flags=NO_REPLY)
    prepare, send, close = link.prepare, link.send_all, link.close
    clock, record = time.perf_counter_ns, recorder.add
    buf, patch = request.buf, request.patch
    sent = config.warmup + config.iterations
    for sequence in range(sent):
        patch(sequence, 0)
        prepare()
        start = clock()
        send(buf)
        close()
        stop = clock()
        record(sequence, stop - start)
    link.prepare()
    end_one_way(link, sent)


def end_one_way(link, sent):
    """END with NO_REPLY over one more connection: its END_ACK says how many requests the
    server received (fewer than sent is a protocol error) and how many were corrupted."""
    link.send_all(encode_header(END, sent, 0, 0, flags=NO_REPLY))
    ack = bytearray(HEADER_SIZE + ONE_WAY_ACK_LENGTH)
    received = link.recv_frame(ack)
    problem = frame_problem(memoryview(ack)[:received],
                            encode_header(END_ACK, sent, ONE_WAY_ACK_LENGTH, 0), received)
    if problem:
        raise ProtocolError(f"END_ACK to sequence {sent}: {problem}")
    corrupted, taken = ONE_WAY_ACK.unpack_from(ack, HEADER_SIZE)
    if taken < sent:
        raise ProtocolError(f"the server received {taken} one-way requests, the client sent "
                            f"{sent} (warm-up + iterations)")
    if corrupted:
        raise PayloadMismatch(f"payload mismatch: server received {corrupted} "
                              "corrupted request payloads")


class Connections:
    """prepare() makes connection i ready (the i-th: warm-up first, END last); send_all(frame)
    connects it and sends; recv_frame(view) receives on it and closes it. A failure to make
    or connect a socket is io."""

    def __init__(self, mechanism, config):
        self._endpoint, self._config = config.endpoint, config
        if mechanism.connect_short is not None:
            self._ready = mechanism.connect_short
        else:
            self._ready = lambda endpoint, options, index: Deferred(mechanism.connect,
                                                                    endpoint, options)
        self._index = 0
        self._next = self._link = None

    def prepare(self):
        index = self._index
        try:
            self._next = self._ready(self._endpoint, self._config, index)
        except OSError as err:
            raise IoError(f"cannot make a socket for connection {index} to {self._endpoint}: "
                          f"{describe_os_error(err)}") from None

    def send_all(self, frame):
        index, pending = self._index, self._next
        self._next = None
        self._index = index + 1
        try:
            self._link = pending.connect()
        except OSError as err:
            pending.close()
            raise IoError(f"cannot connect to {self._endpoint} (connection {index}): "
                          f"{describe_os_error(err)}") from None
        self._link.send_all(frame)

    def recv_frame(self, view):
        try:
            return self._link.recv_frame(view)
        finally:
            self.close()

    def close(self):
        """Closes the open connection, and a prepared one that was never used."""
        if self._link is not None:
            link, self._link = self._link, None
            link.close()
        if self._next is not None:
            pending, self._next = self._next, None
            pending.close()


class Deferred:
    """A connection opened only inside the sample (a queue's open: msgget, mq_open)."""

    def __init__(self, connect, endpoint, options):
        self._connect, self._endpoint, self._options = connect, endpoint, options

    def connect(self):
        return self._connect(self._endpoint, self._options)

    def close(self):
        pass
