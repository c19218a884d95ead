"""The shared vectors of protocol/vectors/vectors.json, checked in-process."""
import pytest
from peers import load_vectors, malformed_vectors

from ipclab_peer import frame, payload
from ipclab_peer.messages import MessageTally
from ipclab_peer.reader import FrameReader

VECTORS = load_vectors()
STREAMS = {"request": payload.REQUEST_STREAM, "response": payload.RESPONSE_STREAM}
KINDS = {"request": frame.REQUEST, "response": frame.RESPONSE, "end": frame.END,
         "end_ack": frame.END_ACK}


def fnv1a64(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def vector_id(vector):
    return vector.get("name") or f"{vector['stream']}-{vector['length']}-{vector['sequence']}"


@pytest.mark.parametrize("vector", VECTORS["payloads"], ids=vector_id)
def test_payload_generator(vector):
    data = payload.payload(vector["seed"], STREAMS[vector["stream"]], vector["sequence"],
                           vector["length"])
    assert len(data) == vector["length"]
    if "hex" in vector:
        assert data.hex() == vector["hex"]
    else:
        assert f"0x{fnv1a64(data):016x}" == vector["fnv1a64"]


@pytest.mark.parametrize("vector", VECTORS["payloads"], ids=vector_id)
def test_frame_template_stamps_like_the_reference(vector):
    """The template the peers send from must hold the same bytes after patch()."""
    stream, length = STREAMS[vector["stream"]], vector["length"]
    template = frame.FrameTemplate(frame.REQUEST, length, 5, vector["seed"], stream)
    template.patch(vector["sequence"] ^ 0xFFFF, 5)
    template.patch(vector["sequence"], 5)
    body = bytes(template.buf[frame.HEADER_SIZE:])
    assert body == payload.payload(vector["seed"], stream, vector["sequence"], length)


def test_base_is_generated_in_one_pass_across_chunks():
    """Sizes around the numpy chunk boundary must not repeat or skip a word."""
    size = payload._CHUNK_WORDS * 8 * 2 + 5
    data = payload.base(3, payload.RESPONSE_STREAM, size)
    words = [int.from_bytes(data[i:i + 8], "little") for i in range(0, size - 5, 8)]
    assert len(set(words)) == len(words)
    tail = payload.base(3, payload.RESPONSE_STREAM, size + 11)
    assert tail[:size] == data


@pytest.mark.parametrize("length", [1, 7, 8, 9, 100])
def test_flipped_template_differs_only_in_the_last_byte(length):
    clean = frame.FrameTemplate(frame.RESPONSE, length, 0, 1, payload.RESPONSE_STREAM)
    flipped = frame.FrameTemplate(frame.RESPONSE, length, 0, 1, payload.RESPONSE_STREAM,
                                  flip_last_byte=True)
    for sequence in (0, 1, 2**64 - 1):
        clean.patch(sequence, 16)
        flipped.patch(sequence, 16)
        difference = bytes(a ^ b for a, b in zip(clean.buf, flipped.buf))
        assert difference == bytes(len(difference) - 1) + b"\x01"


@pytest.mark.parametrize("vector", VECTORS["frames"], ids=vector_id)
def test_header_encoding(vector):
    encoded = frame.encode_header(KINDS[vector["kind"]], vector["sequence"], vector["length"],
                                  vector["wanted"], vector["flags"])
    assert encoded.hex() == vector["hex"]
    decoded = frame.decode_header(bytes.fromhex(vector["hex"]))
    assert (decoded.kind, decoded.sequence, decoded.length, decoded.wanted) == (
        KINDS[vector["kind"]], vector["sequence"], vector["length"], vector["wanted"])


@pytest.mark.parametrize("vector", VECTORS["frames"], ids=vector_id)
def test_template_header_matches_the_vector(vector):
    if vector["length"] > 1 << 20:
        pytest.skip("the maximum-size frame is covered by the round-trip tests")
    template = frame.FrameTemplate(KINDS[vector["kind"]], vector["length"], 0, 1, 1)
    template.patch(vector["sequence"], vector["wanted"])
    assert template.buf[:frame.HEADER_SIZE].hex() == vector["hex"]


@pytest.mark.parametrize("vector", [v for v in VECTORS["frames"]
                                    if v["kind"] in ("request", "end")], ids=vector_id)
def test_well_formed_headers_pass_the_server_checks(vector):
    header = bytes.fromhex(vector["hex"])
    assert frame.check_incoming(header) == (KINDS[vector["kind"]], vector["sequence"],
                                            vector["length"], vector["wanted"])


class BytesLink:
    """A stream link that hands out fixed bytes a few at a time, then end of stream."""

    def __init__(self, data, piece=7):
        self.data, self.piece = data, piece

    def read_into(self, view):
        count = min(len(view), self.piece, len(self.data))
        view[:count] = self.data[:count]
        self.data = self.data[count:]
        return count


@pytest.mark.parametrize("vector", malformed_vectors(), ids=vector_id)
def test_malformed_frames_are_rejected_by_the_reader(vector):
    reader = FrameReader(capacity=32)
    reader.attach(BytesLink(bytes.fromhex(vector["hex"])))
    with pytest.raises(frame.Rejected) as rejected:
        reader.next_frame()
    assert rejected.value.reason == vector["reason"]


def test_reader_splits_frames_that_arrive_in_pieces_and_together():
    first = frame.encode_header(frame.REQUEST, 1, 100, 4) + bytes(range(100))
    second = frame.encode_header(frame.END, 2, 0, 0)
    reader = FrameReader(capacity=40)
    reader.attach(BytesLink(first + second, piece=33))
    *header, received = reader.next_frame()
    assert header == [frame.REQUEST, 1, 100, 4] and bytes(received) == first
    *header, received = reader.next_frame()
    assert header == [frame.END, 2, 0, 0] and bytes(received) == second
    assert reader.next_frame() is None


def test_reader_grows_only_for_a_frame_that_passed_the_checks():
    big = frame.encode_header(frame.REQUEST, 0, 1000, 0) + bytes(1000)
    reader = FrameReader(capacity=64)
    reader.attach(BytesLink(big + frame.encode_header(frame.REQUEST, 1, 2**31, 0), piece=500))
    assert bytes(reader.next_frame()[-1]) == big
    with pytest.raises(frame.Rejected, match="length too large"):
        reader.next_frame()
    assert len(reader._buf) < 2000


def test_reader_memory_follows_the_bytes_that_arrived_not_the_claim():
    claim = frame.encode_header(frame.REQUEST, 0, frame.MAX_PAYLOAD, 0)
    reader = FrameReader(capacity=64)
    reader.attach(BytesLink(claim + bytes(1000), piece=100))
    with pytest.raises(frame.Rejected, match="truncated payload"):
        reader.next_frame()
    assert len(reader._buf) <= 2 * (frame.HEADER_SIZE + 1000)   # not 128 MiB
    whole = frame.encode_header(frame.REQUEST, 0, 100_000, 0) + bytes(100_000)
    reader.attach(BytesLink(whole, piece=7000))
    assert bytes(reader.next_frame()[-1]) == whole and len(reader._buf) == len(whole)


@pytest.mark.parametrize("received,expected,offset", [
    (b"", b"", None), (b"abc", b"abc", None), (b"abd", b"abc", 2), (b"xbc", b"abc", 0),
    (bytes(5 << 20) + b"x", bytes(5 << 20) + b"y", 5 << 20),
])
def test_first_difference(received, expected, offset):
    assert payload.first_difference(received, expected) == offset


@pytest.mark.parametrize("vector", VECTORS["stream_marks"], ids=vector_id)
def test_stream_marks(vector):
    """The client's MARK has the vector's bytes; the server's reader takes it as a MARK of
    that size and count (the largest message size is MAX_PAYLOAD, within the server's limit)."""
    fields = vector["sequence"], vector["message_size"], vector["count"]
    assert frame.encode_mark(*fields).hex() == vector["hex"]
    reader = FrameReader(capacity=32)
    reader.attach(BytesLink(bytes.fromhex(vector["hex"])))
    kind, sequence, length, wanted, received = reader.next_frame()
    assert (kind, sequence, length, wanted) == (frame.MARK, vector["sequence"], 16, 0)
    assert frame.mark_fields(received, frame.MAX_PAYLOAD) == fields[1:]
    assert reader.next_frame() is None


@pytest.mark.parametrize("vector", VECTORS["stream_checksums"],
                         ids=lambda v: f"{v['seed']}-{v['message_size']}-{v['first_sequence']}")
def test_stream_checksums(vector):
    """The client's expected sum (closed form) and the server's running sum (MessageTally,
    from the messages' bytes, sequences recovered from their stamps) both give the vector's."""
    seed, size, first, count = (vector[key] for key in ("seed", "message_size",
                                                        "first_sequence", "messages"))
    want = int(vector["checksum"], 16)
    assert payload.stream_checksum(seed, size, first, count) == want
    if size == 0:
        return  # contract 4 has no empty messages: only the client's closed form is defined
    data = b"".join(payload.payload(seed, payload.REQUEST_STREAM, sequence, size)
                    for sequence in range(first, first + count))
    tally = MessageTally(seed)
    tally.restart(first - 1, size)
    tally.add(memoryview(data), count)
    assert tally.ack_fields()[:3] == (count, 0, want)
