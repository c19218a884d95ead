"""The server against hand-made frames: rejections, corruption counting, udp datagrams."""
import os
import socket
import struct

import pytest
from peers import Drive, describe, malformed_vectors, serving

from ipclab_peer import frame, payload
from ipclab_peer.transport import datagram

MALFORMED = malformed_vectors()
REJECTED = "ipclab-peer: rejected frame: "


def tcp_address(endpoint):
    host, port = endpoint.rsplit(":", 1)
    return host, int(port)


def exchange_and_close(address, data):
    """Sends raw bytes on a fresh connection, ends our side, returns what the server sent."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def request(sequence, body, wanted):
    return frame.encode_header(frame.REQUEST, sequence, len(body), wanted) + body


def test_every_malformed_vector_is_rejected_and_the_server_keeps_serving(workdir):
    with serving("tcp", workdir) as case:
        address = tcp_address(case.endpoint)
        for vector in MALFORMED:
            received = exchange_and_close(address, bytes.fromhex(vector["hex"]))
            assert received == b"", vector["name"]
            assert case.server.stderr_line() == REJECTED + vector["reason"], vector["name"]
        run = Drive(workdir, "tcp", case.endpoint, 16, 16, iterations=3)
        assert run.returncode == 0, describe(run)
        assert case.server.proc.poll() is None
        assert case.server.stop() == 0
        assert case.server.drain_stderr() == []


def test_a_clean_close_between_frames_is_not_an_error(workdir):
    with serving("tcp", workdir) as case:
        body = payload.payload(1, payload.REQUEST_STREAM, 0, 4)
        received = exchange_and_close(tcp_address(case.endpoint), request(0, body, 8))
        assert len(received) == frame.HEADER_SIZE + 8
        assert case.server.stop() == 0
        assert case.server.drain_stderr() == []


def test_corrupted_request_payloads_are_counted_in_end_ack(workdir):
    good = [payload.payload(1, payload.REQUEST_STREAM, seq, 16) for seq in range(4)]
    bad = list(good)
    bad[1] = good[1][:5] + bytes([good[1][5] ^ 0x40]) + good[1][6:]
    bad[2] = good[3]  # a stale stamp: the right base with another sequence's stamp
    frames = b"".join(request(seq, body, 3) for seq, body in enumerate(bad))
    frames += frame.encode_header(frame.END, 4, 0, 0)
    frames += request(5, payload.payload(1, payload.REQUEST_STREAM, 5, 16), 3)
    frames += frame.encode_header(frame.END, 6, 0, 0)
    with serving("tcp", workdir) as case:
        received = exchange_and_close(tcp_address(case.endpoint), frames)
    responses = [received[i * 27:(i + 1) * 27] for i in range(4)]
    for seq, response in enumerate(responses):
        header = frame.decode_header(response)
        assert (header.kind, header.sequence, header.length, header.wanted) == (
            frame.RESPONSE, seq, 3, 16)
        assert response[24:] == payload.payload(1, payload.RESPONSE_STREAM, seq, 3)
    first_ack = received[4 * 27:4 * 27 + 32]
    assert first_ack == frame.end_ack(4, 2)
    # The count restarts after each END.
    assert received[-32:] == frame.end_ack(6, 0)
    assert len(received) == 5 * 27 + 2 * 32


def test_pipe_server_exits_4_on_a_malformed_frame(workdir):
    with serving("pipe", workdir) as case:
        response_read, request_write = case.client_fds
        vector = MALFORMED[0]
        os.write(request_write, bytes.fromhex(vector["hex"]))
        assert case.server.proc.wait(10) == 4
        assert case.server.stderr_line() == REJECTED + vector["reason"]


def datagram_cases(limit):
    """(reason, datagram) a datagram server rejects, for a server whose payload limit is
    `limit`: PROTOCOL.md section 2 (udp) and 4.5 (uds-dgram)."""
    return [
        ("bad magic", bytes.fromhex(MALFORMED[0]["hex"])),
        ("truncated header", bytes.fromhex("4950434c0101000000")),
        ("length mismatch", request(0, bytes(16), 16)[:-1]),
        ("length mismatch", request(0, bytes(16), 16) + b"\0"),
        ("bad end frame", frame.encode_header(frame.END, 0, 4, 0) + bytes(4)),
        ("length too large", request(0, bytes(16), limit + 1)),
    ]


def datagram_client(mechanism, endpoint, directory):
    """A socket connected to a datagram server; for uds-dgram bound to a path of its own
    (the server answers to it) with the send buffer raised, as a peer's is."""
    if mechanism == "udp":
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.connect(tcp_address(endpoint))
    else:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(os.path.join(directory, "client.sock"))
        datagram.raise_buffers(sock)
        sock.connect(endpoint)
    sock.settimeout(10)
    return sock


DATAGRAM_LIMITS = {"udp": datagram.UDP_MAX_PAYLOAD, "uds-dgram": datagram.uds_dgram_max_payload()}


@pytest.mark.parametrize("mechanism", DATAGRAM_LIMITS)
def test_datagram_server_drops_malformed_datagrams_and_answers_the_next(mechanism, workdir):
    limit = DATAGRAM_LIMITS[mechanism]
    rejected = datagram_cases(limit)
    if mechanism == "uds-dgram":
        # Longer than the server's receive buffer (24 + its limit): seen, not cut to size.
        rejected.append(("length mismatch", request(0, bytes(limit + 1), 16)))
    with serving(mechanism, workdir) as case, \
            datagram_client(mechanism, case.endpoint, workdir) as sock:
        for reason, data in rejected:
            sock.send(data)
            assert case.server.stderr_line() == REJECTED + reason
        body = payload.payload(1, payload.REQUEST_STREAM, 9, 16)
        sock.send(request(9, body, 20))
        response = sock.recv(65536)
        assert frame.decode_header(response).sequence == 9
        assert response[24:] == payload.payload(1, payload.RESPONSE_STREAM, 9, 20)
        sock.send(frame.encode_header(frame.END, 10, 0, 0))
        assert sock.recv(65536) == frame.end_ack(10, 0)


@pytest.mark.parametrize("mechanism", ["tcp", "udp", "uds-dgram"])
def test_server_seed_changes_the_response(mechanism, workdir):
    with serving(mechanism, workdir, "--seed", "18446744073709551615") as case:
        run = Drive(workdir, mechanism, case.endpoint, 16, 16, iterations=1)
    assert run.returncode == 3, describe(run)
    assert "payload mismatch" in run.stderr


def test_end_ack_counter_is_little_endian_u64():
    assert frame.end_ack(1, 258)[24:] == struct.pack("<Q", 258)
