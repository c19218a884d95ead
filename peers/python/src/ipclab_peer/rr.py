"""Pattern rr over section 2 frames (PROTOCOL.md sections 2, 3, 7): request-response round
trips on a link (stream-like or datagram), END / END_ACK at the end."""
import time

from .errors import IoError, PayloadMismatch, ProtocolError, describe_os_error
from .frame import (COUNTER, END, END_ACK, END_ACK_LENGTH, HEADER_SIZE, REQUEST, RESPONSE,
                    FrameTemplate, declared_size, encode_header, header_difference)
from .payload import REQUEST_STREAM, RESPONSE_STREAM, first_difference
from .transport.datagram import size_error


def run(config, mechanism, recorder):
    link = connect(mechanism, config)
    try:
        exchange = Exchange(config, getattr(link, "capacity", None))
        try:
            round_trips(link, exchange, config, recorder)
        except OSError as err:
            raise size_error(err, len(exchange.request.buf)) or err
        exchange.end(link, config.warmup + config.iterations)
    finally:
        link.close()


def connect(mechanism, config):
    try:
        return mechanism.connect(config.endpoint, config)
    except OSError as err:
        raise IoError(f"cannot connect to {config.endpoint}: {describe_os_error(err)}") from None


def round_trips(link, exchange, config, recorder, ready=None):
    """The measurement: nothing but the send and the receive between the clock reads; a
    round trip is recorded only once its response is validated. `ready`, pattern short's
    (short.py), makes the next connection ready before each clock read; for rr it is a no-op
    call outside the clock (tens of ns per round trip, none of them in a sample)."""
    send, receive, clock = link.send_all, link.recv_frame, time.perf_counter_ns
    request, patch = exchange.request.buf, exchange.request.patch
    response, check, record = exchange.response, exchange.check_response, recorder.add
    ready = ready or _nothing
    wanted = config.response_size
    for sequence in range(config.warmup + config.iterations):
        patch(sequence, wanted)
        ready()
        start = clock()
        send(request)
        received = receive(response)
        stop = clock()
        check(sequence, received)
        record(sequence, stop - start)


def _nothing():
    pass


class Exchange:
    """The frames of one run, built before the first round trip: the request to send, the
    response to expect, and the buffers the responses are received into.

    A stream link reads exactly the size of its buffer; a datagram link (with a `capacity`)
    receives into room for any datagram it can take and reports the real size, so a wrong
    size is seen rather than truncated."""

    def __init__(self, config, capacity=None, flags=0):
        seed = config.seed
        self.request_size = config.request_size
        # `flags`: a load connection's reply address over a message queue (PROTOCOL.md
        # 11.5.5), carried by its REQUESTs and its END.
        self.flags = flags
        self.request = FrameTemplate(REQUEST, config.request_size, config.response_size,
                                     seed, REQUEST_STREAM, flags=flags)
        self.expected = FrameTemplate(RESPONSE, config.response_size, config.request_size,
                                      seed, RESPONSE_STREAM)
        self.response = bytearray(capacity or HEADER_SIZE + config.response_size)
        self.ack = bytearray(capacity or HEADER_SIZE + END_ACK_LENGTH)
        self._response_view = memoryview(self.response)
        # iceoryx2's rr (4.12): the payload never written (a stand-in config may lack it).
        if getattr(config, "sample_write", "full") == "header":
            self.check_response = self.check_response_header

    def check_response(self, sequence, received):
        expected = self.expected
        expected.patch(sequence, self.request_size)
        frame = self._response_view[:received]
        if received > len(self.response) or expected.buf != frame:
            raise diagnose(frame, expected.buf, sequence, received)

    def check_response_header(self, sequence, received):
        """--sample-write header: the RESPONSE's header and its size alone."""
        expected = self.expected
        expected.patch(sequence, self.request_size)
        problem = frame_problem(self._response_view[:HEADER_SIZE], expected.buf[:HEADER_SIZE],
                                received)
        if problem:
            raise ProtocolError(f"RESPONSE to sequence {sequence}: {problem}")

    def end(self, link, sequence):
        """END / END_ACK: the server's count of corrupted request payloads must be zero."""
        corrupted = self.end_ack(link, sequence)
        if corrupted:
            raise PayloadMismatch(f"payload mismatch: server received {corrupted} "
                                  "corrupted request payloads")

    def end_ack(self, link, sequence):
        """END / END_ACK -> the server's count of corrupted request payloads."""
        link.send_all(encode_header(END, sequence, 0, 0, self.flags))
        received = link.recv_frame(self.ack)
        frame = memoryview(self.ack)[:received]
        expected = encode_header(END_ACK, sequence, END_ACK_LENGTH, 0)
        problem = frame_problem(frame, expected, received)
        if problem:
            raise ProtocolError(f"END_ACK to sequence {sequence}: {problem}")
        return COUNTER.unpack_from(frame, HEADER_SIZE)[0]


def frame_problem(frame, expected_header, received):
    """What is wrong with a received frame's header or size (`received` bytes, of which
    `frame` holds those that fitted), or None."""
    if received < HEADER_SIZE:
        return f"{received} bytes, shorter than a header"
    field = header_difference(frame[:HEADER_SIZE], expected_header)
    if field:
        return field
    size = declared_size(expected_header)
    if received != size:
        return f"a frame of {received} bytes instead of {size}"
    return None


def diagnose(frame, expected, sequence, received):
    problem = frame_problem(frame, expected[:HEADER_SIZE], received)
    if problem:
        return ProtocolError(f"RESPONSE to sequence {sequence}: {problem}")
    offset = first_difference(frame[HEADER_SIZE:], expected[HEADER_SIZE:])
    return PayloadMismatch(f"payload mismatch: RESPONSE to sequence {sequence} differs at "
                           f"payload offset {offset}")
