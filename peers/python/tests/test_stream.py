"""Pattern stream (PROTOCOL.md 11.1, 11.3): our client against our server over every mechanism
that streams (the sums are in test_stream_tally.py), the window samples, the stream faults,
udp's losses and resends, the server's rejections and the command line."""
import contextlib
import socket
import struct
import threading

import pytest
from peers import Drive, Stream, describe, run_peer, serving
from test_client import assert_error
from test_server import exchange_and_close, tcp_address
from test_stream_tally import messages

from ipclab_peer import frame, payload
from ipclab_peer.transport import datagram

MiB = 1 << 20
REJECTED = "ipclab-peer: rejected frame: "
# (message size, messages, extra flags): an odd size (a zero-padded last word) everywhere;
# fewer messages where one costs a file or a poll interval.
FAST = (1027, 300, ())
CASES = {
    "tcp": FAST, "uds": FAST, "uds-dgram": FAST, "pipe": FAST, "fifo": FAST,
    "sysv-mq": (9000, 100, ()),  # two queue messages per stream message
    "posix-mq": FAST, "sysv-shm": (MiB + 3, 5, ()),  # two slots per stream message
    "shm": FAST, "shm-spin": (16, 100, ()), "shm-futex": FAST,
    "file": (1027, 40, ()), "file-poll": (1027, 40, ("--poll-interval-us", "200")),
    "grpc": FAST,
}


def stream(workdir, case, mechanism, size, messages, *extra):
    return Stream(workdir, mechanism, case.endpoint, size, messages,
                  extra=["--io-timeout", "20", *extra], pass_fds=case.client_fds)


def check_stream_ok(run, mechanism, size, messages, windows=None, warmup=0, lost=0):
    windows = windows or min(10, messages)
    assert run.returncode == 0, describe(run)
    assert run.stderr == ""
    result = run.result
    assert (result["status"], result["pattern"], result["mechanism"]) == \
        ("ok", "stream", mechanism)
    assert (result["messages"], result["message_size"], result["windows"]) == \
        (messages, size, windows)
    assert (result["warmup"], result["samples"], result["lost"]) == (warmup, windows, lost)
    assert (result["request_size"], result["response_size"], result["iterations"]) == (0, 0, 0)
    samples = struct.unpack(f"<{windows}q", run.samples)
    assert all(sample > 0 for sample in samples)
    # The windows cut the stream from MARK_ACK to END_ACK without a gap or an overlap.
    assert sum(samples) == result["stream_ns"]
    for side in ("client_cpu", "server_cpu"):
        figures = result[side]
        assert set(figures) == {"user_ns", "sys_ns", "voluntary", "involuntary"}, side
        assert all(type(value) is int and value >= 0 for value in figures.values()), side
    return result


@pytest.mark.parametrize("mechanism", CASES)
def test_stream_over_each_mechanism(mechanism, workdir):
    size, messages, extra = CASES[mechanism]
    with serving(mechanism, workdir, "--seed", "9", *extra) as case:
        run = stream(workdir, case, mechanism, size, messages, "--warmup", "3", "--windows",
                     "4", "--seed", "9", *extra)
        check_stream_ok(run, mechanism, size, messages, windows=4, warmup=3)
        assert case.server.drain_stderr() == []


def test_udp_stream_counts_what_it_loses(workdir):
    with serving("udp", workdir) as case:
        run = stream(workdir, case, "udp", 100, 300)
        result = run.result
        check_stream_ok(run, "udp", 100, 300, lost=result["lost"])
        assert 0 <= result["lost"] < 300


@pytest.mark.parametrize("mechanism", ["tcp", "sysv-mq"])
@pytest.mark.parametrize("size", [1, 7, 8, 9, MiB])
def test_stream_sizes(size, mechanism, workdir):
    """Sizes under 8 (a sequence known modulo 2^(8S): 300 one-byte messages wrap it) and a
    message larger than the server's first buffer."""
    with serving(mechanism, workdir) as case:
        messages = 300 if size < MiB else 5
        check_stream_ok(stream(workdir, case, mechanism, size, messages, "--warmup", "2"),
                        mechanism, size, messages, warmup=2)


@pytest.mark.parametrize("mechanism,size", [
    ("udp", datagram.UDP_MAX_DATAGRAM), ("uds-dgram", datagram.uds_dgram_max_datagram())])
def test_a_datagram_stream_may_use_the_whole_datagram(mechanism, size, workdir):
    with serving(mechanism, workdir) as case:
        run = stream(workdir, case, mechanism, size, 5)
        check_stream_ok(run, mechanism, size, 5, lost=run.result["lost"])


@pytest.mark.parametrize("messages,windows", [(50, 7), (5, 5), (3, 1)])
def test_one_sample_per_window(messages, windows, workdir):
    with serving("uds", workdir) as case:
        run = stream(workdir, case, "uds", 64, messages, "--windows", str(windows))
        check_stream_ok(run, "uds", 64, messages, windows=windows)


@pytest.mark.parametrize("mechanism", ["tcp", "udp", "posix-mq"])
def test_the_server_serves_round_trips_and_streams_alike(mechanism, workdir):
    with serving(mechanism, workdir) as case:
        for _ in range(2):
            run = stream(workdir, case, mechanism, 16, 10)
            check_stream_ok(run, mechanism, 16, 10, lost=run.result["lost"])
            run = Drive(workdir, mechanism, case.endpoint, 16, 16, iterations=5)
            assert run.returncode == 0, describe(run)
        assert case.server.drain_stderr() == []


FAULTS = {"drop-stream-message": "the server received 19 of 20 messages, 1 gap",
          "flip-stream-byte": "the server's checksum is 0x"}


@pytest.mark.parametrize("mechanism", ["tcp", "uds-dgram", "sysv-shm", "grpc"])
@pytest.mark.parametrize("fault", FAULTS)
def test_stream_faults_are_a_payload_mismatch(fault, mechanism, workdir):
    with serving(mechanism, workdir, "--fault", fault) as case:
        run = stream(workdir, case, mechanism, 24, 20, "--warmup", "2")
    assert_error(run, 3, "payload-mismatch")
    assert FAULTS[fault] in run.stderr
    assert run.result["pattern"] == "stream" and run.result["stream_ns"] is None


def test_a_udp_server_that_drops_a_message_is_a_loss_not_a_failure(workdir):
    with serving("udp", workdir, "--fault", "drop-stream-message") as case:
        run = stream(workdir, case, "udp", 24, 20)
    check_stream_ok(run, "udp", 24, 20, lost=run.result["lost"])
    assert run.result["lost"] >= 1


@contextlib.contextmanager
def udp_server(handler):
    """A udp socket served by `handler(sock)` in a thread."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(10)
        thread = threading.Thread(target=handler, args=(sock,))
        thread.start()
        try:
            yield "127.0.0.1:%d" % sock.getsockname()[1]
        finally:
            thread.join()


def what_arrived(data):
    """A control frame as (kind, sequence[, message size, count]), a message as its size."""
    if len(data) < frame.HEADER_SIZE or data[:4] != frame.MAGIC:
        return len(data)
    header = frame.decode_header(data)
    if header.kind == frame.MARK:
        return (header.kind, header.sequence, *frame.MARK_FIELDS.unpack_from(data, 24))
    return header.kind, header.sequence


def test_udp_client_resends_mark_and_end_until_answered(workdir):
    """The server ignores the first MARK and the first END, and claims two messages lost: the
    client sends each again and records the loss. The messages are bare 32-byte datagrams."""
    seen = []

    def handler(sock):
        while True:
            data, peer = sock.recvfrom(65536)
            seen.append(what_arrived(data))
            kind = data[5] if data[:4] == frame.MAGIC else None
            if kind == frame.MARK and len(seen) > 1:
                sock.sendto(frame.mark_ack(frame.decode_header(data).sequence), peer)
            if kind == frame.END and seen.count(seen[-1]) == 2:
                sock.sendto(frame.stream_end_ack(frame.decode_header(data).sequence,
                                                 (8, 1, 5, 0, 0, 0, 0)), peer)
                return

    with udp_server(handler) as endpoint:
        run = Stream(workdir, "udp", endpoint, 32, 10, extra=["--io-timeout", "5"])
    result = check_stream_ok(run, "udp", 32, 10, lost=2)
    # MARK 0 (no warm-up messages) twice, MARK 1 announcing 10, the 10 messages, END 12 twice.
    assert seen == [(frame.MARK, 0, 32, 0)] * 2 + [(frame.MARK, 1, 32, 10)] + [32] * 10 + \
        [(frame.END, 12)] * 2
    assert result["server_cpu"] == {"user_ns": 0, "sys_ns": 0, "voluntary": 0,
                                    "involuntary": 0}


def test_udp_client_gives_up_after_the_io_timeout(workdir):
    with udp_server(lambda sock: sock.recvfrom(100)) as endpoint:
        run = Stream(workdir, "udp", endpoint, 32, 10, extra=["--io-timeout", "0.35"])
    assert_error(run, 6, "timeout")
    assert "no answer to MARK within 0.35 s" in run.stderr


def test_an_end_ack_without_the_stream_fields_is_a_protocol_error(workdir):
    """A server that answers END with the 8-byte END_ACK of rr."""
    def handler(sock):
        while True:
            data, peer = sock.recvfrom(65536)
            arrived = what_arrived(data)
            if type(arrived) is tuple and arrived[0] == frame.MARK:
                sock.sendto(frame.mark_ack(arrived[1]), peer)
            if type(arrived) is tuple and arrived[0] == frame.END:
                sock.sendto(frame.end_ack(arrived[1], 0), peer)
                return

    with udp_server(handler) as endpoint:
        run = Stream(workdir, "udp", endpoint, 32, 3, extra=["--io-timeout", "5"])
    assert_error(run, 4, "protocol")
    assert "length: expected 56, received 8" in run.stderr


# ---- the server's checks ---------------------------------------------------------------------


STREAM_REJECTIONS = {
    "data frame (contract 3's stream message)": (
        frame.encode_header(frame.DATA, 0, 4, 0) + bytes(4), b"", "unexpected kind"),
    "mark with a 4-byte payload": (frame.encode_header(frame.MARK, 0, 4, 0) + bytes(4), b"",
                                   "bad stream frame"),
    "mark wanting a response": (frame.encode_header(frame.MARK, 0, 16, 1)
                                + frame.MARK_FIELDS.pack(8, 0), b"", "bad stream frame"),
    "mark of empty messages": (frame.encode_mark(0, 0, 5), b"", "bad stream frame"),
    "mark of messages over MAX_PAYLOAD": (frame.encode_mark(0, frame.MAX_PAYLOAD + 1, 1), b"",
                                          "bad stream frame"),
    "mark_ack sent to a server": (frame.mark_ack(0), b"", "unexpected kind"),
    "a request after the announced messages": (
        frame.encode_mark(0, 8, 1) + messages(1, 8, [1])
        + frame.encode_header(frame.REQUEST, 2, 0, 0), frame.mark_ack(0), "unexpected kind"),
    "end of stream inside a message": (frame.encode_mark(0, 8, 2) + messages(1, 8, [1])[:5],
                                       frame.mark_ack(0), "truncated payload"),
}


@pytest.mark.parametrize("data,answer,reason", STREAM_REJECTIONS.values(),
                         ids=STREAM_REJECTIONS)
def test_malformed_stream_frames_are_rejected(data, answer, reason, workdir):
    with serving("tcp", workdir) as case:
        assert exchange_and_close(tcp_address(case.endpoint), data) == answer
        assert case.server.stderr_line() == REJECTED + reason
        check_stream_ok(stream(workdir, case, "tcp", 8, 5), "tcp", 8, 5)


def test_mark_and_end_are_answered_with_the_stream_figures(workdir):
    """Messages are bare bytes, counted by the MARK before them: a frame header inside the
    announced messages is message bytes (here message 3 is an END header), not a frame."""
    disguised = frame.encode_header(frame.END, 7, 0, 0)
    data = (frame.encode_mark(0, 24, 1) + messages(1, 24, [1]) + frame.encode_mark(2, 24, 2)
            + messages(1, 24, [3]) + disguised + frame.encode_header(frame.END, 5, 0, 0))
    with serving("tcp", workdir) as case:
        received = exchange_and_close(tcp_address(case.endpoint), data)
    assert received[:48] == frame.mark_ack(0) + frame.mark_ack(2)
    header = frame.decode_header(received, 48)
    assert (header.kind, header.sequence, header.length) == (frame.END_ACK, 5, 56)
    received_count, gaps, checksum = frame.STREAM_ACK.unpack_from(received, 72)[:3]
    expected = (payload.stream_checksum(1, 24, 3, 1) + payload.word_sum(disguised)) % 2**64
    assert (received_count, checksum) == (2, expected)
    assert gaps == 1  # the END header read as a message's stamp is not sequence 4


def udp_exchange(endpoint, datagrams, answers):
    """Sends datagrams to a udp server, returns the `answers` datagrams it sends back."""
    host, port = endpoint.rsplit(":", 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(10)
        sock.connect((host, int(port)))
        for data in datagrams:
            sock.send(data)
        return [sock.recv(65536) for _ in range(answers)]


def test_the_udp_server_tells_control_frames_by_their_header(workdir):
    """A datagram of another size is a gap, not summed; a message is anything that is not a
    well-formed MARK or END; a MARK over 65507 is rejected."""
    sent = messages(1, 16, [2, 3, 4])
    with serving("udp", workdir) as case:
        answers = udp_exchange(case.endpoint, [
            frame.encode_mark(1, 16, 3), sent[:16], b"x" * 10, sent[32:],
            frame.encode_header(frame.END, 5, 0, 0),
            frame.encode_mark(6, datagram.UDP_MAX_DATAGRAM + 1, 1),
            frame.encode_mark(7, datagram.UDP_MAX_DATAGRAM, 0)], 3)
        assert case.server.stderr_line() == REJECTED + "bad stream frame"
    assert answers[0] == frame.mark_ack(1) and answers[2] == frame.mark_ack(7)
    fields = frame.STREAM_ACK.unpack_from(answers[1], 24)
    expected = (payload.word_sum(sent[:16]) + payload.word_sum(sent[32:])) % 2**64
    assert fields[:3] == (2, 2, expected)  # the 10 bytes, and sequence 4 after 2


# ---- the command line ------------------------------------------------------------------------


def stream_args(workdir, **overrides):
    flags = {"--pattern": "stream", "--mechanism": "tcp", "--endpoint": "127.0.0.1:9",
             "--message-size": "16", "--messages": "10",
             "--samples-file": f"{workdir}/s", "--result-file": f"{workdir}/r"}
    flags.update(overrides)
    return ["drive"] + [item for name, value in flags.items() if value is not None
                        for item in (name, value)]


USAGE = {
    "iterations": {"--iterations": "5"},
    "request size": {"--request-size": "16"},
    "warm-up samples file": {"--warmup-samples-file": "w"},
    "structured payload": {"--payload": "small"},
    "no messages": {"--messages": None},
    "no message size": {"--message-size": None},
    "zero message size": {"--message-size": "0"},
    "zero messages": {"--messages": "0"},
    "zero windows": {"--windows": "0"},
    "more windows than messages": {"--windows": "11"},
    "messages without stream": {"--pattern": "rr", "--request-size": "1",
                                "--response-size": "1", "--iterations": "1"},
}


@pytest.mark.parametrize("overrides", USAGE.values(), ids=USAGE)
def test_stream_usage_errors(overrides, workdir):
    run = run_peer(stream_args(workdir, **overrides))
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("ipclab-peer: usage: ") and run.stderr.count("\n") == 1


@pytest.mark.parametrize("mechanism,endpoint,size", [
    ("thrift-binary", "127.0.0.1:9", "16"), ("none", "inproc", "16"),
    ("udp", "127.0.0.1:9", str(datagram.UDP_MAX_DATAGRAM + 1)),
    ("uds-dgram", "/nonexistent/s", str(datagram.uds_dgram_max_datagram() + 1))])
def test_stream_a_mechanism_cannot_carry_is_unsupported(mechanism, endpoint, size, workdir):
    run = run_peer(stream_args(workdir, **{"--mechanism": mechanism, "--endpoint": endpoint,
                                           "--message-size": size}))
    assert run.returncode == 7, run.stderr
    assert run.stderr.startswith("ipclab-peer: unsupported: ")
