"""Pattern short (PROTOCOL.md 11.2, 11.3): a connection per round trip, tcp's source address
rotation, END over a connection of its own with the server's count across connections."""
import socket
import struct
import threading
import types

import pytest
from peers import Drive, serving
from test_client import assert_error, read_request, recv_exactly, response
from test_roundtrip import check_ok
from test_server import request, tcp_address

from ipclab_peer import frame, rr, short
from ipclab_peer.errors import ProtocolError
from ipclab_peer.transport import connect, endpoints

SHORT = ["--pattern", "short"]


def check_short_ok(run, mechanism, request_size, response_size, iterations, warmup=0):
    result = check_ok(run, mechanism, request_size, response_size, iterations, warmup,
                      pattern="short")
    assert "messages" not in result
    return result


@pytest.mark.parametrize("mechanism", ["tcp", "uds", "sysv-mq", "posix-mq", "rest"])
def test_short_round_trips(mechanism, workdir):
    with serving(mechanism, workdir, "--seed", "4") as case:
        run = Drive(workdir, mechanism, case.endpoint, 1024, 1, iterations=20,
                    extra=SHORT + ["--warmup", "2", "--seed", "4", "--io-timeout", "20"])
        check_short_ok(run, mechanism, 1024, 1, 20, warmup=2)
        assert case.server.drain_stderr() == []


def short_against_a_stand_in(workdir, iterations, extra=()):
    """A short tcp client (2 warm-up connections) against a stand-in server that records each
    connection's (host, port), END's last: (the client's run, the addresses)."""
    sources = []

    def serve(listener):
        for _ in range(2 + iterations + 1):
            conn, address = listener.accept()
            with conn:
                sources.append(address)
                header = read_request(conn)
                if header.kind == frame.END:
                    conn.sendall(frame.end_ack(header.sequence, 0))
                else:
                    conn.sendall(response(header.sequence, header.wanted, header.length))
                assert conn.recv(1) == b""  # the client closes first

    with socket.create_server(("127.0.0.1", 0), backlog=64) as listener:
        listener.settimeout(20)
        thread = threading.Thread(target=serve, args=(listener,))
        thread.start()
        endpoint = "127.0.0.1:%d" % listener.getsockname()[1]
        run = Drive(workdir, "tcp", endpoint, 16, 16, iterations=iterations,
                    extra=SHORT + ["--warmup", "2", *extra])
        thread.join()
    return run, sources


def test_short_tcp_connections_come_from_rotating_source_addresses(workdir):
    """A stand-in server records where each connection comes from: connection i (warm-up
    first, END last) from 127.1.b.c, k = i mod 65280, b = k / 255, c = k mod 255."""
    run, sources = short_against_a_stand_in(workdir, 300)
    check_short_ok(run, "tcp", 16, 16, 300, warmup=2)
    assert [host for host, _ in sources] == [f"127.1.{i // 255}.{i % 255}" for i in range(303)]


def test_the_source_address_wraps_after_65280_connections():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        endpoint = endpoints.HostPort("127.0.0.1", listener.getsockname()[1])
        options = types.SimpleNamespace(io_timeout=5, nodelay="on")
        for index, source in [(65280 + 256, "127.1.1.1"), (65279, "127.1.255.254")]:
            link = connect.tcp_from_source(endpoint, options, index).connect()
            conn, address = listener.accept()
            assert address[0] == source
            assert link.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            link.close()
            conn.close()


def test_the_end_ack_counts_corrupted_requests_across_connections(workdir):
    """Two connections with a bad request each, then END on a third: the count is 2; a
    second END (nothing since) says 0."""
    bad = request(0, b"\x00" * 16, 4)
    with serving("tcp", workdir) as case:
        address = tcp_address(case.endpoint)
        for _ in range(2):
            with socket.create_connection(address, timeout=10) as sock:
                sock.sendall(bad)
                recv_exactly(sock, frame.HEADER_SIZE + 4)
        for expected in (2, 0):
            with socket.create_connection(address, timeout=10) as sock:
                sock.sendall(frame.encode_header(frame.END, 1, 0, 0))
                ack = recv_exactly(sock, frame.HEADER_SIZE + 8)
            assert struct.unpack_from("<Q", ack, frame.HEADER_SIZE)[0] == expected


def test_short_against_nothing_is_an_io_error(workdir):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        endpoint = "127.0.0.1:%d" % unused.getsockname()[1]
        run = Drive(workdir, "tcp", endpoint, 16, 16, extra=SHORT)
    assert_error(run, 5, "io")
    assert "connection 0" in run.stderr


class RecordingMechanism:
    """A stand-in mechanism whose connections log what happens to them, in order, beside the
    client's clock reads."""

    def __init__(self, events, config):
        self.events, self.config = events, config

    def connect_short(self, endpoint, options, index):
        self.events.append(f"ready {index}")
        return self

    def connect(self):
        self.events.append("connect")
        return self

    def send_all(self, data):
        self.events.append("send")
        self.sequence = frame.decode_header(data).sequence

    def recv_frame(self, view):
        self.events.append("receive")
        config = self.config
        answer = frame.FrameTemplate(frame.RESPONSE, config.response_size, 0, config.seed, 2)
        answer.patch(self.sequence, config.request_size)
        view[:] = answer.buf
        return len(answer.buf)

    def close(self):
        self.events.append("close")


@pytest.mark.parametrize("one_way", [False, True])
def test_the_socket_is_made_before_the_clock_starts(one_way, monkeypatch):
    """PROTOCOL.md 11.2 (contract 4): connection i is made ready (socket, source bind) before
    the sample's first clock read; the sample is connect, exchange, close."""
    events = []
    ticks = iter(range(1000))

    def clock():
        events.append("clock")
        return next(ticks)

    monkeypatch.setattr(short.time, "perf_counter_ns", clock)
    config = types.SimpleNamespace(endpoint="e", request_size=16, seed=1, warmup=0,
                                   iterations=2, one_way=one_way,
                                   response_size=0 if one_way else 8)
    recorder = types.SimpleNamespace(samples=[])
    recorder.add = lambda index, ns: recorder.samples.append(ns)
    link = short.Connections(RecordingMechanism(events, config), config)
    if one_way:
        with pytest.raises(ProtocolError, match="END_ACK"):  # the stand-in answers END badly
            short.one_way(link, config, recorder)
    else:
        short.round_trips(link, rr.Exchange(config), config, recorder)
    exchange = ["send", "close"] if one_way else ["send", "receive", "close"]
    sample = ["clock", "connect", *exchange, "clock"]
    assert events[:2 * len(sample) + 2] == ["ready 0", *sample, "ready 1", *sample]
    assert recorder.samples == [1, 1]
