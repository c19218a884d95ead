"""Client failures: each is one stderr line, an exit code, and still a result file."""
import contextlib
import socket
import struct
import threading
from pathlib import Path

import pytest
from peers import Drive, describe

from ipclab_peer import frame, payload


def assert_error(run, code, kind, samples=0):
    assert run.returncode == code, describe(run)
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"ipclab-peer: {kind}: ")
    assert run.result["status"] == "error" and run.result["error_kind"] == kind
    assert run.result["error"] and run.result["samples"] == samples
    assert len(run.samples) == 8 * samples


@pytest.mark.parametrize("sizes", [(65484, 16), (16, 65484), (16, 134217728)])
def test_udp_sizes_over_a_datagram_are_unsupported(sizes, workdir):
    run = Drive(workdir, "udp", "127.0.0.1:9", *sizes)
    assert_error(run, 7, "unsupported")


@pytest.mark.parametrize("mechanism,pattern", [("tcp", "burst"), ("udp", "short"),
                                               ("pipe", "short"), ("grpc", "short")])
def test_pattern_the_mechanism_lacks_is_unsupported(mechanism, pattern, workdir):
    run = Drive(workdir, mechanism, "127.0.0.1:9" if mechanism != "pipe" else "fd:8,9", 16, 16,
                extra=["--pattern", pattern])
    assert_error(run, 7, "unsupported")


def test_unknown_mechanism_is_unsupported(workdir):
    assert_error(Drive(workdir, "quic", "127.0.0.1:9", 16, 16), 7, "unsupported")


def test_refused_connection_is_an_io_error(workdir):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # bound, never listening: connecting is refused
        endpoint = "127.0.0.1:%d" % unused.getsockname()[1]
        assert_error(Drive(workdir, "tcp", endpoint, 16, 16), 5, "io")


def test_missing_uds_socket_is_an_io_error(workdir):
    assert_error(Drive(workdir, "uds", f"{workdir}/none.sock", 16, 16), 5, "io")


def test_silent_udp_server_is_a_timeout(workdir):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        endpoint = "127.0.0.1:%d" % silent.getsockname()[1]
        run = Drive(workdir, "udp", endpoint, 16, 16, extra=["--io-timeout", "0.2"])
    assert_error(run, 6, "timeout")


@contextlib.contextmanager
def fake_server(handler):
    """A tcp server run by `handler(conn)` in a thread: it misbehaves in scripted ways."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(10)

        def accept_one():
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(10)
                handler(conn)

        thread = threading.Thread(target=accept_one)
        thread.start()
        try:
            yield "127.0.0.1:%d" % listener.getsockname()[1]
        finally:
            thread.join()


def read_request(conn):
    header = frame.decode_header(recv_exactly(conn, frame.HEADER_SIZE))
    recv_exactly(conn, header.length)
    return header


def recv_exactly(conn, size):
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        assert chunk
        data += chunk
    return data


def response(number, size, echo, **changes):
    """The right RESPONSE to request `number`, but for the header fields in `changes`."""
    fields = dict(sequence=number, length=size, wanted=echo)
    fields.update(changes)
    body = payload.payload(1, payload.RESPONSE_STREAM, number, size)
    return frame.encode_header(frame.RESPONSE, fields["sequence"], fields["length"],
                               fields["wanted"]) + body[:fields["length"]]


def answer_correctly_then(last):
    def handler(conn):
        while True:
            header = read_request(conn)
            if header.kind == frame.END:
                conn.sendall(last(header))
                return
            conn.sendall(response(header.sequence, header.wanted, header.length))
    return handler


def test_server_closing_mid_run_is_an_io_error(workdir):
    with fake_server(read_request) as endpoint:
        run = Drive(workdir, "tcp", endpoint, 16, 16)
    assert_error(run, 5, "io")
    assert "end of stream" in run.stderr


WRONG_RESPONSES = {
    "wrong sequence": ({"sequence": 1}, "sequence: expected 0, received 1"),
    # Shorter than expected: reported at once, not waited for.
    "short response": ({"length": 8}, "length: expected 16, received 8"),
}


@pytest.mark.parametrize("changes,message", WRONG_RESPONSES.values(), ids=WRONG_RESPONSES)
def test_wrong_response_is_a_protocol_error_naming_the_field(changes, message, workdir):
    def handler(conn):
        read_request(conn)
        conn.sendall(response(0, 16, 16, **changes))
        conn.recv(100)  # holds the connection open until the client gives up

    with fake_server(handler) as endpoint:
        run = Drive(workdir, "tcp", endpoint, 16, 16, extra=["--io-timeout", "5"])
    assert_error(run, 4, "protocol")
    assert message in run.stderr


def test_only_validated_round_trips_are_samples(workdir):
    """Warm-up 2, then the third measured response (sequence 4) is corrupt: the two warm-up
    round trips and the two measured ones before it are written, the failed one is not."""
    def handler(conn):
        for sequence in range(5):
            header = read_request(conn)
            answer = bytearray(response(header.sequence, header.wanted, header.length))
            answer[-1] ^= sequence == 4
            conn.sendall(answer)

    warmup_file = Path(workdir) / "warmup.bin"
    with fake_server(handler) as endpoint:
        run = Drive(workdir, "tcp", endpoint, 16, 16, iterations=5,
                    extra=["--warmup", "2", "--warmup-samples-file", str(warmup_file)])
    assert_error(run, 3, "payload-mismatch", samples=2)
    assert "RESPONSE to sequence 4 differs at payload offset 15" in run.stderr
    assert run.result["warmup_samples"] == 2
    assert all(0 < t < 10**10 for t in struct.unpack("<2q", warmup_file.read_bytes()))


def test_corruption_counted_by_the_server_fails_the_client(workdir):
    handler = answer_correctly_then(lambda end: frame.end_ack(end.sequence, 2))
    with fake_server(handler) as endpoint:
        run = Drive(workdir, "tcp", endpoint, 16, 16, iterations=3)
    assert_error(run, 3, "payload-mismatch", samples=3)
    assert "server received 2 corrupted request payloads" in run.stderr


def test_wrong_end_ack_is_a_protocol_error(workdir):
    handler = answer_correctly_then(lambda end: frame.end_ack(end.sequence + 1, 0))
    with fake_server(handler) as endpoint:
        run = Drive(workdir, "tcp", endpoint, 16, 16, iterations=2, extra=["--warmup", "1"])
    assert_error(run, 4, "protocol", samples=2)
    assert "END_ACK" in run.stderr and "sequence: expected 3, received 4" in run.stderr
