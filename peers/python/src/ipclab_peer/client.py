"""`drive`: time round trips against a server, validate them, write the outputs
(PROTOCOL.md sections 2, 3, 7, 8)."""
import time
from array import array

from . import inproc, result, rpc, transport
from .errors import (IoError, PayloadMismatch, PeerError, ProtocolError, Unsupported,
                     describe_os_error, report, report_error)
from .frame import (COUNTER, END, END_ACK, END_ACK_LENGTH, HEADER_SIZE, REQUEST, RESPONSE,
                    FrameTemplate, declared_size, encode_header, header_difference)
from .payload import REQUEST_STREAM, RESPONSE_STREAM, first_difference

UDP_MAX_PAYLOAD = 65483
PATTERNS = ("rr",)


def drive(config):
    driver = Driver(config)
    try:
        driver.run()
    except PeerError as err:
        return driver.finish(err)
    except OSError as err:
        return driver.finish(IoError(describe_os_error(err)))
    except MemoryError:
        return driver.finish(PeerError("out of memory"))
    except KeyboardInterrupt:
        return driver.finish(PeerError("interrupted"))
    return driver.finish()


def check_supported(config):
    if config.payload != "bytes" and config.mechanism not in rpc.MECHANISMS:
        raise Unsupported(f"structured payload {config.payload!r} needs an RPC mechanism, "
                          f"not {config.mechanism!r}")
    if config.mechanism not in transport.MECHANISMS + inproc.MECHANISMS + rpc.MECHANISMS:
        raise Unsupported(f"mechanism {config.mechanism!r} is not implemented")
    if config.pattern not in PATTERNS:
        raise Unsupported(f"pattern {config.pattern!r} is not implemented")
    if config.mechanism in rpc.MECHANISMS:
        return  # the framework module checks what it can do (rpc.load, check_sizes)
    largest = max(config.request_size, config.response_size)
    if config.mechanism == "udp" and largest > UDP_MAX_PAYLOAD:
        raise Unsupported(f"udp carries at most {UDP_MAX_PAYLOAD} payload bytes, "
                          f"not {largest}")


class Driver:
    def __init__(self, config):
        self.config = config
        self.samples = array("q")
        self.recorded = 0

    def run(self):
        config = self.config
        check_supported(config)
        self.samples = array("q", [0]) * config.iterations
        if config.mechanism in inproc.MECHANISMS:
            inproc.run(config, self)
            return
        if config.mechanism in rpc.MECHANISMS:
            from .rpc import drive

            drive.run(config, self)
            return
        link = connect(config)
        try:
            exchange = Exchange(config, isinstance(link, transport.Datagram))
            self.round_trips(link, exchange)
            exchange.end(link, config.warmup + config.iterations)
        finally:
            link.close()

    def round_trips(self, link, exchange):
        """The measurement: nothing but the send and the receive between the clock reads."""
        send, receive, clock = link.send_all, link.recv_frame, time.perf_counter_ns
        request, patch = exchange.request.buf, exchange.request.patch
        response, check = exchange.response, exchange.check_response
        wanted, warmup, samples = self.config.response_size, self.config.warmup, self.samples
        for sequence in range(warmup + self.config.iterations):
            patch(sequence, wanted)
            start = clock()
            send(request)
            received = receive(response)
            stop = clock()
            check(sequence, received)
            if sequence >= warmup:
                samples[self.recorded] = stop - start
                self.recorded += 1

    def finish(self, error=None):
        """Writes samples and result (also after an error) and returns the exit code."""
        config = self.config
        if error is not None:
            report_error(error)
        try:
            result.write_samples(config.samples_file, self.samples, self.recorded)
            result.write_result(config.result_file, result.record(config, self.recorded, error))
        except OSError as err:
            report("io", f"cannot write the outputs: {describe_os_error(err)}")
            return error.code if error is not None else IoError.code
        return error.code if error is not None else 0


def connect(config):
    try:
        return transport.connect(config.mechanism, config.endpoint, config.io_timeout,
                                 config.poll_interval_us, config.spin_us)
    except OSError as err:
        raise IoError(f"cannot connect to {config.endpoint}: {describe_os_error(err)}") from None


class Exchange:
    """The frames of one run, built before the first round trip: the request to send, the
    response to expect, and the buffers the responses are received into."""

    def __init__(self, config, datagram):
        seed = config.seed
        self.request_size = config.request_size
        self.request = FrameTemplate(REQUEST, config.request_size, config.response_size,
                                     seed, REQUEST_STREAM)
        self.expected = FrameTemplate(RESPONSE, config.response_size, config.request_size,
                                      seed, RESPONSE_STREAM)
        # A stream link reads exactly the size of its buffer; a datagram link needs room for
        # any datagram so that a wrong size is seen rather than truncated.
        response_size = HEADER_SIZE + config.response_size
        ack_size = HEADER_SIZE + END_ACK_LENGTH
        self.response = bytearray(transport.Datagram.CAPACITY if datagram else response_size)
        self.ack = bytearray(transport.Datagram.CAPACITY if datagram else ack_size)
        self._response_view = memoryview(self.response)

    def check_response(self, sequence, received):
        expected = self.expected
        expected.patch(sequence, self.request_size)
        frame = self._response_view[:received]
        if expected.buf != frame:
            raise diagnose(frame, expected.buf, sequence)

    def end(self, link, sequence):
        """END / END_ACK: the server's count of corrupted request payloads must be zero."""
        link.send_all(encode_header(END, sequence, 0, 0))
        frame = memoryview(self.ack)[:link.recv_frame(self.ack)]
        expected = encode_header(END_ACK, sequence, END_ACK_LENGTH, 0)
        problem = frame_problem(frame, expected)
        if problem:
            raise ProtocolError(f"END_ACK to sequence {sequence}: {problem}")
        corrupted = COUNTER.unpack_from(frame, HEADER_SIZE)[0]
        if corrupted:
            raise PayloadMismatch(f"payload mismatch: server received {corrupted} "
                                  "corrupted request payloads")


def frame_problem(frame, expected_header):
    """What is wrong with a received frame's header or size, or None."""
    if len(frame) < HEADER_SIZE:
        return f"{len(frame)} bytes, shorter than a header"
    field = header_difference(frame[:HEADER_SIZE], expected_header)
    if field:
        return field
    size = declared_size(expected_header)
    if len(frame) != size:
        return f"a frame of {len(frame)} bytes instead of {size}"
    return None


def diagnose(frame, expected, sequence):
    problem = frame_problem(frame, expected[:HEADER_SIZE])
    if problem:
        return ProtocolError(f"RESPONSE to sequence {sequence}: {problem}")
    offset = first_difference(frame[HEADER_SIZE:], expected[HEADER_SIZE:])
    return PayloadMismatch(f"payload mismatch: RESPONSE to sequence {sequence} differs at "
                           f"payload offset {offset}")
