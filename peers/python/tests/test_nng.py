"""nng-tcp and nng-ipc (PROTOCOL.md 4.9) through pynng, what is NNG's own (what it shares with
ZeroMQ is in test_nng_and_zmq.py): a dial nobody answers, what the server rejects (and that it
goes on) and an empty answer through pynng's sockets, and `capabilities`' library."""
import contextlib
import json
from pathlib import Path

import pynng
import pytest
from peers import Drive, run_peer
from pynng.options import _getopt_int
from test_client import assert_error
from test_nng_and_zmq import (MIB, check_an_empty_answer_is_a_protocol_error,
                              check_rejected_frames_are_answered_empty_and_the_server_goes_on)

from ipclab_peer.frame import MAX_PAYLOAD
from ipclab_peer.transport.nng import stream_buffer

MECHANISMS = ("nng-tcp", "nng-ipc")


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
def test_a_refused_dial_is_an_io_error(mechanism, workdir):
    endpoint = str(Path(workdir) / "none") if mechanism == "nng-ipc" else \
        "tcp://127.0.0.1:1,tcp://127.0.0.1:1"
    assert_error(Drive(workdir, mechanism, endpoint, 16, 16, 1, ["--io-timeout", "30"]), 5, "io")


def _dialed(kind, url):
    sock = kind(recv_timeout=5000, send_timeout=5000)
    sock.dial(url, block=True)
    return sock


def _ask(req, frame):
    """Sends a frame on the REQ and returns the answer (pynng's recv() fails on an empty
    message, so the message's bytes)."""
    req.send(frame)
    return req.recv_msg().bytes


@contextlib.contextmanager
def _req_and_push(requests, stream):
    req, push = _dialed(pynng.Req0, requests), _dialed(pynng.Push0, stream)
    try:
        yield (lambda frame: _ask(req, frame)), push.send
    finally:
        req.close()
        push.close()


def test_rejected_frames_are_answered_empty_and_the_server_goes_on(workdir):
    check_rejected_frames_are_answered_empty_and_the_server_goes_on("nng-tcp", workdir,
                                                                     _req_and_push)


def test_an_empty_answer_is_a_protocol_error(workdir):
    rep, pull = pynng.Rep0(recv_timeout=10000), pynng.Pull0()
    ports = [_getopt_int(sock.listen("tcp://127.0.0.1:0"), "tcp-bound-port")
             for sock in (rep, pull)]
    endpoint = ",".join(f"tcp://127.0.0.1:{port}" for port in ports)
    check_an_empty_answer_is_a_protocol_error("nng-tcp", workdir, endpoint, rep,
                                              lambda: (rep.close(), pull.close()))
