"""What every RPC server does (PROTOCOL.md 10.1), whatever the framework: `call`'s payloads,
the corrupted-request count that `finish` returns and resets, the fault injection, and the
counters of a stream (11.3)."""
import threading

from ..payload import REQUEST_STREAM, RESPONSE_STREAM, base, stamp
from ..structs import as_text
from ..tally import StreamTally


class Bench:
    def __init__(self, seed, fault="none"):
        self._seed = seed
        self._fault = fault
        self._flip = fault == "flip-response-byte"
        self._lock = threading.Lock()
        self._corrupted = 0
        # (size, base) of the last response and request: a client keeps its sizes, so one
        # entry each spares the generation per call without growing with the sizes seen.
        self._response = self._request = (None, b"")

    def warm(self):
        """A load server's, before READY: a first base makes payload.py import numpy, which
        would otherwise cost the first call ~150 ms, charged to every request behind it."""
        self._base(RESPONSE_STREAM, 8)

    def call(self, sequence, wanted, request):
        """payload(seed, 2, sequence, wanted), after comparing the request with its expected
        bytes (a handler has no "after the reply")."""
        response = self._response_to(sequence, wanted)
        self.put(sequence, request)
        return response

    def call_string(self, sequence, wanted, request):
        """callString (--corba-payload string): `call` with each byte as a character of
        10.2's alphabet, the request compared with the mapped expected bytes."""
        response = as_text(self._response_to(sequence, wanted))
        expected = bytearray(self._base(REQUEST_STREAM, len(request)))
        stamp(expected, sequence)
        if as_text(expected) != request:
            self._count_corrupted()
        return response

    def _response_to(self, sequence, wanted):
        response = bytearray(self._base(RESPONSE_STREAM, wanted))
        stamp(response, sequence)
        if self._flip and response:
            response[-1] ^= 1
        return response

    def put(self, sequence, request):
        """`put` (--void): compares the request with its expected bytes as `call` does and
        returns nothing."""
        expected = bytearray(self._base(REQUEST_STREAM, len(request)))
        stamp(expected, sequence)
        if expected != request:
            self._count_corrupted()

    def _count_corrupted(self):
        with self._lock:
            self._corrupted += 1

    def _base(self, stream, size):
        cached = self._response if stream == RESPONSE_STREAM else self._request
        if cached[0] != size:
            cached = (size, base(self._seed, stream, size))
            if stream == RESPONSE_STREAM:
                self._response = cached
            else:
                self._request = cached
        return cached[1]

    def echo(self, value):
        """An echo's answer: the record itself, its n2 changed by the fault."""
        value.n2 = self.echo_n2(value.n2)
        return value

    def echo_n2(self, n2):
        """The n2 an echo returns: the fault flips its low bit."""
        return n2 ^ 1 if self._flip else n2

    def finish(self):
        with self._lock:
            corrupted, self._corrupted = self._corrupted, 0
        return corrupted

    def stream(self, sequences_and_payloads):
        """A client-streaming call's messages -> END_ACK's seven fields (frame.STREAM_ACK):
        the counts start with the call, gaps from its first message's sequence."""
        tally = StreamTally(self._fault)
        add = tally.add
        for sequence, payload in sequences_and_payloads:
            add(sequence, payload)
        return tally.ack_fields()
