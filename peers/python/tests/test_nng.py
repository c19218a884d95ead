"""nng-tcp and nng-ipc (PROTOCOL.md 4.9) through pynng: READY's endpoints and the ipc socket files,
rr up to the largest payload, a stream, the faults, what the server rejects (and that it goes
on), a dial nobody answers, the patterns it does not carry, and `capabilities`' library."""
import json
import stat
import threading
from pathlib import Path

import pynng
import pytest
from peers import Drive, Server, Stream, describe, run_peer
from pynng.options import _getopt_int
from test_client import assert_error

from ipclab_peer.frame import (END, HEADER_SIZE, MAX_PAYLOAD, STREAM_ACK, encode_header,
                               encode_mark)
from ipclab_peer.transport.nng import stream_buffer

MECHANISMS = ("nng-tcp", "nng-ipc")
MIB = 1 << 20


def nng_server(mechanism, workdir, *extra):
    endpoint = str(Path(workdir) / "s") if mechanism == "nng-ipc" else "127.0.0.1:0"
    return Server(mechanism, endpoint, *extra)


def test_capabilities_name_the_binding_and_the_library():
    listed = json.loads(run_peer(["capabilities"]).stdout)["mechanisms"]
    version = pynng.ffi.string(pynng.lib.nng_version()).decode()
    for mechanism in MECHANISMS:
        assert listed[mechanism]["patterns"] == ["rr", "stream"]
        assert listed[mechanism]["library"] == f"pynng {pynng.__version__}, nng {version}"


def test_the_stream_send_buffer_keeps_64_mib():
    assert [stream_buffer(size) for size in (1, 65536, 131072, MIB, 64 * MIB, MAX_PAYLOAD)] == \
        [1000, 1000, 512, 64, 1, 1]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_round_trips_up_to_the_largest_payload(mechanism, workdir):
    with nng_server(mechanism, workdir) as server:
        # 0 B (the smallest frame), past libnng's default 1 MiB receive limit, MAX_PAYLOAD.
        for size, iterations in ((0, 10), (16, 20), (2 * MIB, 3), (MAX_PAYLOAD, 1)):
            run = Drive(workdir, mechanism, server.endpoint, size, size, iterations,
                        ["--warmup", "1"])
            assert run.returncode == 0, describe(run)
            assert run.result["samples"] == iterations
        assert server.stop() == 0


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_stream_then_round_trips(mechanism, workdir):
    with nng_server(mechanism, workdir) as server:
        for size, messages in ((1, 2000), (4096, 2000), (4 * MIB, 20)):
            run = Stream(workdir, mechanism, server.endpoint, size, messages,
                         ["--warmup", "10", "--windows", "4"])
            assert run.returncode == 0, describe(run)
            assert run.result["messages"] == messages and len(run.samples) == 8 * 4
        run = Drive(workdir, mechanism, server.endpoint, 100, 200, 3)
        assert run.returncode == 0, describe(run)


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("fault", ["flip-response-byte", "drop-stream-message",
                                   "flip-stream-byte"])
def test_faults_fail_the_client(mechanism, fault, workdir):
    with nng_server(mechanism, workdir, "--fault", fault) as server:
        if fault == "flip-response-byte":
            run = Drive(workdir, mechanism, server.endpoint, 16, 64, 3)
        else:
            run = Stream(workdir, mechanism, server.endpoint, 64, 10)
        assert_error(run, 3, "payload-mismatch")


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_short_and_load_are_not_carried(mechanism, workdir):
    endpoint = str(Path(workdir) / "s") if mechanism == "nng-ipc" else \
        "tcp://127.0.0.1:1,tcp://127.0.0.1:2"
    assert_error(Drive(workdir, mechanism, endpoint, 16, 16, 1, ["--pattern", "short"]), 7,
                 "unsupported")
    load = run_peer(["serve", "--pattern", "load", "--server-model", "iterative",
                     "--mechanism", mechanism, "--endpoint", endpoint.split(",")[0]])
    assert load.returncode == 7, load.stderr


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_refused_dial_is_an_io_error(mechanism, workdir):
    endpoint = str(Path(workdir) / "none") if mechanism == "nng-ipc" else \
        "tcp://127.0.0.1:1,tcp://127.0.0.1:1"
    assert_error(Drive(workdir, mechanism, endpoint, 16, 16, 1, ["--io-timeout", "30"]), 5, "io")


def test_ready_names_both_tcp_sockets(workdir):
    with nng_server("nng-tcp", workdir) as server:
        requests, stream = server.endpoint.split(",")
        assert requests.startswith("tcp://127.0.0.1:") and stream.startswith("tcp://127.0.0.1:")
        assert requests != stream and not requests.endswith(":0") and not stream.endswith(":0")


def test_ipc_sockets_are_private_refused_when_present_and_removed(workdir):
    path = Path(workdir) / "s"
    with nng_server("nng-ipc", workdir) as server:
        assert server.endpoint == str(path)
        for socket_path in (path, Path(f"{path}.stream")):
            mode = socket_path.stat().st_mode
            assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
        second = run_peer(["serve", "--mechanism", "nng-ipc", "--endpoint", str(path)])
        assert second.returncode == 5 and "path exists" in second.stderr
        assert server.stop() == 0
    assert not path.exists() and not Path(f"{path}.stream").exists()


def _dialed(kind, url):
    sock = kind(recv_timeout=5000, send_timeout=5000)
    sock.dial(url, block=True)
    return sock


def _ask(req, frame):
    """Sends a frame on the REQ and returns the answer (pynng's recv() fails on an empty
    message, so the message's bytes)."""
    req.send(frame)
    return req.recv_msg().bytes


def test_rejected_frames_are_answered_empty_and_the_server_goes_on(workdir):
    with nng_server("nng-tcp", workdir) as server:
        requests, stream = server.endpoint.split(",")
        req, push = _dialed(pynng.Req0, requests), _dialed(pynng.Push0, stream)
        try:
            for bad in (bytes(10), encode_header(1, 0, 100, 0) + bytes(10), b"IPCX" + bytes(20)):
                assert _ask(req, bad) == b""
            push.send(bytes(16))  # nobody announced it
            assert len(_ask(req, encode_mark(0, 32, 2))) == HEADER_SIZE
            push.send(bytes(31))  # where 32 bytes are due: the rest of the count is given up
            ack = _ask(req, encode_header(END, 3, 0, 0))
            assert STREAM_ACK.unpack_from(ack, HEADER_SIZE)[0] == 0  # received
        finally:
            req.close()
            push.close()
        run = Drive(workdir, "nng-tcp", server.endpoint, 16, 16, 5)
        assert run.returncode == 0, describe(run)
        assert server.stop() == 0
        said = server.drain_stderr()
        prefix = "ipclab-peer: rejected frame: "
        assert said[:3] == [prefix + r for r in ("truncated header", "length mismatch", "bad magic")]
        # The two stream messages travel on the PULL connection beside the MARK on the REQ one:
        # nothing orders the two connections (PROTOCOL.md 4.9), so they are compared as a set.
        assert sorted(said[3:]) == [prefix + "length mismatch", prefix + "unexpected message"]


def test_an_empty_answer_is_a_protocol_error(workdir):
    rep, pull = pynng.Rep0(recv_timeout=10000), pynng.Pull0()
    ports = [_getopt_int(sock.listen("tcp://127.0.0.1:0"), "tcp-bound-port")
             for sock in (rep, pull)]
    endpoint = ",".join(f"tcp://127.0.0.1:{port}" for port in ports)
    answer = threading.Thread(target=lambda: (rep.recv(), rep.send(b"")))
    answer.start()
    try:
        run = Drive(workdir, "nng-tcp", endpoint, 16, 16, 1, ["--io-timeout", "5"])
    finally:
        answer.join()
        rep.close()
        pull.close()
    assert_error(run, 4, "protocol")
