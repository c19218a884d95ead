"""The nats responder's loop (PROTOCOL.md 4.11): each message on NAME.requests taken as a frame
and answered as message_server.py says, on the reply subject it carries; the messages a MARK
announced counted, a credit published to NAME.credits per K(S) of them; a rejected frame
answered with an empty message where it names a way back.
"""
from .errors import PeerError, report
from .frame import Rejected
from .message_server import CreditedStream, answer_frame
from .responder import Responder


class Loop:
    def __init__(self, listener, config):
        self.conn, self.credits = listener.conn, listener.credits
        self.responder = Responder(config)
        self.stream = CreditedStream(lambda: self.conn.publish(self.credits, b""))

    def take(self, msg):
        body = msg.data
        if self.stream.remaining:
            self.stream.take(body)
            return
        reply = msg.reply or None
        answer = (lambda frame: self.conn.publish(reply, bytes(frame))) if reply else None
        try:
            answer_frame(body, answer, self.responder, self.stream, self.stream.window)
        except Rejected as rejected:
            report("rejected frame", rejected.reason)
            if reply:
                self.conn.publish(reply, b"")


def serve(listener, config):
    """Answers until shutdown ends the process; a lost server ends it with the io error's
    code."""
    loop, requests = Loop(listener, config), listener.requests
    try:
        while True:
            loop.take(requests.next())
    except PeerError as err:
        report(err.kind, str(err))
        return err.code
