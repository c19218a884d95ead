#!/usr/bin/env python3
"""Reference implementation of PROTOCOL.md sections 2, 3 and 10.2; writes vectors.json.

Pure standard library on purpose: this file is the definition the three peers are checked
against, so it must be readable, not fast. Run it after changing the contract:
    python3 protocol/vectors/generate.py > protocol/vectors/vectors.json
"""
import json
import math
import struct
import sys

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MAGIC = b"IPCL"
VERSION = 1
KINDS = {"request": 1, "response": 2, "end": 3, "end_ack": 4, "data": 5, "mark": 6, "mark_ack": 7}
STREAMS = {"request": 1, "response": 2}
MAX_PAYLOAD = 134217728


def splitmix64(state):
    """Yields the outputs of splitmix64 started at `state`."""
    while True:
        state = (state + GOLDEN) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def base(seed, stream, n):
    out = bytearray()
    gen = splitmix64(seed ^ ((stream * GOLDEN) & MASK))
    while len(out) < n:
        out += struct.pack("<Q", next(gen))
    return bytes(out[:n])


def payload(seed, stream, sequence, n):
    data = bytearray(base(seed, stream, n))
    stamp = struct.pack("<Q", sequence)
    for j in range(min(8, n)):
        data[j] ^= stamp[j]
    return bytes(data)


def header(kind, sequence, length, wanted, flags=0, magic=MAGIC, version=VERSION):
    return magic + struct.pack("<BBHQII", version, kind, flags, sequence, length, wanted)


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


def payload_vectors():
    small = [
        (1, "request", 0, 0), (1, "request", 0, 1), (1, "request", 0, 7), (1, "request", 0, 8),
        (1, "request", 0, 16), (1, "response", 0, 16), (1, "request", 5, 16),
        (1, "response", 5, 9), (42, "response", 0x123456789A, 40),
        (0xFFFFFFFFFFFFFFFF, "request", 3, 33), (7, "response", 0, 100),
    ]
    out = []
    for seed, stream, seq, n in small:
        out.append({"seed": seed, "stream": stream, "sequence": seq, "length": n,
                    "hex": payload(seed, STREAMS[stream], seq, n).hex()})
    for seed, stream, seq, n in [(1, "request", 0, 65536), (9, "response", 77, 1048576 + 3)]:
        out.append({"seed": seed, "stream": stream, "sequence": seq, "length": n,
                    "fnv1a64": f"0x{fnv1a64(payload(seed, STREAMS[stream], seq, n)):016x}"})
    return out


def frame_vectors():
    cases = [
        ("request seq 0, 16 B, wants 16 B", "request", 0, 16, 16),
        ("request seq 7, 16 B, wants 1 KiB", "request", 7, 16, 1024),
        ("response seq 7, 1 KiB, echoes 16", "response", 7, 1024, 16),
        ("request at the maximum size", "request", 2**40 + 1, MAX_PAYLOAD, MAX_PAYLOAD),
        ("end", "end", 1200, 0, 0),
        ("end_ack", "end_ack", 1200, 8, 0),
    ]
    return [{"name": name, "kind": kind, "flags": 0, "sequence": seq, "length": length,
             "wanted": wanted, "hex": header(KINDS[kind], seq, length, wanted).hex()}
            for name, kind, seq, length, wanted in cases]


def malformed_vectors():
    req = KINDS["request"]
    cases = [
        ("bad magic", header(req, 0, 16, 16, magic=b"XPCL") + bytes(16), "bad magic"),
        ("bad version", header(req, 0, 16, 16, version=2) + bytes(16), "bad version"),
        ("response sent to a server", header(KINDS["response"], 0, 16, 16), "unexpected kind"),
        ("unknown kind 9", header(9, 0, 0, 0), "unexpected kind"),
        # flags 1 is NO_REPLY (a one-way short, contract 3); any other value is bad
        ("non-zero flags", header(req, 0, 16, 16, flags=2) + bytes(16), "bad flags"),
        ("huge length (4 GiB - 1)", header(req, 0, 0xFFFFFFFF, 16), "length too large"),
        ("length one over the maximum", header(req, 0, MAX_PAYLOAD + 1, 16), "length too large"),
        ("huge wanted response", header(req, 0, 16, 0xFFFFFFFF) + bytes(16), "length too large"),
        ("end with a payload", header(KINDS["end"], 0, 4, 0) + bytes(4), "bad end frame"),
        ("truncated header (10 bytes)", header(req, 0, 16, 16)[:10], "truncated header"),
        ("truncated payload (16 of 1024)", header(req, 0, 1024, 16) + bytes(16), "truncated payload"),
        # contract 4: a stream message is bare bytes (11.1); kind 5 (DATA) is no longer a frame
        ("data frame (a stream message before contract 4)", header(KINDS["data"], 0, 16, 0)
         + bytes(16), "unexpected kind"),
        ("mark without its 16-byte payload", header(KINDS["mark"], 0, 0, 0), "bad stream frame"),
    ]
    return [{"name": name, "hex": data.hex(), "reason": reason} for name, data, reason in cases]


def mark_vectors():
    """Section 11.1's MARK: header (length 16) and u64 message size, u64 count of messages after it."""
    cases = [("warm-up mark: none follow", 0, 1024, 0), ("measured mark: 100 of 1024 B", 11, 1024, 100),
             ("one-byte messages", 1, 1, 5), ("largest message", 2**32 + 1, MAX_PAYLOAD, 2**40)]
    return [{"name": name, "sequence": seq, "message_size": size, "count": count,
             "hex": (header(KINDS["mark"], seq, 16, 0) + struct.pack("<QQ", size, count)).hex()}
            for name, seq, size, count in cases]


def word_sum(data):
    """Section 11.1's checksum of one payload: little-endian u64 words, the last zero-padded."""
    padded = data + bytes(-len(data) % 8)
    return sum(struct.unpack(f"<{len(padded) // 8}Q", padded)) & MASK


def stream_checksum_vectors():
    """The END_ACK checksum of a whole stream: messages first … first+count−1 of one size."""
    cases = [(1, 0, 1, 1), (1, 16, 1, 3), (1, 1024, 11, 100), (7, 13, 0, 5), (42, 1000, 2**32, 4),
             (0xFFFFFFFFFFFFFFFF, 8, 5, 2)]
    out = []
    for seed, size, first, count in cases:
        total = sum(word_sum(payload(seed, STREAMS["request"], seq, size))
                    for seq in range(first, first + count)) & MASK
        out.append({"seed": seed, "message_size": size, "first_sequence": first,
                    "messages": count, "checksum": f"0x{total:016x}"})
    return out


# Section 10.2: the structured payloads, fields grouped by type in generation order.
STRUCT_STREAM = 3
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
STRUCT_FIELDS = {
    # kind: (ints, strings, bools, doubles, int seqs, string seqs, double seqs)
    "small": (2, 1, 1, 0, 1, 0, 0),
    "medium": (4, 2, 2, 2, 1, 1, 0),
    "large": (10, 8, 5, 5, 2, 2, 2),
}


def record(seed, kind, sequence_length):
    """The record a client sends for (seed, kind, sequence length), before its stamp."""
    gen = splitmix64(seed ^ ((STRUCT_STREAM * GOLDEN) & MASK))

    def an_int():
        x = next(gen) & 0xFFFFFFFF
        return x - (1 << 32) if x >= (1 << 31) else x

    def a_string():
        n = 4 + next(gen) % 29
        return "".join(ALPHABET[next(gen) % 62] for _ in range(n))

    def a_bool():
        return (next(gen) & 1) == 1

    def a_double():
        return (next(gen) >> 11) * 2.0 ** -33

    ints, strings, bools, doubles, int_seqs, string_seqs, double_seqs = STRUCT_FIELDS[kind]
    out = {}
    for prefix, count, draw in [("n", ints, an_int), ("s", strings, a_string),
                                ("b", bools, a_bool), ("d", doubles, a_double)]:
        for i in range(1, count + 1):
            out[f"{prefix}{i}"] = draw()
    for prefix, count, draw in [("li", int_seqs, an_int), ("ls", string_seqs, a_string),
                                ("ld", double_seqs, a_double)]:
        for i in range(1, count + 1):
            out[f"{prefix}{i}"] = [draw() for _ in range(sequence_length)]
    return out


def stamped(rec, sequence):
    return {**rec, "n1": sequence & 0x7FFFFFFF}


def struct_vectors():
    cases = [(1, "small", 5, None), (1, "medium", 5, None), (1, "large", 5, None),
             (42, "small", 0, None), (7, "medium", 3, 0x123456789A), (1, "large", 2, 3)]
    out = []
    for seed, kind, seq_len, sequence in cases:
        rec = record(seed, kind, seq_len)
        entry = {"seed": seed, "kind": kind, "sequence_length": seq_len}
        if sequence is not None:
            entry["sequence"] = sequence
            rec = stamped(rec, sequence)
        entry["value"] = rec
        out.append(entry)
    return out


def load_offsets(seed, rate, arrival, count):
    """Section 11.5.2: the intended-start offsets (ns from T0) of requests 0 … count−1."""
    if arrival == "fixed":
        return [k * 1_000_000_000 // rate for k in range(count)]
    gen = splitmix64(seed ^ ((3 * GOLDEN) & MASK))
    offsets, s = [0], 0.0
    for _ in range(count - 1):
        u = ((next(gen) >> 11) + 1) * 2.0 ** -53
        s += -math.log(u) * 1e9 / rate
        offsets.append(math.floor(s))
    return offsets


def load_vectors():
    cases = [(1, 1000, "fixed", 8), (1, 3, "fixed", 8), (7, 10_000_000, "fixed", 8),
             (1, 1000, "poisson", 16), (42, 20000, "poisson", 16), (2 ** 64 - 1, 7, "poisson", 8)]
    return [{"seed": seed, "rate": rate, "arrival": arrival, "count": count,
             "offsets_ns": load_offsets(seed, rate, arrival, count)}
            for seed, rate, arrival, count in cases]


def main():
    vectors = {
        "comment": "Generated by protocol/vectors/generate.py from PROTOCOL.md; do not edit.",
        "max_payload": MAX_PAYLOAD,
        "header_size": 24,
        "payloads": payload_vectors(),
        "frames": frame_vectors(),
        "malformed": malformed_vectors(),
        "structs": struct_vectors(),
        "stream_checksums": stream_checksum_vectors(),
        "stream_marks": mark_vectors(),
        "load_schedules": load_vectors(),
    }
    json.dump(vectors, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
