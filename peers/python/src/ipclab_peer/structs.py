"""Structured payloads of PROTOCOL.md section 10.2: Small, Medium, Large records drawn from
splitmix64, the sequence stamp in n1, and a field-by-field comparison.

`records(...)` is the stream of records of one seed (contract 6's `--records per-call`): record
1 is `record(...)`'s, record k+1 continues from the generator's state after record k.
`--value-range non-negative` draws each int as `next() AND 0x7FFFFFFF` instead of the 32 bits
read as two's complement: the same draws, so every other field stays the same.

Records are plain dicts in field order; each RPC framework converts them to and from its own
generated types, so the generator and the check exist once.
"""
from .payload import GOLDEN, MASK, MIX1, MIX2

STRUCT_STREAM = 3
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
KINDS = ("small", "medium", "large")
# kind: (ints, strings, bools, doubles, int seqs, string seqs, double seqs)
COUNTS = {
    "small": (2, 1, 1, 0, 1, 0, 0),
    "medium": (4, 2, 2, 2, 1, 1, 0),
    "large": (10, 8, 5, 5, 2, 2, 2),
}
_PREFIXES = ("n", "s", "b", "d", "li", "ls", "ld")
# callString (PROTOCOL.md 10.1, --corba-payload string): byte b travels as ALPHABET[b mod 62].
_TEXT_TABLE = bytes(ord(ALPHABET[byte % 62]) for byte in range(256))
STAMP_MASK = 0x7FFFFFFF


def field_names(kind):
    """The record's fields in generation order, e.g. n1 n2 s1 b1 li1 for small."""
    return [f"{prefix}{i}" for prefix, count in zip(_PREFIXES, COUNTS[kind])
            for i in range(1, count + 1)]


def _splitmix(state):
    while True:
        state = (state + GOLDEN) & MASK
        z = state
        z = ((z ^ (z >> 30)) * MIX1) & MASK
        z = ((z ^ (z >> 27)) * MIX2) & MASK
        yield z ^ (z >> 31)


def record(seed, kind, sequence_length, value_range="full"):
    """The record a client sends for (seed, kind, sequence length), before its stamp."""
    return next(records(seed, kind, sequence_length, value_range))


def records(seed, kind, sequence_length, value_range="full"):
    """The records of one splitmix64 stream, endlessly: each drawn from where the previous
    one left the generator (PROTOCOL.md 10.2, "Records")."""
    draw = _splitmix((seed ^ (STRUCT_STREAM * GOLDEN)) & MASK).__next__
    while True:
        yield _drawn(draw, kind, sequence_length, value_range)


def _int_drawer(draw, value_range):
    """int: 32 bits as two's complement (full), or 31 bits (non-negative)."""
    if value_range == "non-negative":
        return lambda: draw() & 0x7FFFFFFF

    def an_int():
        x = draw() & 0xFFFFFFFF
        return x - (1 << 32) if x >= (1 << 31) else x
    return an_int


def _drawn(draw, kind, sequence_length, value_range):
    """One record, field by field in generation order."""
    an_int = _int_drawer(draw, value_range)

    def a_string():
        length = 4 + draw() % 29
        return "".join(ALPHABET[draw() % 62] for _ in range(length))

    def a_bool():
        return (draw() & 1) == 1

    def a_double():
        return (draw() >> 11) * 2.0 ** -33

    ints, strings, bools, doubles, int_seqs, string_seqs, double_seqs = COUNTS[kind]
    out = {}
    for prefix, count, element in (("n", ints, an_int), ("s", strings, a_string),
                                   ("b", bools, a_bool), ("d", doubles, a_double)):
        for i in range(1, count + 1):
            out[f"{prefix}{i}"] = element()
    for prefix, count, element in (("li", int_seqs, an_int), ("ls", string_seqs, a_string),
                                   ("ld", double_seqs, a_double)):
        for i in range(1, count + 1):
            out[f"{prefix}{i}"] = [element() for _ in range(sequence_length)]
    return out


def as_text(data):
    """A payload as callString carries it: one character of ALPHABET per byte."""
    return data.translate(_TEXT_TABLE).decode("ascii")


def stamp_value(sequence):
    return sequence & STAMP_MASK


def stamped(rec, sequence):
    return {**rec, "n1": stamp_value(sequence)}


def first_difference(received, expected):
    """Name of the first field where two records differ (doubles compared exactly), or None.

    `received` is a dict as produced by a framework's conversion; lists may be any sequence."""
    for name, want in expected.items():
        got = received.get(name)
        if isinstance(want, list):
            if got is None or len(got) != len(want) or list(got) != want:
                return name
        elif type(got) is not type(want) or got != want:
            return name
    return None
