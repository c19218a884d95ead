"""Payload generator of PROTOCOL.md section 3: splitmix64 base, sequence stamp, comparison.

The base is produced with numpy over uint64 arrays, whose arithmetic wraps mod 2^64 exactly as
the spec's; a 128 MiB base takes well under a second. numpy is imported lazily so that peers
that never need a payload (or only an empty one) start quickly.
"""
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

