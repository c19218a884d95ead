"""Streams over datagrams (PROTOCOL.md 11.1: udp, uds-dgram), and what the datagram server
keeps per client address.

A stream message is one bare datagram of S bytes. On uds-dgram, which loses nothing, the
server counts: the K datagrams after a MARK are its messages (one of another size is rejected,
`length mismatch`, and the rest of the K given up: what follows is read as frames, and END's
answer shows the shortfall). On udp, which may lose any datagram (MARK and END included), it
cannot count: a datagram is a control frame when it is a well-formed MARK or END header, and
otherwise, while a stream is open, a message (one of another size is a gap).
"""
from .errors import report
from .frame import (END_PREFIX, HEADER_SIZE, HEADER_WORDS, MARK_PREFIX, end_ack, mark_ack,
                    mark_fields, stream_end_ack)


class Clients:
    """Per client address: bad REQUEST payloads since END; the stream in progress (a
    messages.MessageTally), or the END_ACK of the last one (udp: a client resends END until
    an END_ACK arrives, and every END is answered); uds-dgram: the messages its last MARK
    announced that have not come yet."""

    def __init__(self):
        self.corrupted = {}
        self.streams = {}  # address -> MessageTally, or (END sequence, END_ACK) once ended
        self.remaining = {}

    def mark(self, peer, datagram, sequence, responder, largest):
        """MARK_ACK to a MARK. A repeated MARK (udp: its MARK_ACK was lost) with no message
        since does not start the counts again."""
        size, count = mark_fields(datagram, largest)
        tally = self.streams.get(peer)
        if tally is None or type(tally) is tuple:
            tally = self.streams[peer] = responder.tally()
        if not (tally.mark == sequence and tally.size == size and tally.untouched()):
            tally.restart(sequence, size)
        self.remaining[peer] = count
        return mark_ack(sequence)

    def end_ack(self, peer, sequence):
        tally = self.streams.get(peer)
        if tally is None:
            return end_ack(sequence, self.corrupted.pop(peer, 0))
        if type(tally) is tuple:
            if tally[0] == sequence:
                return tally[1]
            del self.streams[peer]
            return end_ack(sequence, self.corrupted.pop(peer, 0))
        ack = stream_end_ack(sequence, tally.ack_fields())
        self.streams[peer] = (sequence, ack)
        self.remaining.pop(peer, None)
        return ack


def stream_datagram(datagram, size, peer, listener, clients):
    """Takes a datagram of `size` bytes (`datagram`: those that fitted the buffer) as a
    message of the client's open stream; False when it is not one (no stream, a control
    frame, or uds-dgram's announced messages all in)."""
    tally = clients.streams.get(peer)
    if tally is None or type(tally) is tuple:
        return False
    if listener.lossy:
        if is_control(datagram, size):
            return False
    else:
        remaining = clients.remaining[peer]
        if not remaining:
            return False
        clients.remaining[peer] = remaining - 1
        if size != tally.size:
            report("rejected frame", "length mismatch")
            clients.remaining[peer] = 0
            return True
    if size == tally.size:
        tally.add(datagram, 1)
    else:
        tally.gap()
    return True


def is_control(datagram, size):
    """A well-formed MARK or END header (magic, version, kind, flags 0, wanted 0) whose
    datagram is exactly 24 + length bytes."""
    if size < HEADER_SIZE:
        return False
    prefix, _, length, wanted = HEADER_WORDS.unpack_from(datagram)
    return (prefix == MARK_PREFIX or prefix == END_PREFIX) and wanted == 0 and \
        size == HEADER_SIZE + length
