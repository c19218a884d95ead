"""Framing of PROTOCOL.md section 2: the 24-byte header, the server's checks, frame templates."""
import struct
from collections import namedtuple

from . import payload
from .errors import ProtocolError

HEADER = struct.Struct("<4sBBHQII")
HEADER_SIZE = HEADER.size
MAGIC = b"IPCL"
VERSION = 1
REQUEST, RESPONSE, END, END_ACK = 1, 2, 3, 4
# Pattern stream (PROTOCOL.md 11.1). Kind 5 (DATA) framed a stream message until contract 3;
# since 4 a message is bare bytes and a DATA header is an unexpected kind.
DATA, MARK, MARK_ACK = 5, 6, 7
KIND_NAMES = {REQUEST: "REQUEST", RESPONSE: "RESPONSE", END: "END", END_ACK: "END_ACK",
              DATA: "DATA", MARK: "MARK", MARK_ACK: "MARK_ACK"}
INCOMING = (REQUEST, END, MARK)
# Flag NO_REPLY (PROTOCOL.md 2, 11.2 one-way): allowed on REQUEST and END only. A server sees
# such a frame as a kind of its own (check_incoming), so its loop needs no flags field.
NO_REPLY = 1
FLAGGED_KINDS = 8
REQUEST_NO_REPLY = REQUEST | NO_REPLY << FLAGGED_KINDS
END_NO_REPLY = END | NO_REPLY << FLAGGED_KINDS
# END_ACK to a one-way END: u64 corrupted, u64 requests received since the previous END.
ONE_WAY_ACK = struct.Struct("<QQ")
ONE_WAY_ACK_LENGTH = ONE_WAY_ACK.size
MAX_PAYLOAD = 134217728
END_ACK_LENGTH = 8
LENGTH_OFFSET = 16
COUNTER = struct.Struct("<Q")
# A stream's END_ACK payload: received, gaps, checksum, user_ns, sys_ns, voluntary, involuntary.
STREAM_ACK = struct.Struct("<7Q")
STREAM_ACK_LENGTH = STREAM_ACK.size
# MARK's payload: u64 message size, u64 count of messages that follow it.
MARK_FIELDS = struct.Struct("<QQ")
MARK_LENGTH = MARK_FIELDS.size

Header = namedtuple("Header", "magic version kind flags sequence length wanted")

# The fast path reads magic, version, kind and flags as one integer: a well-formed REQUEST
# is then recognised with one comparison and two bounds checks (a udp stream server tells
# MARK and END from messages the same way).
HEADER_WORDS = struct.Struct("<QQII")
REQUEST_PREFIX, MARK_PREFIX, END_PREFIX = (
    int.from_bytes(MAGIC + bytes([VERSION, kind, 0, 0]), "little") for kind in (REQUEST, MARK, END))

# What a template rewrites per frame, from offset 8: sequence, length, wanted, stamp word.
_PATCH_WITH_STAMP = struct.Struct("<QIIQ")
_PATCH = struct.Struct("<QII")


class Rejected(ProtocolError):
    """A malformed incoming frame; `reason` is one of the contract's reason strings."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def encode_header(kind, sequence, length, wanted, flags=0):
    return HEADER.pack(MAGIC, VERSION, kind, flags, sequence, length, wanted)


def decode_header(data, offset=0):
    return Header._make(HEADER.unpack_from(data, offset))


def check_incoming(data, offset=0):
    """Validates a header a server received; returns (kind, sequence, length, wanted), the
    kind REQUEST_NO_REPLY or END_NO_REPLY for a frame with flag NO_REPLY.

    Raises Rejected with the first failing check, in the contract's order.
    """
    prefix, sequence, length, wanted = HEADER_WORDS.unpack_from(data, offset)
    if prefix == REQUEST_PREFIX and length <= MAX_PAYLOAD and wanted <= MAX_PAYLOAD:
        return REQUEST, sequence, length, wanted
    header = decode_header(data, offset)
    raise_if_malformed(header)
    return (header.kind | header.flags << FLAGGED_KINDS, header.sequence, header.length,
            header.wanted)


def raise_if_malformed(header):
    if header.magic != MAGIC:
        raise Rejected("bad magic")
    if header.version != VERSION:
        raise Rejected("bad version")
    if header.kind not in INCOMING:
        raise Rejected("unexpected kind")
    if header.flags != 0 and (header.flags != NO_REPLY or header.kind not in (REQUEST, END)):
        raise Rejected("bad flags")
    if header.length > MAX_PAYLOAD or header.wanted > MAX_PAYLOAD:
        raise Rejected("length too large")
    if header.kind == END and header.length != 0:
        raise Rejected("bad end frame")
    if header.kind == MARK and (header.wanted != 0 or header.length != MARK_LENGTH):
        raise Rejected("bad stream frame")


def declared_size(data):
    """Whole frame size a received header announces (the header must be complete)."""
    return HEADER_SIZE + int.from_bytes(data[LENGTH_OFFSET:LENGTH_OFFSET + 4], "little")


def header_difference(received, expected):
    """Names the first header field where `received` differs from `expected`, or None."""
    got, want = decode_header(received), decode_header(expected)
    for field in Header._fields:
        if getattr(got, field) != getattr(want, field):
            return f"{field}: expected {_show(field, getattr(want, field))}, " \
                   f"received {_show(field, getattr(got, field))}"
    return None


def _show(field, value):
    if field == "magic":
        return value.hex()
    if field == "kind":
        return f"{value} ({KIND_NAMES.get(value, 'unknown')})"
    return str(value)


def end_ack(sequence, corrupted):
    return encode_header(END_ACK, sequence, END_ACK_LENGTH, 0) + COUNTER.pack(corrupted)


def one_way_end_ack(sequence, corrupted, received):
    """END_ACK to a one-way END (PROTOCOL.md 11.2)."""
    return (encode_header(END_ACK, sequence, ONE_WAY_ACK_LENGTH, 0)
            + ONE_WAY_ACK.pack(corrupted, received))


def stream_end_ack(sequence, fields):
    """END_ACK of a stream (PROTOCOL.md 11.1 step 4): `fields` are STREAM_ACK's seven u64."""
    return encode_header(END_ACK, sequence, STREAM_ACK_LENGTH, 0) + STREAM_ACK.pack(*fields)


def mark_ack(sequence):
    return encode_header(MARK_ACK, sequence, 0, 0)


def encode_mark(sequence, message_size, count):
    """MARK (PROTOCOL.md 11.1): `count` messages of `message_size` bytes follow it."""
    return encode_header(MARK, sequence, MARK_LENGTH, 0) + MARK_FIELDS.pack(message_size, count)


def mark_fields(frame, largest):
    """(message size, count) of a whole MARK frame; a size of 0 or above `largest` (the
    server's own limit for a message) is `bad stream frame`."""
    size, count = MARK_FIELDS.unpack_from(frame, HEADER_SIZE)
    if size == 0 or size > largest:
        raise Rejected("bad stream frame")
    return size, count


class FrameTemplate:
    """A preallocated frame [header | payload base] for one (kind, length, stream).

    patch() rewrites sequence, length, wanted and the stamp in place, so sending or comparing
    a frame costs no allocation and no payload generation.
    """

    def __init__(self, kind, length, wanted, seed, stream, flip_last_byte=False, flags=0):
        self.length = length
        self.buf = bytearray(HEADER_SIZE + length)
        HEADER.pack_into(self.buf, 0, MAGIC, VERSION, kind, flags, 0, length, wanted)
        body = memoryview(self.buf)[HEADER_SIZE:]
        payload.fill_base(body, seed, stream)
        body.release()
        if flip_last_byte and length:
            # Flipping the base keeps the fault through every stamp, including payloads of
            # 8 bytes or fewer whose last byte is rewritten by each stamp.
            self.buf[-1] ^= 0x01
        self._word = payload.first_word(self.buf[HEADER_SIZE:HEADER_SIZE + 8])
        if length >= 8:
            self.patch = self._patch_with_word
        elif length > 0:
            self.patch = self._patch_short
        else:
            self.patch = self._patch_header

    def _patch_with_word(self, sequence, wanted):
        _PATCH_WITH_STAMP.pack_into(self.buf, 8, sequence, self.length, wanted,
                                    self._word ^ sequence)

    def _patch_short(self, sequence, wanted):
        _PATCH.pack_into(self.buf, 8, sequence, self.length, wanted)
        stamped = (self._word ^ sequence).to_bytes(8, "little")
        self.buf[HEADER_SIZE:] = stamped[:self.length]

    def _patch_header(self, sequence, wanted):
        _PATCH.pack_into(self.buf, 8, sequence, self.length, wanted)
