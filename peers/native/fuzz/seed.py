#!/usr/bin/env python3
"""Writes the seed inputs of the C++ fuzz targets into corpus/<target>/, from the contract's
vectors (protocol/vectors/vectors.json) and, for the payloads the vectors give only as headers,
from generate.py's own header() and payload(). A file is named by the SHA-1 of its bytes, as
libFuzzer names what it adds, so running this again adds nothing twice. Each target's first
bytes are its settings (see the target's source): they are written as the target reads them.
    python3 peers/native/fuzz/seed.py
"""
import base64
import hashlib
import json
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parents[2] / "protocol" / "vectors"
sys.path.insert(0, str(VECTORS))
from generate import KINDS, header, payload  # noqa: E402  (the contract's reference code)

REQ, RESP = 1, 2  # payload streams


def request(seq, length, wanted, flags=0, seed=1):
    return header(KINDS["request"], seq, length, wanted, flags) + payload(seed, REQ, seq, length)


def end(seq, flags=0):
    return header(KINDS["end"], seq, 0, 0, flags)


def mark(seq, size, count):
    return header(KINDS["mark"], seq, 16, 0) + struct.pack("<QQ", size, count)


def messages(first_seq, size, count, seed=1):
    return b"".join(payload(seed, REQ, first_seq + i, size) for i in range(count))


def sessions():
    """Whole conversations a server takes: rr, one-way short, a stream of each mark's size."""
    rr = request(0, 16, 16) + request(1, 16, 1024) + request(2, 0, 0) + end(3)
    one_way = request(0, 8, 0, flags=1) + request(1, 8, 0, flags=1) + end(2, flags=1)
    stream = mark(0, 4, 0) + mark(1, 4, 3) + messages(2, 4, 3) + end(5)
    # A request beyond the handler's first 64 KiB buffer (it grows as the bytes arrive); the
    # largest seed also sets libFuzzer's default -max_len, so longer inputs get tried.
    return [rr, one_way, stream, request(0, 16, 16), request(0, 70000, 16)]


def frame_inputs(v):
    frames = [bytes.fromhex(f["hex"]) for f in v["frames"] + v["malformed"] + v["stream_marks"]]
    answers = [
        header(KINDS["response"], 7, 1024, 16) + payload(1, RESP, 7, 1024),
        header(KINDS["end_ack"], 3, 8, 0) + struct.pack("<Q", 0),
        header(KINDS["end_ack"], 3, 16, 0) + struct.pack("<QQ", 0, 3),
        header(KINDS["end_ack"], 3, 56, 0) + struct.pack("<7Q", 1, 0, 0, 0, 0, 0, 0),
        header(KINDS["mark_ack"], 5, 0, 0),
    ]
    return frames + answers


def stream_server_inputs(v):
    whole = b"\x00\xff"  # no fault, all in the first connection
    malformed = [whole + bytes.fromhex(f["hex"]) for f in v["malformed"]]
    faults = [bytes([mode, 0x80]) + s for mode in (1, 2, 4, 8) for s in sessions()[:3]]
    return [whole + s for s in sessions()] + malformed + faults


def load_server_inputs(v):
    burst, load = b"\x00", b"\x01"
    rr = request(0, 16, 16) + request(1, 16, 32) + end(2)
    malformed = [mode + bytes.fromhex(f["hex"]) for f in v["malformed"] for mode in (burst, load)]
    # load, closed without END: after a frame, and before any (the blocking models once took
    # such a close for a frame and crashed)
    closed = [load + request(0, 16, 16), load]
    return [burst + request(0, 16, 16), load + rr, load + mark(0, 4, 1)] + closed + malformed


def records_inputs(v):
    forms = {"small": b"\x01", "medium": b"\x02", "large": b"\x03"}
    records = [forms[s["kind"]] + json.dumps(s["value"]).encode() for s in v["structs"]]
    bodies = [b"\x00" + json.dumps({"data": base64.b64encode(bytes.fromhex(p["hex"])).decode()})
              .encode() for p in v["payloads"] if p["length"] <= 1024]
    return records + bodies + [b"\x00QUJD", b"\x00QUI=", b"\x00QQ=="]


def cli_inputs(_):
    lines = [
        "capabilities",
        "serve --mechanism tcp --endpoint 127.0.0.1:0 --seed 7 --fault flip-response-byte",
        "serve --mechanism uds --endpoint /tmp/s.sock --pattern load --server-model epoll "
        "--workers 2 --backlog 64 --fault capacity:100",
        "serve --mechanism tcp --endpoint 127.0.0.1:0 --server-model thread --connections 10 "
        "--phases-file p.csv",
        "serve --mechanism sysv-mq --endpoint sysv:0x1234abcd",
        "serve --mechanism posix-mq --endpoint posix:/ipclab-q --fault drop-stream-message",
        "serve --mechanism file-poll --endpoint /tmp/d --poll-interval-us 100",
        "drive --mechanism tcp --endpoint 127.0.0.1:9 --request-size 16 --response-size 32 "
        "--iterations 100 --samples-file s.bin --result-file r.json --warmup 10",
        "drive --mechanism pipe --endpoint fd:3,4 --pattern stream --message-size 1024 "
        "--messages 100 --windows 10 --samples-file s.bin --result-file r.json",
        "drive --mechanism rest --endpoint 127.0.0.1:8 --payload medium --sequence-length 3 "
        "--iterations 5 --samples-file s.bin --result-file r.json --void --rest-body json",
        "drive --mechanism tcp --endpoint 127.0.0.1:9 --pattern burst --connections 100 "
        "--connectors 4 --processes 2 --records-file c.csv --result-file r.json",
        "drive --mechanism tcp --endpoint 127.0.0.1:9 --pattern burst --connections 10 "
        "--connectors 2 --release-at 1767225600000000000 --records-file c.csv "
        "--samples-file s.bin --result-file r.json",
        "drive --mechanism uds --endpoint /tmp/s --pattern load --clients 4 --rate 1000 "
        "--arrival poisson --duration-ms 100 --warmup-ms 10 --samples-file s.bin "
        "--result-file r.json",
        "drive --mechanism tcp --endpoint 127.0.0.1:9 --pattern load --clients 2 --rate 100 "
        "--duration-ms 50 --release-at 1767225600000000000 --records-file c.csv "
        "--samples-file s.bin --result-file r.json",
        "drive --mechanism udp --endpoint 127.0.0.1:9 --pattern short --one-way --request-size 8 "
        "--response-size 0 --iterations 3 --samples-file s.bin --result-file r.json",
    ]
    return [line.replace(" ", "\0").encode() for line in lines]


TARGETS = {"frame": frame_inputs, "stream_server": stream_server_inputs,
           "load_server": load_server_inputs, "records": records_inputs, "cli": cli_inputs}


def main():
    v = json.loads((VECTORS / "vectors.json").read_text())
    for name, inputs in TARGETS.items():
        corpus = HERE / "corpus" / name
        corpus.mkdir(parents=True, exist_ok=True)
        for data in inputs(v):
            (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)
        print(f"{name}: {len(list(corpus.iterdir()))} files in {corpus}")


if __name__ == "__main__":
    main()
