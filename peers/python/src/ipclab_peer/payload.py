"""Payload generator of PROTOCOL.md section 3: splitmix64 base, sequence stamp, comparison.

The base is produced with numpy over uint64 arrays, whose arithmetic wraps mod 2^64 exactly as
the spec's; a 128 MiB base takes well under a second. numpy is imported lazily so that peers
that never need a payload (or only an empty one) start quickly.
"""
import struct

GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
MASK = (1 << 64) - 1

REQUEST_STREAM = 1
RESPONSE_STREAM = 2

# Words generated per numpy pass: large enough to amortise numpy's per-call cost, small
# enough that the temporaries stay in cache and memory does not double for 128 MiB payloads.
_CHUNK_WORDS = 1 << 17
_COMPARE_CHUNK = 1 << 22
_WORD = struct.Struct("<Q")


def start_state(seed, stream):
    return (seed ^ (stream * GOLDEN)) & MASK


def fill_base(dest, seed, stream):
    """Writes the first len(dest) base bytes of (seed, stream) into the writable buffer dest."""
    size = len(dest)
    if size == 0:
        return
    import numpy as np

    out = np.frombuffer(dest, dtype=np.uint8)
    state = np.uint64(start_state(seed, stream))
    words = (size + 7) // 8
    scratch = np.empty(min(_CHUNK_WORDS, words), dtype=np.uint64)
    for first in range(0, words, _CHUNK_WORDS):
        last = min(words, first + _CHUNK_WORDS)
        z = _splitmix_words(np, state, first, last, scratch[: last - first])
        lo, hi = first * 8, min(size, last * 8)
        out[lo:hi] = z.astype("<u8", copy=False).view(np.uint8)[: hi - lo]


def _splitmix_words(np, state, first, last, scratch):
    """Outputs first..last-1 of splitmix64: output i uses state + (i + 1) * GOLDEN."""
    z = np.arange(first + 1, last + 1, dtype=np.uint64)
    z *= np.uint64(GOLDEN)
    z += state
    np.right_shift(z, np.uint64(30), out=scratch)
    z ^= scratch
    z *= np.uint64(MIX1)
    np.right_shift(z, np.uint64(27), out=scratch)
    z ^= scratch
    z *= np.uint64(MIX2)
    np.right_shift(z, np.uint64(31), out=scratch)
    z ^= scratch
    return z


def base(seed, stream, size):
    data = bytearray(size)
    fill_base(data, seed, stream)
    return bytes(data)


def first_word(data):
    """The first min(8, len) bytes as a little-endian integer: the part the stamp rewrites."""
    return int.from_bytes(data[:8], "little")


def stamp(data, sequence):
    """Stamps `sequence` into a writable payload holding the base (in place)."""
    count = min(8, len(data))
    data[:count] = (first_word(data) ^ sequence).to_bytes(8, "little")[:count]


class Stamped:
    """A preallocated payload holding its base, stamped in place per sequence."""

    def __init__(self, seed, stream, size):
        self.size = size
        self.buf = bytearray(size)
        fill_base(self.buf, seed, stream)
        self.base = bytes(self.buf)
        self.word = first_word(self.base)
        self.stamp = stamper(self.buf, size, self.word)


def stamper(buf, size, word):
    """stamp(sequence) for a buffer of `size` bytes whose base's first word is `word`: one
    pack_into (sizes under 8: a slice assignment), whatever the previous stamp was."""
    if size >= 8:
        pack = _WORD.pack_into
        return lambda sequence: pack(buf, 0, word ^ sequence)
    if size > 0:
        def stamp_short(sequence):
            buf[:size] = (word ^ sequence).to_bytes(8, "little")[:size]
        return stamp_short
    return lambda sequence: None


def payload(seed, stream, sequence, size):
    data = bytearray(base(seed, stream, size))
    stamp(data, sequence)
    return bytes(data)


def first_difference(received, expected):
    """Offset of the first byte where two equally long buffers differ, or None."""
    import numpy as np

    got = np.frombuffer(received, dtype=np.uint8)
    want = np.frombuffer(expected, dtype=np.uint8)
    for start in range(0, min(len(got), len(want)), _COMPARE_CHUNK):
        stop = start + _COMPARE_CHUNK
        differs = np.flatnonzero(got[start:stop] != want[start:stop])
        if differs.size:
            return start + int(differs[0])
    if len(got) != len(want):
        return min(len(got), len(want))
    return None


# ---- the stream checksum (PROTOCOL.md 11.1 step 3) ---------------------------------------------


def word_sum(data):
    """The checksum of one payload: the sum mod 2^64 of its bytes read as little-endian u64
    words, the last word zero-padded. numpy sums the whole words; the tail is one int."""
    import numpy as np

    whole = len(data) & ~7
    total = int(np.frombuffer(data, dtype="<u8", count=whole // 8).sum(dtype=np.uint64)) \
        if whole else 0
    if whole < len(data):
        total += int.from_bytes(data[whole:], "little")
    return total & MASK


def stream_checksum(seed, size, first, count):
    """The checksum the server must report for DATA frames `first` ... `first + count - 1` of
    `size` bytes: count times the base's word sum, with the first word of each payload
    replaced by its stamped value. The stamped first words are summed bit by bit in closed
    form, so this costs the same for any count."""
    if size == 0 or count == 0:
        return 0
    data = base(seed, REQUEST_STREAM, size)
    word = first_word(data)
    bits = 8 * min(8, size)
    stamped = sum(_xor_ones(word, bit, first, first + count) << bit for bit in range(bits))
    return (count * (word_sum(data) - word) + stamped) & MASK


def _xor_ones(word, bit, low, high):
    """How many sequences s in [low, high) have bit `bit` of (word XOR s) set."""
    ones = _ones_below(high, bit) - _ones_below(low, bit)
    return (high - low) - ones if word >> bit & 1 else ones


def _ones_below(n, bit):
    """How many x in [0, n) have bit `bit` set."""
    period = 1 << (bit + 1)
    return (n // period) * (period >> 1) + max(0, n % period - (period >> 1))

