"""The iceoryx2 and iceoryx2-spin server's loop (PROTOCOL.md 4.12): each sample on
ipclab/requests validated where it lies and answered on ipclab/responses as message_server.py
says, then released; while a MARK's messages are due each sample is one of them. A rejected
frame is answered with an empty sample, a rejected stream message with nothing. Clients come one
after another, each opening the same services; a sample from another publisher than the last is
a new client's, so a stream the one before left unfinished (a killed client) is forgotten, as a
closed connection's would be. With --sample-write header a REQUEST is answered by a RESPONSE
whose header alone is written, its own payload never read (4.12).
"""
from .errors import report
from .frame import Rejected
from .message_server import Stream, answer_frame, take_message
from .responder import Responder


def serve(listener, config, largest):
    """Answers until shutdown ends the process; returns once shutdown has had the loop drop
    the node (transport/iceoryx2_samples.py)."""
    responder, stream, send = Responder(config), Stream(), listener.send
    respond = listener.send_header if config.sample_write == "header" else None
    while (body := listener.next()) is not None:
        if listener.another_client:  # a client before it may have ended amid a stream
            stream.open, stream.remaining = False, 0
        try:
            if stream.remaining:
                take_message(body, stream)
            else:
                _answer(body, (send, respond), responder, stream, largest)
        except Rejected as rejected:  # a stream message: no answer, the rest given up
            report("rejected frame", rejected.reason)
        finally:
            listener.release()
    return 0


def _answer(body, senders, responder, stream, largest):
    """`senders`: (send a frame, send a RESPONSE's header alone or None: --sample-write)."""
    send, respond = senders
    try:
        answer_frame(body, send, responder, stream, _no_window, largest, respond)
    except Rejected as rejected:
        report("rejected frame", rejected.reason)
        send(b"")


def _no_window(size):
    """The subscriber's buffer is a stream's flow control (4.12): nothing to set."""
