"""The server's side of a stream of bare messages (PROTOCOL.md 11.1, contract 4): a message
of S bytes is S bytes, its sequence is in its first min(8, S) bytes (the stamp XOR the base),
and MARK says how many follow. The grpc stream, whose messages carry their sequence, keeps
tally.StreamTally.

MessageTally counts, checks sequences and sums whole batches of messages with a handful of
numpy calls, so its cost per message is small whatever S is:

- a batch is n messages of S bytes back to back; its whole words are one strided u64 view
  (row stride S) summed mod 2^64, its last S mod 8 bytes (a zero-padded word) are column sums
  shifted into place, and the first word of each row, XOR the base, is its sequence;
- messages that come one at a time (a channel message, a datagram, a file) are first copied
  into a stage of many message slots and summed when it is full, as tally.StreamTally does.
"""
from . import cpu
from .frame import END, MARK, Rejected, mark_ack, mark_fields, stream_end_ack
from .payload import MASK, REQUEST_STREAM, base, first_word

STAGE_BYTES = 1 << 18  # fits a core's L2 cache
MIN_SLOTS = 16  # a message size with fewer slots than this is summed straight from the buffer
FAULTY = 1  # the stream faults hit the message that arrives when this many have: the second


class MessageTally:
    def __init__(self, seed, fault="none"):
        import numpy

        self._np = numpy  # loaded now, not inside the CPU figures of the stream
        self._seed = seed
        self._drop = fault == "drop-stream-message"
        self._fault = fault in ("drop-stream-message", "flip-stream-byte")
        self.size = self.mark = None
        self._stage = None
        self._slots = self._staged = 0
        self.received = self.gaps = self._arrived = 0

    def restart(self, mark, size):
        """MARK `mark` announcing messages of `size` bytes: the counts start again, expecting
        sequence mark + 1; the CPU figures start here."""
        if size != self.size:
            self._prepare(size)
        self.mark = mark
        self.received = self.gaps = self._arrived = self._staged = 0
        self._sum = 0
        self._next = (mark + 1) & self._mask
        self._fault_at = FAULTY if self._fault else -1
        self._cpu = cpu.now()

    def _prepare(self, size):
        """What depends on the size only: the base's stamped word, the sequences' modulus
        (2^(8S) for S < 8) and the stage."""
        stamped = min(8, size)
        self.size = size
        self._mask = (1 << 8 * stamped) - 1
        self._word = first_word(base(self._seed, REQUEST_STREAM, stamped))
        slots = STAGE_BYTES // size
        self._slots = slots if slots >= MIN_SLOTS else 0
        self._stage = None  # made when the first message is staged

    def add(self, view, count):
        """`count` whole messages, back to back in `view` (a buffer reused after the call)."""
        at = self._fault_at - self._arrived
        if 0 <= at < count:
            self._inject(view, count, at)
            return
        self._arrived += count
        if count < self._slots:
            self._stage_messages(view, count)
        else:
            self._flush()
            self._batch(view, count)

    def _inject(self, view, count, at):
        """The stream faults: message `at` of the batch is left out, or taken with the low bit
        of its last byte flipped (a copy; this happens once per stream)."""
        self._fault_at = -1
        size = self.size
        if at:
            self.add(view[:at * size], at)
        self._arrived += 1
        if not self._drop:
            flipped = bytearray(view[at * size:(at + 1) * size])
            flipped[-1] ^= 0x01
            self.add(memoryview(flipped), 1)
        if at + 1 < count:
            self.add(view[(at + 1) * size:count * size], count - at - 1)

    def untouched(self):
        """Nothing has arrived since the last MARK."""
        return self._arrived == 0 and self.gaps == 0

    def gap(self):
        """A datagram that cannot be a message of this stream (udp: another size)."""
        self.gaps += 1

    def _stage_messages(self, view, count):
        size, stage = self.size, self._stage
        if stage is None:
            stage = self._stage = memoryview(bytearray(self._slots * size))
        while count:
            taken = min(count, self._slots - self._staged)
            at, length = self._staged * size, taken * size
            stage[at:at + length] = view[:length] if taken < count else view
            self._staged += taken
            if self._staged == self._slots:
                self._flush()
            if taken == count:
                return
            view, count = view[length:], count - taken

    def _flush(self):
        if self._staged:
            staged, self._staged = self._staged, 0
            self._batch(self._stage[:staged * self.size], staged)

    def _batch(self, view, count):
        """Sums `count` messages of `view` and counts their gaps."""
        np, size = self._np, self.size
        whole, tail = size >> 3, size & 7
        total = 0
        if whole:
            words = np.ndarray((count, whole), "<u8", view, 0, (size, 8))
            total = int(words.sum(dtype=np.uint64))
            firsts = words[:, 0]
        if tail:
            rows = np.frombuffer(view, np.uint8, count * size).reshape(count, size)
            columns = rows[:, whole * 8:].sum(axis=0, dtype=np.uint64)
            total += sum(int(column) << 8 * index for index, column in enumerate(columns))
            if not whole:  # S < 8: the message is its stamp
                firsts = np.zeros(count, np.uint64)
                for index in range(size):
                    firsts |= rows[:, index].astype(np.uint64) << np.uint64(8 * index)
        self._sum += total
        self._count_gaps(firsts ^ np.uint64(self._word), count)
        self.received += count

    def _count_gaps(self, sequences, count):
        """Every message whose sequence is not the previous one's plus 1 (mod 2^(8S) for
        S < 8) is a gap; the count continues from the sequence received."""
        np, mask = self._np, self._mask
        gaps = int(int(sequences[0]) != self._next)
        if count > 1:
            steps = sequences[1:] - sequences[:-1]
            if mask != MASK:
                steps &= np.uint64(mask)
            gaps += count - 1 - int(np.count_nonzero(steps == 1))
        self.gaps += gaps
        self._next = (int(sequences[-1]) + 1) & mask

    def ack_fields(self):
        """END_ACK's seven fields (frame.STREAM_ACK), the CPU figures taken now."""
        self._flush()
        figures = cpu.since(self._cpu)
        return (self.received, self.gaps, self._sum & MASK, *figures)


def receive_stream(frame, reader, send, tally, largest):
    """A stream link's stream (PROTOCOL.md 11.1) from its first MARK: answers each MARK,
    takes the messages it announced, answers END with the stream's END_ACK. True after END,
    False at end of stream. `largest`: the longest message the server takes."""
    while frame is not None:
        kind, sequence, _, _, received = frame
        if kind == MARK:
            size, count = mark_fields(received, largest)
            tally.restart(sequence, size)
            send(mark_ack(sequence))
            take_messages(reader, tally, size, count)
        elif kind == END:
            send(stream_end_ack(sequence, tally.ack_fields()))
            return True
        else:
            raise Rejected("unexpected kind")  # a REQUEST inside a stream
        frame = reader.next_frame()
    return False


def take_messages(reader, tally, size, count):
    messages, add = reader.messages, tally.add
    while count:
        view, taken = messages(size, count)
        add(view, taken)
        count -= taken
