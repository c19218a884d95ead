"""The redis-tcp and redis-uds responder's loop (PROTOCOL.md 4.10): each frame taken with BLPOP
NAME:requests 0 and answered as message_server.py says, its RPUSH NAME:replies written in one
call with the next take; the messages a MARK announced taken in batches (LPOP with a count,
BLPOP when the list is empty), a credit pushed per K(S) of them; a rejected frame answered with
an empty element.
"""
from .errors import IoError, PeerError, report
from .frame import END, MARK, Rejected
from .message_server import CreditedStream, answer_frame
from .responder import Responder
from .transport.credit_window import stream_window

class Loop:
    def __init__(self, listener, config):
        self.pipe, self.keys = listener.pipe, listener.keys
        self.responder = Responder(config)
        self.stream = CreditedStream(
            lambda: self.pipe.append(False, "RPUSH", self.keys.credits, b""))
        self.blocking = True    # the next take: BLPOP (one, waited for) or LPOP (a batch)
        self.take_sent = False  # the next take is written already (with an answer)
        self.more = False       # more elements of this batch follow: no take with the answer

    def append_take(self):
        remaining = self.stream.remaining
        if self.blocking or not remaining:
            self.pipe.append(True, "BLPOP", self.keys.requests, 0)
            self.is_blpop = True
        else:
            size = self.stream.tally.size
            count = min(remaining, stream_window(size))
            self.pipe.append(True, "LPOP", self.keys.requests, count)
            self.is_blpop = False

    def reply(self, frame, kind):
        """An answer, written at once with the next take (the request's payload is checked
        after it went, PROTOCOL.md 3)."""
        if kind in (MARK, END):
            self.pipe.append(False, "DEL", self.keys.credits)
        self.pipe.append(False, "RPUSH", self.keys.replies, frame)
        if not self.more:
            self.blocking = False
            self.append_take()
            self.take_sent = True
        self.pipe.flush()

    def element(self, body):
        if self.stream.remaining:
            self.stream.take(body)
            return
        kind = body[5] if len(body) > 5 else 0
        try:
            answer_frame(body, lambda frame: self.reply(frame, kind), self.responder,
                         self.stream, self.stream.window)
        except Rejected as rejected:
            report("rejected frame", rejected.reason)
            self.pipe.append(False, "RPUSH", self.keys.replies, b"")

    def run(self):
        self.append_take()
        self.pipe.flush()
        while True:
            reply = self.pipe.next()
            self.take_sent, self.blocking = False, False
            if reply is None:
                self.blocking = True  # LPOP found the list empty: wait for one
            elif self.is_blpop:
                if not isinstance(reply, list) or len(reply) != 2:
                    raise IoError("BLPOP answered no [key, element] pair")
                self.element(reply[1])
            elif isinstance(reply, list):
                for i, body in enumerate(reply):
                    self.more = i + 1 < len(reply)
                    self.element(body)
                self.more = False
            else:
                raise IoError(f"a take from {self.keys.requests} answered no list")
            if not self.take_sent:
                self.append_take()
                self.pipe.flush()


def serve(listener, config):
    """Answers until shutdown ends the process; a lost server ends it with the io error's
    code."""
    try:
        Loop(listener, config).run()
    except PeerError as err:
        report(err.kind, str(err))
        return err.code
