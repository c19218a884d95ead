"""--one-way (PROTOCOL.md 11.2): pattern short without a RESPONSE. REQUEST and END carry flag
NO_REPLY; the server validates and counts the requests and answers END with a 16-byte END_ACK
(corrupted, received); the client checks the count after the clock."""
import socket
import struct
import threading
import types

import pytest
from peers import Drive, serving
from test_client import assert_error, read_request
from test_roundtrip import check_ok
from test_server import tcp_address

from ipclab_peer import frame, payload
from ipclab_peer.mechanisms import MECHANISMS

ONE_WAY = ["--pattern", "short", "--one-way"]
OPTIONS = types.SimpleNamespace(io_timeout=10, nodelay="on")


@pytest.mark.parametrize("mechanism", ["tcp", "uds", "sysv-mq", "posix-mq"])
@pytest.mark.parametrize("request_size", [0, 100, 70000])
def test_one_way_short(mechanism, request_size, workdir):
    with serving(mechanism, workdir, "--seed", "4") as case:
        run = Drive(workdir, mechanism, case.endpoint, request_size, 0, iterations=50,
                    extra=ONE_WAY + ["--warmup", "3", "--seed", "4"])
        check_ok(run, mechanism, request_size, 0, 50, warmup=3, pattern="short")
        assert case.server.drain_stderr() == []


def one_way_request(sequence, size, seed=1, corrupt=False):
    body = bytearray(payload.payload(seed, payload.REQUEST_STREAM, sequence, size))
    if corrupt:
        body[-1] ^= 1
    return frame.encode_header(frame.REQUEST, sequence, size, 0, flags=frame.NO_REPLY) + body


def end_and_counts(link, sequence, flags=frame.NO_REPLY):
    """Sends END on `link`; the END_ACK's u64 payload fields."""
    link.send_all(frame.encode_header(frame.END, sequence, 0, 0, flags=flags))
    ack = bytearray(frame.HEADER_SIZE + 16)
    received = link.recv_frame(ack)
    header = frame.decode_header(ack)
    assert (header.kind, header.flags, header.sequence) == (frame.END_ACK, 0, sequence)
    assert received == frame.HEADER_SIZE + header.length
    return struct.unpack_from(f"<{header.length // 8}Q", ack, frame.HEADER_SIZE)


@pytest.mark.parametrize("mechanism", ["tcp", "sysv-mq"])
def test_the_server_counts_one_way_requests_and_corrupted_ones(mechanism, workdir):
    """Three one-way requests (the second corrupted), each over a connection of its own and
    never answered, then END with NO_REPLY: (1 corrupted, 3 received). A plain END then
    says 0 in the 8-byte form, and a second one-way END (0, 0): the counts start again."""
    chosen = MECHANISMS[mechanism]
    with serving(mechanism, workdir) as case:
        endpoint = chosen.endpoint.drive(case.endpoint)
        for sequence in range(3):
            link = chosen.connect(endpoint, OPTIONS)
            link.send_all(one_way_request(sequence, 40, corrupt=sequence == 1))
            link.close()
        link = chosen.connect(endpoint, OPTIONS)
        try:
            assert end_and_counts(link, 3) == (1, 3)
            assert end_and_counts(link, 4, flags=0) == (0,)
            assert end_and_counts(link, 5) == (0, 0)
        finally:
            link.close()
        assert case.server.drain_stderr() == []


def test_fewer_requests_received_is_a_protocol_error(workdir):
    """A stand-in server that says it received one request fewer than were sent."""
    def serve(listener):
        taken = 0
        while True:
            conn, _ = listener.accept()
            with conn:
                header = read_request(conn)
                assert header.flags == frame.NO_REPLY and header.wanted == 0
                if header.kind == frame.END:
                    conn.sendall(frame.one_way_end_ack(header.sequence, 0, taken - 1))
                    return
                taken += 1

    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(20)
        thread = threading.Thread(target=serve, args=(listener,))
        thread.start()
        endpoint = "127.0.0.1:%d" % listener.getsockname()[1]
        run = Drive(workdir, "tcp", endpoint, 16, 0, iterations=10, extra=ONE_WAY)
        thread.join()
    assert_error(run, 4, "protocol", samples=10)
    assert "received 9" in run.stderr and "sent 10" in run.stderr


def test_flag_no_reply_on_another_kind_is_bad_flags(workdir):
    data = frame.encode_mark(0, 16, 0)
    data = data[:6] + bytes([frame.NO_REPLY, 0]) + data[8:]  # a MARK with flag NO_REPLY
    with serving("tcp", workdir) as case:
        with socket.create_connection(tcp_address(case.endpoint), timeout=10) as sock:
            sock.sendall(data)
            assert sock.recv(1) == b""
        assert case.server.stderr_line() == "ipclab-peer: rejected frame: bad flags"


@pytest.mark.parametrize("pattern,response_size,message", [
    ("rr", 0, "--one-way is used only with --pattern short"),
    ("short", 5, "--response-size must be 0 with --one-way"),
])
def test_one_way_usage_errors(pattern, response_size, message, workdir):
    run = Drive(workdir, "tcp", "127.0.0.1:1", 16, response_size,
                extra=["--one-way", "--pattern", pattern])
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("ipclab-peer: usage: " + message)


def test_one_way_over_rest_is_unsupported(workdir):
    run = Drive(workdir, "rest", "127.0.0.1:1", 16, 0, extra=ONE_WAY)
    assert_error(run, 7, "unsupported")
