"""The server's side of a stream (PROTOCOL.md 11.1 steps 1, 3, 4 and the stream faults): the
DATA frames received since MARK, their gaps, the checksum of their payloads, and the server's
CPU figures from MARK to END. The frame servers (server.py) and the grpc servicer share it.

The checksum is summed by numpy a batch at a time: each payload of the stream's size is copied
into its own zero-padded slot of a staging buffer (one memmove) and the buffer is summed when it
is full, which costs far less per message than a numpy call per payload. Payloads too large for
the stage, or of another size than the first, are summed in place (payload.word_sum).
"""
from . import cpu
from .payload import MASK, word_sum

STAGE_BYTES = 1 << 18  # fits a core's L2 cache
MIN_SLOTS = 16  # a payload size with fewer slots than this is summed in place
FAULTY = 1  # the fault hits the DATA frame found when this many were received: the second


class StreamTally:
    def __init__(self, fault="none"):
        import numpy  # noqa: F401 - loaded now, not inside the CPU figures of the stream

        self._drop = fault == "drop-stream-message"
        self._fault = fault in ("drop-stream-message", "flip-stream-byte")
        self._size = None  # the payload size the stage holds (None: no stage yet)
        self._stage = None
        self._slot = self._capacity = self._filled = 0
        self.restart(None)

    def restart(self, next_sequence):
        """MARK: the counts start again, expecting `next_sequence` (None: from whatever
        sequence comes first, as a grpc stream call does); the CPU figures start here."""
        self.received = self.gaps = 0
        self._sum = 0
        self._filled = 0
        self._next = next_sequence
        self._fault_at = FAULTY if self._fault else -1
        self._cpu = cpu.now()

    def add(self, sequence, payload):
        """One DATA frame: its sequence and its payload (a buffer that may be reused after)."""
        if self.received == self._fault_at:
            payload = self._inject(payload)
            if payload is None:
                return
        if sequence != self._next and self._next is not None:
            self.gaps += 1
        self._next = sequence + 1
        self.received += 1
        size = len(payload)
        if size == self._size:
            at = self._filled
            self._stage[at:at + size] = payload
            at += self._slot
            self._filled = at
            if at == self._capacity:
                self._flush()
        else:
            self._add_other(payload)

    def _inject(self, payload):
        """The stream faults: the second measured DATA frame is left out (None) or has the
        low bit of its last byte flipped (a copy)."""
        self._fault_at = -1
        if self._drop:
            return None
        flipped = bytearray(payload)
        if flipped:
            flipped[-1] ^= 0x01
        return flipped

    def _add_other(self, payload):
        size = len(payload)
        slot = (size + 7) & ~7
        if self._size is None and size and STAGE_BYTES // slot >= MIN_SLOTS:
            self._size, self._slot = size, slot
            self._capacity = STAGE_BYTES // slot * slot
            self._stage = memoryview(bytearray(self._capacity))
            self._stage[:size] = payload
            self._filled = slot
        elif size:
            self._sum += word_sum(payload)

    def _flush(self):
        if self._filled:
            self._sum += word_sum(self._stage[:self._filled])
            self._filled = 0

    def checksum(self):
        self._flush()
        self._sum &= MASK
        return self._sum

    def ack_fields(self):
        """END_ACK's seven fields (frame.STREAM_ACK), the CPU figures taken now."""
        figures = cpu.since(self._cpu)
        return (self.received, self.gaps, self.checksum(), *figures)
