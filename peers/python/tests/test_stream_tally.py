"""Pattern stream's sums (PROTOCOL.md 11.1 step 3): the client's expected checksum, the
server's message tally (batches, staged single messages, sequences from the stamps, gaps,
the stream faults) and the grpc servicer's tally."""
import pytest

from ipclab_peer import payload
from ipclab_peer.messages import MessageTally
from ipclab_peer.tally import STAGE_BYTES, StreamTally


def messages(seed, size, sequences):
    """The stamped messages of `sequences`, back to back, as a client sends them."""
    stamped = payload.Stamped(seed, payload.REQUEST_STREAM, size)
    chunks = []
    for sequence in sequences:
        stamped.stamp(sequence)
        chunks.append(bytes(stamped.buf))
    return b"".join(chunks)


def padded_words(data):
    data = bytes(data) + bytes(-len(data) % 8)
    return [int.from_bytes(data[at:at + 8], "little") for at in range(0, len(data), 8)]


def test_word_sum_by_hand():
    # 01..08 is the word 0x0807060504030201; 09 0a 0b is zero-padded to 0x0b0a09.
    assert payload.word_sum(bytes(range(1, 12))) == 0x0807060504030201 + 0x0B0A09
    assert payload.word_sum(b"\xff" * 16) == 2**64 - 2  # wraps mod 2^64
    assert payload.word_sum(b"") == 0


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 1027])
@pytest.mark.parametrize("first,count", [(0, 1), (3, 40), (2**40 - 5, 9)])
def test_the_expected_checksum_is_the_sum_of_what_is_sent(size, first, count):
    want = sum(sum(padded_words(payload.payload(11, payload.REQUEST_STREAM, sequence, size)))
               for sequence in range(first, first + count)) % 2**64
    assert payload.stream_checksum(11, size, first, count) == want


def test_the_server_tally_stages_payloads_and_sums_them_like_word_sum():
    size = 100
    slots = STAGE_BYTES // 104
    payloads = [payload.payload(3, 1, sequence, size) for sequence in range(2 * slots + 5)]
    payloads[7] = payload.payload(3, 1, 7, 33)  # another size: summed in place
    tally = StreamTally()
    tally.restart(0)
    for sequence, data in enumerate(payloads):
        tally.add(sequence, memoryview(data))
    fields = tally.ack_fields()
    assert fields[:3] == (len(payloads), 0,
                          sum(payload.word_sum(data) for data in payloads) % 2**64)


def feed(tally, data, size, pieces):
    """Hands `data` to the tally in batches of the given numbers of messages, in turn."""
    view, at, index = memoryview(data), 0, 0
    while at < len(data):
        count = min(pieces[index % len(pieces)], (len(data) - at) // size)
        tally.add(view[at:at + count * size], count)
        at, index = at + count * size, index + 1


@pytest.mark.parametrize("size", [1, 7, 8, 9, 100, 1027, 20000])
@pytest.mark.parametrize("pieces", [[1], [3000], [1, 2, 700, 5]], ids=["one", "all", "mixed"])
def test_the_message_tally_sums_what_the_client_expects(size, pieces):
    """Batches and single messages (staged) alike; S < 8 wraps its sequence modulo 2^(8S)."""
    mark, count = 250, 3000 if size < 20000 else 30
    tally = MessageTally(3)
    tally.restart(mark, size)
    feed(tally, messages(3, size, range(mark + 1, mark + 1 + count)), size, pieces)
    assert tally.ack_fields()[:3] == (count, 0, payload.stream_checksum(3, size, mark + 1,
                                                                        count))


@pytest.mark.parametrize("size", [1, 9])
def test_the_message_tally_counts_gaps_from_the_stamps(size):
    """Sequences 11, 12, 14, 15, 17 after MARK 10: two gaps; then MARK 30 starts again."""
    tally = MessageTally(5)
    tally.restart(10, size)
    feed(tally, messages(5, size, [11, 12, 14, 15, 17]), size, [2])
    assert tally.ack_fields()[:2] == (5, 2)
    tally.restart(30, size)
    assert tally.untouched()
    feed(tally, messages(5, size, [32]), size, [1])
    assert tally.ack_fields()[:2] == (1, 1)


@pytest.mark.parametrize("pieces", [[1], [50]])
def test_the_message_tally_injects_the_stream_faults(pieces):
    size, data = 16, messages(1, 16, range(1, 51))
    right = payload.stream_checksum(1, size, 1, 50)
    tally = MessageTally(1, "drop-stream-message")
    tally.restart(0, size)
    feed(tally, data, size, pieces)
    second = payload.word_sum(data[16:32])
    assert tally.ack_fields()[:3] == (49, 1, (right - second) % 2**64)
    tally = MessageTally(1, "flip-stream-byte")
    tally.restart(0, size)
    feed(tally, data, size, pieces)
    flipped = (right + (-1 if data[31] & 1 else 1) * (1 << 56)) % 2**64
    assert tally.ack_fields()[:3] == (50, 0, flipped)


def test_the_tally_counts_gaps_and_injects_the_faults():
    tally = StreamTally("drop-stream-message")
    tally.restart(5)
    for sequence in (5, 6, 7, 9):
        tally.add(sequence, b"abcdefgh")
    # 6 is dropped (a gap at 7), 8 is missing (a gap at 9).
    assert tally.ack_fields()[:3] == (3, 2, 3 * int.from_bytes(b"abcdefgh", "little") % 2**64)
    tally = StreamTally("flip-stream-byte")
    tally.restart(0)
    for sequence in range(3):
        tally.add(sequence, b"\x00\x01")
    # Each payload is the word 0x0100; the second one's last byte flipped makes it 0.
    assert tally.ack_fields()[:3] == (3, 0, 0x0100 + 0 + 0x0100)
