"""The activemq responder's loop (PROTOCOL.md 4.7): every message on its request queue is one
frame, checked and answered as message_server.py says, to the message's reply-to with the same
correlation-id; a stream (11.1) is a MARK, the messages it announced, each one bare message,
and END, whose END_ACK goes back on the reply queue too. A malformed message is reported and
dropped: its sender gets no answer.
"""
from functools import partial

from .errors import PeerError, report
from .frame import Rejected
from .message_server import Stream, answer_frame, take_message
from .responder import Responder
from .transport.amqp import body_of


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
    reply_to = message.reply_to
    reply = partial(listener.reply, reply_to, message.correlation_id) if reply_to else None
    answer_frame(body, reply, responder, stream, listener.stream_window)
