"""Pattern stream (PROTOCOL.md 11.1), the client: MARK (M warm-up messages follow) / MARK_ACK,
the M warm-up messages, MARK (N follow) / MARK_ACK (the clock starts), the N messages cut into
W windows, END / END_ACK carrying the server's count, checksum and CPU figures (the clock
stops), then validation and the window samples. A message of S bytes is S bytes: the stamped
payload handed to the link as it is, one send per message.

`Plan` and `finish` are shared with the RPC stream (rpc/drive.py); `run` drives the frame and
datagram families. On a link that loses datagrams (udp: `link.resend`), MARK and END are sent
again every `link.resend` seconds until their answer comes, within --io-timeout.
"""
import time

from . import cpu
from .errors import PayloadMismatch, ProtocolError, ReceiveTimeout
from .frame import (END, END_ACK, HEADER_SIZE, MARK, MARK_ACK, STREAM_ACK, STREAM_ACK_LENGTH,
                    decode_header, encode_header, encode_mark)
from .payload import REQUEST_STREAM, Stamped, stream_checksum
from .rr import connect, frame_problem
from .transport.datagram import size_error

KIND = 5  # the header's kind byte


class Plan:
    """A stream run, computed before it starts: the sequences (MARK 0, warm-up 1 … M, MARK
    M+1, messages M+2 … M+N+1, END M+N+2), each window's [first, stop) and the checksum the
    server must report."""

    def __init__(self, config):
        self.size, self.messages, self.warmup = config.message_size, config.messages, \
            config.warmup
        self.warmup_mark, self.mark = 0, config.warmup + 1
        first = self.mark + 1
        self.end = first + config.messages
        per = config.messages // config.windows
        starts = [first + index * per for index in range(config.windows)]
        self.windows = list(zip(starts, starts[1:] + [self.end]))
        self.checksum = stream_checksum(config.seed, self.size, first, self.messages)

    def fields(self):
        """The result fields of a stream (PROTOCOL.md 11.1 item 8), unmeasured yet."""
        return {"messages": self.messages, "message_size": self.size,
                "windows": len(self.windows), "stream_ns": None, "lost": None,
                "client_cpu": None, "server_cpu": None}


def run(config, mechanism, recorder):
    plan = Plan(config)
    recorder.fields.update(plan.fields())
    data = Stamped(config.seed, REQUEST_STREAM, plan.size)
    timeout = config.io_timeout
    end = encode_header(END, plan.end, 0, 0)
    end_ack = encode_header(END_ACK, plan.end, STREAM_ACK_LENGTH, 0)
    ack = bytearray(HEADER_SIZE + STREAM_ACK_LENGTH)
    link = connect(mechanism, config)
    try:
        try:
            mark(link, plan.warmup_mark, plan.size, plan.warmup, timeout)
            send_messages(link, data, range(plan.warmup_mark + 1, plan.mark))
            start = mark(link, plan.mark, plan.size, plan.messages, timeout)
            start_cpu = cpu.now()
            ends = [send_messages(link, data, range(first, stop))
                    for first, stop in plan.windows]
            stop = request(link, end, end_ack, timeout, ack)
            client_cpu = cpu.since(start_cpu)
        except OSError as err:
            raise size_error(err, plan.size) or err
    finally:
        link.close()
    fields = STREAM_ACK.unpack_from(ack, HEADER_SIZE)
    finish(recorder, plan, [start] + ends[:-1] + [stop], client_cpu, fields,
           lossy=getattr(link, "resend", None) is not None)


def mark(link, sequence, size, count, timeout):
    """MARK announcing `count` messages of `size` bytes, and its MARK_ACK; returns the clock
    at the MARK_ACK's arrival."""
    return request(link, encode_mark(sequence, size, count),
                   encode_header(MARK_ACK, sequence, 0, 0), timeout)


def send_messages(link, data, sequences):
    """The measurement: stamp and send, one send per message; returns the clock after the
    last. A link whose bare messages differ from its frames has send_message (activemq: a
    message without reply-to and correlation-id, PROTOCOL.md 4.7)."""
    send = getattr(link, "send_message", link.send_all)
    stamp, message = data.stamp, data.buf
    for sequence in sequences:
        stamp(sequence)
        send(message)
    return time.perf_counter_ns()


def request(link, frame, expected, timeout, buf=None):
    """Sends MARK or END and receives its answer (into `buf`, or a header's room); returns the
    clock at its arrival. The answer's header must be `expected`."""
    buf = buf if buf is not None else bytearray(HEADER_SIZE)
    resend = getattr(link, "resend", None)
    link.send_all(frame)
    if resend is None:
        received = link.recv_frame(buf)
        stop = time.perf_counter_ns()
    else:
        received, stop = _until_answered(link, frame, expected, buf, resend, timeout)
    problem = frame_problem(memoryview(buf)[:received], expected, received)
    if problem:
        raise ProtocolError(f"answer to {_kind(frame)} {decode_header(frame).sequence}: "
                            f"{problem}")
    return stop


def _until_answered(link, frame, expected, buf, resend, timeout):
    """udp: sends `frame` again every `resend` seconds until an answer arrives (skipping
    answers to an earlier MARK), at most `timeout` seconds in all."""
    deadline = time.monotonic() + timeout
    link.set_timeout(resend)
    try:
        while True:
            try:
                received = link.recv_frame(buf)
            except ReceiveTimeout:
                if time.monotonic() >= deadline:
                    raise ReceiveTimeout(f"no answer to {_kind(frame)} within "
                                         f"{timeout:g} s") from None
                link.send_all(frame)
                continue
            stop = time.perf_counter_ns()
            # A late answer to an earlier MARK (resent) is skipped.
            stale = received >= HEADER_SIZE and buf[KIND] == MARK_ACK and \
                buf[:HEADER_SIZE] != expected[:HEADER_SIZE]
            if not stale:
                return received, stop
    finally:
        link.set_timeout(timeout)


def _kind(frame):
    return "MARK" if frame[KIND] == MARK else "END"


def finish(recorder, plan, bounds, client_cpu, ack_fields, lossy=False):
    """Validates the server's figures (PROTOCOL.md 11.1 step 5), then records the W window
    times (`bounds`: the start, each window's end) and the result fields."""
    received, gaps, checksum, *server_cpu = ack_fields
    lost = check_ack(plan.messages, plan.checksum, received, gaps, checksum, lossy)
    for index, (begin, end) in enumerate(zip(bounds, bounds[1:])):
        recorder.add(index, end - begin)
    recorder.fields.update(stream_ns=bounds[-1] - bounds[0], lost=lost,
                           client_cpu=cpu.as_json(client_cpu),
                           server_cpu=cpu.as_json(cpu.Figures._make(server_cpu)))


def check_ack(messages, expected, received, gaps, checksum, lossy=False):
    """The messages lost (udp), or PayloadMismatch: the server's figures against the
    `messages` sent and the `expected` checksum. A lossy link may lose messages (they are
    counted, and the checksum is then not comparable); any other difference fails."""
    if (received, gaps) != (messages, 0) and not (lossy and received < messages):
        gap_text = f"{gaps} gap" + ("" if gaps == 1 else "s")
        raise PayloadMismatch(f"payload mismatch: the server received {received} of "
                              f"{messages} messages, {gap_text}")
    if received == messages and checksum != expected:
        raise PayloadMismatch(f"payload mismatch: the server's checksum is 0x{checksum:016x}, "
                              f"the messages sent sum to 0x{expected:016x}")
    return messages - received
