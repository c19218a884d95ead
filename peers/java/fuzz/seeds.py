#!/usr/bin/env python3
"""Writes the seed inputs of the Java peer's fuzz targets (issue 23) from the contract's vectors
(protocol/vectors/vectors.json) into the targets' committed corpus directories, as seed-* files;
inputs the fuzzer found beside them (named by their SHA-1) are left alone. Run it again after the
vectors change:  python3 peers/java/fuzz/seeds.py"""
import base64
import json
import re
import struct
from pathlib import Path

JAVA = Path(__file__).resolve().parents[1]
VECTORS = json.loads((JAVA.parents[1] / "protocol/vectors/vectors.json").read_text())
PEER = JAVA / "peer/src/test/resources/dev/ipclab/peer"
LINUXIPC = JAVA / "linuxipc/src/test/resources/dev/ipclab/linuxipc"
MAGIC, REQUEST, END, MARK, NO_REPLY = b"IPCL", 1, 3, 6, 1
# Seeds stay small: the fuzzer's mutations cost time per byte.
MAX_SEED = 4096
# What ObjectOutputStream writes for Long 0, byte[4], reset, Long 1, byte[4], reset, Long -1
# (the object benchmark of PROTOCOL.md 4.6), from JDK 25.
OBJECTS = bytes.fromhex(
    "aced00057372000e6a6176612e6c616e672e4c6f6e673b8be490cc8f23df0200014a000576616c7565787200"
    "106a6176612e6c616e672e4e756d62657286ac951d0b94e08b02000078700000000000000000757200025b42"
    "acf317f8060854e002000078700000000400000000797372000e6a6176612e6c616e672e4c6f6e673b8be490"
    "cc8f23df0200014a000576616c7565787200106a6176612e6c616e672e4e756d62657286ac951d0b94e08b02"
    "000078700000000000000001757200025b42acf317f8060854e002000078700000000400000000797372000e"
    "6a6176612e6c616e672e4c6f6e673b8be490cc8f23df0200014a000576616c7565787200106a6176612e6c61"
    "6e672e4e756d62657286ac951d0b94e08b0200007870ffffffffffffffff")


def header(kind, sequence, length, wanted, flags=0):
    return MAGIC + struct.pack("<BBHQII", 1, kind, flags, sequence, length, wanted)


def payload(seed, stream, sequence, length):
    for p in VECTORS["payloads"]:
        if (p["seed"], p["stream"], p["sequence"], p["length"]) == (seed, stream, sequence, length) \
                and "hex" in p:
            return bytes.fromhex(p["hex"])
    return bytes(int(length))


def streams():
    """Byte streams a client could send: the vectors' frames and marks, each ended by END."""
    end = header(END, 9, 0, 0)
    yield "empty", b""
    for f in VECTORS["frames"]:
        body = b""
        if f["kind"] == "request" and int(f["length"]) <= MAX_SEED:
            body = payload("1", "request", f["sequence"], f["length"])
        yield f["name"], bytes.fromhex(f["hex"]) + body + end
    for f in VECTORS["malformed"]:
        yield f["name"], bytes.fromhex(f["hex"])
    for m in VECTORS["stream_marks"]:
        size, count = int(m["message_size"]), int(m["count"])
        shown = min(count, max(0, MAX_SEED // max(size, 1)), 8)
        yield m["name"], bytes.fromhex(m["hex"]) + bytes(size * shown) + end
    one_way = header(REQUEST, 0, 16, 0, NO_REPLY) + payload("1", "request", "0", "16")
    yield "one-way request and end", one_way + header(END, 1, 0, 0, NO_REPLY)
    yield "two requests", (header(REQUEST, 0, 16, 16) + payload("1", "request", "0", "16")
                           + header(REQUEST, 5, 16, 9) + payload("1", "request", "5", "16") + end)
    yield "object stream", OBJECTS
    # TC_ARRAY (0x75) where TC_OBJECT was, Long's descriptor: it once ended the Java server.
    yield "object array of a non-array class", OBJECTS[:4] + b"\x75" + OBJECTS[5:]


def datagram_seeds():
    """Datagram servers' inputs: a mode byte, then each datagram as u16 size + bytes."""
    def datagrams(*units):
        return b"".join(struct.pack("<H", len(u)) + u for u in units)

    end = header(END, 9, 0, 0)
    units = {}
    for f in VECTORS["frames"]:
        body = b""
        if f["kind"] == "request" and int(f["length"]) <= MAX_SEED:
            body = payload("1", "request", f["sequence"], f["length"])
        units[f["name"]] = [bytes.fromhex(f["hex"]) + body, end]
    for f in VECTORS["malformed"]:
        units[f["name"]] = [bytes.fromhex(f["hex"]), end]
    for m in VECTORS["stream_marks"]:
        size, count = int(m["message_size"]), int(m["count"])
        shown = min(count, 3) if size <= 2024 else 0
        units[m["name"]] = [bytes.fromhex(m["hex"])] + [bytes(size)] * shown + [bytes(5), end]
    # Longer than the fuzz port's receive buffer (24 + 2000), its length matching: it once
    # ended the Java datagram server.
    units["request longer than the buffer"] = [header(REQUEST, 0, 2100, 16) + bytes(2100), end]
    out = {}
    for name, unit in units.items():
        # Mode byte: bit 0 udp (else uds-dgram), bits 1-2 the fault.
        for mode in (0x00, 0x01, 0x06):
            out[f"{name} mode {mode:02x}"] = bytes([mode]) + datagrams(*unit)
    return out


def server_seeds():
    out = {}
    for name, data in streams():
        # Mode byte: bits 0-1 the target's mode, bits 2-7 the piece size (0: a byte at a time).
        for mode in (0x00, 0x01, 0x02, 0xFF):
            out[f"{name} mode {mode:02x}"] = bytes([mode]) + data
    return out


def cli_seeds():
    drive = ["drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:9", "--samples-file", "/tmp/s",
             "--result-file", "/tmp/r"]
    lines = {
        "serve": ["serve", "--mechanism", "uds", "--endpoint", "/tmp/x.sock"],
        "serve fault": ["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--fault",
                        "flip-stream-byte", "--seed", "18446744073709551615"],
        "serve burst": ["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                        "--server-model", "nio", "--connections", "10", "--phases-file", "/tmp/p",
                        "--backlog", "64", "--workers", "4"],
        "serve load": ["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--pattern",
                       "load", "--server-model", "nio", "--fault", "capacity:3"],
        "serve pipe": ["serve", "--mechanism", "pipe", "--endpoint", "fd:3,4"],
        "capabilities": ["capabilities"],
        "drive rr": drive + ["--request-size", "16", "--response-size", "1024", "--iterations",
                             "10", "--warmup", "5", "--io-timeout", "2000", "--poll-interval-us",
                             "50", "--spin-us", "10", "--nodelay", "off"],
        "drive short one-way": drive + ["--pattern", "short", "--iterations", "3", "--one-way"],
        "drive stream": drive + ["--pattern", "stream", "--message-size", "1024", "--messages",
                                 "100", "--windows", "4"],
        "drive load": drive + ["--pattern", "load", "--clients", "4", "--rate", "1000",
                               "--arrival", "poisson", "--duration-ms", "100", "--warmup-ms", "10",
                               "--records-file", "/tmp/rec"],
        "drive records": drive + ["--mechanism", "rest", "--payload", "medium",
                                  "--sequence-length", "5", "--iterations", "2",
                                  "--http-client", "jdk", "--rest-body", "json"],
        "drive object": drive + ["--payload", "object", "--request-size", "8", "--iterations", "2",
                                 "--warmup-samples-file", "/tmp/w", "--java-binding", "jni"],
        "drive corba": drive + ["--mechanism", "corba", "--corba-payload", "string", "--void",
                                "--iterations", "1", "--native-library", "/tmp/l.so"],
    }
    return {name: "\n".join(args).encode() for name, args in lines.items()}


def record_seeds():
    kinds = {"small": 0, "medium": 1, "large": 2}
    out = {}
    for s in VECTORS["structs"]:
        body = json.dumps(s["value"], separators=(",", ":")).encode()
        tag = f"{s['kind']} seed {s['seed']} length {s['sequence_length']}"
        out[tag] = bytes([kinds[s["kind"]]]) + body
        out[tag + " flipped"] = bytes([0x80 | kinds[s["kind"]]]) + body
    return out


def bytes_body_seeds():
    out = {"empty object": b"{}", "not json": b"data", "number data": b'{"data":1}'}
    for p in VECTORS["payloads"]:
        if "hex" in p:
            data = base64.b64encode(bytes.fromhex(p["hex"])).decode()
            out[f"payload {p['seed']} {p['stream']} {p['sequence']} {p['length']}"] = \
                json.dumps({"data": data}).encode()
    return out


def message_seeds():
    return {
        "one message": bytes([0x05, 3]) + b"abc",
        "three messages then end": bytes([0x11, 2]) + b"ab" + bytes([1]) + b"c" + bytes([4])
        + b"defg" + bytes([0]) + b"after",
        "long message": bytes([0x2A, 255]) + bytes(range(255)),
        "truncated": bytes([0x07, 9]) + b"abc",
    }


def write(directory, seeds):
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("seed-*"):
        old.unlink()
    for name, data in seeds.items():
        slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()
        (directory / f"seed-{slug}").write_bytes(data)


def main():
    server = PEER / "server/ServerFuzzTestInputs"
    write(server / "frameReader", server_seeds())
    write(server / "connection", server_seeds())
    write(server / "datagrams", datagram_seeds())
    write(PEER / "CliFuzzTestInputs/parse", cli_seeds())
    write(PEER / "rpc/RecordFuzzTestInputs/record", record_seeds())
    write(PEER / "rpc/RecordFuzzTestInputs/bytesBody", bytes_body_seeds())
    write(LINUXIPC / "MessageInputFuzzTestInputs/read", message_seeds())


if __name__ == "__main__":
    main()
