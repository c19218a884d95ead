"""The nng-tcp and nng-ipc server's loop (PROTOCOL.md 4.9): frames on the REP request socket, a
stream's messages on the PULL stream socket, answered as message_server.py says. While a MARK's
messages are due it reads only the stream socket, so a control frame is taken only once every
message before it came; otherwise it waits on both sockets' NNG_OPT_RECVFD descriptors. REP
must answer every request, so a rejected frame is answered with an empty message.
"""
import select

from .errors import report
from .frame import Rejected
from .message_server import Stream, answer_frame, take_message
from .responder import Responder
from .transport.nng import Received, send


def serve(listener, config):
    """Answers until shutdown ends the process."""
    responder, stream = Responder(config), Stream()
    requests, messages = listener.requests, listener.stream
    request_fd, message_fd = requests.recv_fd, messages.recv_fd
    poller = select.poll()
    poller.register(request_fd, select.POLLIN)
    poller.register(message_fd, select.POLLIN)

    def reply(frame):
        send(requests, frame)

    while True:
        if stream.remaining:  # a message is due: the stream socket alone
            with Received(messages) as message:
                _take(message.body, stream)
            continue
        ready = {fd for fd, _ in poller.poll()}
        if message_fd in ready:  # nothing was announced
            Received(messages).close()
            report("rejected frame", "unexpected message")
        elif request_fd in ready:
            with Received(requests) as frame:
                try:
                    answer_frame(frame.body, reply, responder, stream, listener.stream_window)
                except Rejected as rejected:
                    report("rejected frame", rejected.reason)
                    send(requests, b"")


def _take(body, stream):
    try:
        take_message(body, stream)
    except Rejected as rejected:
        report("rejected frame", rejected.reason)
