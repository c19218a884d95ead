"""The activemq responder's loop (PROTOCOL.md 4.7): every message on its request queue is one
frame, checked as section 2's server checks a datagram, and answered to the message's reply-to
with the same correlation-id; a stream (11.1) is a MARK, the messages it announced, each one
bare message, and END, whose END_ACK goes back on the reply queue too.

A broker queue loses nothing, so the stream is counted as on uds-dgram: the K messages after a
MARK are its messages, and one of another size is rejected (`length mismatch`) and the rest
of the K given up; what follows is read as frames again, and END's answer shows the shortfall.
A malformed message is reported and dropped: its sender gets no answer.
"""
from .errors import PeerError, report
from .frame import (END, FLAGGED_KINDS, HEADER_SIZE, MARK, MAX_PAYLOAD, REQUEST, Rejected,
                    check_incoming, mark_ack, mark_fields, stream_end_ack)
from .responder import Responder
from .transport.amqp import body_of


class Stream:
    """The stream in progress (11.1): its tally from the last MARK until END, and how many of
    the messages that MARK announced have not come yet."""

    def __init__(self):
        self.tally = None  # made at the first MARK, kept for the next stream
        self.open = False
        self.remaining = 0


def serve(listener, config):
    """Answers messages until shutdown ends the process; a lost broker connection ends it
    with the io error's code."""
    responder, stream = Responder(config), Stream()
    while True:
        try:
            message = listener.take()
        except PeerError as err:
            report(err.kind, err)
            return err.code
        try:
            answer(listener, message, responder, stream)
        except Rejected as rejected:
            report("rejected frame", rejected.reason)
        except PeerError as err:  # an answer that did not go: the broker refused it, or is gone
            report(err.kind, err)
            if listener.lost():
                return err.code


def answer(listener, message, responder, stream):
    body = body_of(message)
    if body is None:
        stream.remaining = 0
        raise Rejected("body is not one data section")
    if stream.remaining:
        take_message(body, stream)
        return
    size = len(body)
    if size < HEADER_SIZE:
        raise Rejected("truncated header")
    kind, sequence, length, wanted = check_incoming(body)
    if size != HEADER_SIZE + length:
        raise Rejected("length mismatch")
    if kind >> FLAGGED_KINDS:
        raise Rejected("bad flags")  # NO_REPLY is pattern short's, not here
    reply_to, correlation = message.reply_to, message.correlation_id
    if not reply_to:
        raise Rejected("no reply-to")
    if kind == REQUEST:
        answer_request(listener, body, reply_to, correlation, responder,
                       (sequence, length, wanted))
    elif kind == END:
        listener.reply(reply_to, correlation, end_ack(sequence, responder, stream, listener))
    elif kind == MARK:
        message_size, count = mark_fields(body, MAX_PAYLOAD)
        if stream.tally is None:
            stream.tally = responder.tally()
        stream.tally.restart(sequence, message_size)
        stream.open, stream.remaining = True, count
        listener.stream_window(message_size)
        listener.reply(reply_to, correlation, mark_ack(sequence))


def answer_request(listener, body, reply_to, correlation, responder, header):
    """RESPONSE first; the request's payload is checked after it is sent (PROTOCOL.md 3)."""
    sequence, length, wanted = header
    response = responder.response_for(wanted)
    response.patch(sequence, length)
    listener.reply(reply_to, correlation, response.buf)
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


def end_ack(sequence, responder, stream, listener):
    """A stream's END_ACK (11.1 step 4) after a MARK, else rr's with the corrupted count since
    the previous END of any client."""
    if not stream.open:
        return responder.end_ack(END, sequence)
    ack = stream_end_ack(sequence, stream.tally.ack_fields())
    stream.open, stream.remaining = False, 0
    listener.stream_window(0)
    return ack
