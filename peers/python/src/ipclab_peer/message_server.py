"""What a server does with frames that arrive whole, one per library message (activemq's
PROTOCOL.md 4.7, ZeroMQ's 4.8): section 2's checks with a datagram's sizes, the answer handed to
the mechanism's own way back, and a stream (11.1) counted as on uds-dgram: the K messages after
a MARK are its messages, one of another size is rejected (`length mismatch`) and the rest of the
K given up, and END's answer shows the shortfall (where the sender waits for credits, Redis's
4.10 and NATS's 4.11, a CreditedStream sends them). The loops over each library are
broker_server.py, zmq_server.py, redis_server.py, nats_server.py and iceoryx2_server.py.
"""
from .errors import report
from .frame import (END, FLAGGED_KINDS, HEADER_SIZE, MARK, MAX_PAYLOAD, REQUEST, Rejected,
                    check_incoming, mark_ack, mark_fields, stream_end_ack)
from .transport.credit_window import credit_every, stream_window


class Stream:
    """The stream in progress (11.1): its tally from the last MARK until END, and how many of
    the messages that MARK announced have not come yet."""

    def __init__(self):
        self.tally = None  # made at the first MARK, kept for the next stream
        self.open = False
        self.remaining = 0


class CreditedStream(Stream):
    """A stream whose sender waits for credits (Redis, PROTOCOL.md 4.10; NATS, 4.11): a credit
    per K(S) of the messages a MARK announced, counted from that MARK, sent by credit()."""

    def __init__(self, credit):
        super().__init__()
        self.credit = credit
        self.taken, self.every = 0, 1

    def window(self, size):
        """answer_frame's window: a MARK of `size`-byte messages restarts the count (0: END)."""
        if size:
            self.taken, self.every = 0, credit_every(stream_window(size))

    def take(self, body):
        """One of the announced messages: counted (a rejection said, the rest given up as
        take_message says), and a credit sent after every K(S)-th."""
        try:
            take_message(body, self)
        except Rejected as rejected:
            report("rejected frame", rejected.reason)
        self.taken += 1
        if self.taken % self.every == 0:
            self.credit()


def answer_frame(body, reply, responder, stream, window, largest=MAX_PAYLOAD, respond=None):
    """Answers one whole frame: reply(frame) sends the answer, None where the message names no
    way back (an activemq message without reply-to: rejected after section 2's checks);
    window(size) tells the mechanism a stream of `size`-byte messages starts (0: it ended),
    before the MARK_ACK goes; `largest`, the mechanism's largest payload where it is under
    MAX_PAYLOAD (iceoryx2's, 4.12): a REQUEST wanting more is `length too large`, as over udp,
    a MARK announcing more `bad stream frame`; respond(frame), where given, sends a RESPONSE's
    header alone and the REQUEST's payload is not read (iceoryx2's --sample-write header).
    Raises Rejected."""
    size = len(body)
    if size < HEADER_SIZE:
        raise Rejected("truncated header")
    kind, sequence, length, wanted = check_incoming(body)
    if size != HEADER_SIZE + length:
        raise Rejected("length mismatch")
    if kind >> FLAGGED_KINDS:
        raise Rejected("bad flags")  # NO_REPLY is pattern short's, not here
    if reply is None:
        raise Rejected("no reply-to")
    if kind == REQUEST:
        if wanted > largest:
            raise Rejected("length too large")
        if respond is None:
            answer_request(body, reply, responder, (sequence, length, wanted))
        else:
            response = responder.response_for(wanted)
            response.patch(sequence, length)
            respond(response.buf)
    elif kind == END:
        reply(end_ack(sequence, responder, stream, window))
    elif kind == MARK:
        message_size, count = mark_fields(body, largest)
        if stream.tally is None:
            stream.tally = responder.tally()
        stream.tally.restart(sequence, message_size)
        stream.open, stream.remaining = True, count
        window(message_size)
        reply(mark_ack(sequence))


def answer_request(body, reply, responder, header):
    """RESPONSE first; the request's payload is checked after it is sent (PROTOCOL.md 3)."""
    sequence, length, wanted = header
    response = responder.response_for(wanted)
    response.patch(sequence, length)
    reply(response.buf)
    expected = responder.expected_request_for(length)
    expected.patch(sequence, wanted)
    if expected.buf != body:
        responder.corrupted += 1


def take_message(body, stream):
    stream.remaining -= 1
    if len(body) != stream.tally.size:
        stream.remaining = 0
        raise Rejected("length mismatch")
    stream.tally.add(body, 1)


def end_ack(sequence, responder, stream, window):
    """A stream's END_ACK (11.1 step 4) after a MARK, else rr's with the corrupted count since
    the previous END of any client."""
    if not stream.open:
        return responder.end_ack(END, sequence)
    ack = stream_end_ack(sequence, stream.tally.ack_fields())
    stream.open, stream.remaining = False, 0
    window(0)
    return ack
