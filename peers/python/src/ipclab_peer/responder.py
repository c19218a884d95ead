"""The rr server's frames (PROTOCOL.md sections 2, 3, 6): the RESPONSE per wanted size, the
expected REQUEST per length, END_ACK with the corrupted count. Shared by the plain server's loop
(server.py) and the load server's connections (load/exchange.py)."""
from .frame import (END_NO_REPLY, NO_REPLY, REQUEST, RESPONSE, FrameTemplate, end_ack,
                    one_way_end_ack)
from .messages import MessageTally
from .payload import REQUEST_STREAM, RESPONSE_STREAM


class Responder:
    """The server's preallocated frames: the last response frame built (per wanted size)
    and the last expected request (per length). Callers patch them in place per round trip;
    they are rebuilt only when a client changes sizes.

    `corrupted` counts bad REQUEST payloads of the connections that ended since the last
    END: pattern short sends its END over a connection of its own (PROTOCOL.md 11.2)."""

    def __init__(self, config):
        self._seed = config.seed
        self._flip = config.fault == "flip-response-byte"
        self._fault = config.fault
        self._response = self._request = self._one_way = None
        self.corrupted = 0
        # One-way REQUESTs (PROTOCOL.md 11.2) since the last END, across connections.
        self.received = 0

    def tally(self):
        """A new stream's counters (PROTOCOL.md 11.1)."""
        return MessageTally(self._seed, self._fault)

    def response_for(self, wanted):
        if self._response is None or self._response.length != wanted:
            self._response = FrameTemplate(RESPONSE, wanted, 0, self._seed, RESPONSE_STREAM,
                                           self._flip)
        return self._response

    def take_one_way(self, frame):
        """A REQUEST with flag NO_REPLY: validated and counted, never answered."""
        _, sequence, length, wanted, received = frame
        expected = self._one_way
        if expected is None or expected.length != length:
            expected = self._one_way = FrameTemplate(REQUEST, length, 0, self._seed,
                                                     REQUEST_STREAM, flags=NO_REPLY)
        expected.patch(sequence, wanted)
        if expected.buf != received:
            self.corrupted += 1
        self.received += 1

    def end_ack(self, kind, sequence):
        """END_ACK to END (a one-way END's carries the requests received too); the counts
        start again."""
        if kind == END_NO_REPLY:
            ack = one_way_end_ack(sequence, self.corrupted, self.received)
        else:
            ack = end_ack(sequence, self.corrupted)
        self.corrupted = self.received = 0
        return ack

    def expected_request_for(self, length):
        if self._request is None or self._request.length != length:
            self._request = FrameTemplate(REQUEST, length, 0, self._seed, REQUEST_STREAM)
        return self._request
