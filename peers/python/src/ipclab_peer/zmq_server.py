"""The zmq-tcp and zmq-ipc server's loop (PROTOCOL.md 4.8): frames on the REP request socket,
a stream's messages on the PULL stream socket, answered as message_server.py says. While a
MARK's messages are due it reads only the stream socket, so a control frame is taken only once
every message before it came. REP must answer every request, so a rejected frame is answered
with an empty message.
"""
import zmq

from .errors import report
from .frame import Rejected
from .message_server import Stream, answer_frame, take_message
from .responder import Responder


def serve(listener, config):
    """Answers until shutdown ends the process."""
    responder, stream = Responder(config), Stream()
    requests, messages = listener.requests, listener.stream
    poller = zmq.Poller()
    poller.register(requests, zmq.POLLIN)
    poller.register(messages, zmq.POLLIN)
    while True:
        if stream.remaining:  # a message is due: the stream socket alone
            _take(messages.recv(copy=False).buffer, stream)
            continue
        ready = dict(poller.poll())
        if messages in ready:  # nothing was announced
            messages.recv(copy=False)
            report("rejected frame", "unexpected message")
        elif requests in ready:
            body = requests.recv(copy=False).buffer
            try:
                answer_frame(body, requests.send, responder, stream, listener.stream_window)
            except Rejected as rejected:
                report("rejected frame", rejected.reason)
                requests.send(b"")


def _take(body, stream):
    try:
        take_message(body, stream)
    except Rejected as rejected:
        report("rejected frame", rejected.reason)
