"""zmq-tcp and zmq-ipc (PROTOCOL.md 4.8) through pyzmq, what is ZeroMQ's own (what it shares
with NNG is in test_nng_and_zmq.py): what the server rejects (and that it goes on) and an empty
answer through pyzmq's sockets, and `capabilities`' library."""
import contextlib
import json

import zmq
from peers import run_peer
from test_nng_and_zmq import (MIB, check_an_empty_answer_is_a_protocol_error,
                              check_rejected_frames_are_answered_empty_and_the_server_goes_on)

from ipclab_peer.frame import MAX_PAYLOAD
from ipclab_peer.transport.zeromq import stream_hwm

MECHANISMS = ("zmq-tcp", "zmq-ipc")


def test_capabilities_name_the_library():
    listed = json.loads(run_peer(["capabilities"]).stdout)["mechanisms"]
    for mechanism in MECHANISMS:
        assert listed[mechanism]["patterns"] == ["rr", "stream"]
        assert listed[mechanism]["library"] == \
            f"pyzmq {zmq.__version__}, libzmq {zmq.zmq_version()}"


def test_the_stream_high_water_mark_keeps_64_mib():
    assert [stream_hwm(size) for size in (1, 65536, 131072, MIB, 64 * MIB, MAX_PAYLOAD)] == \
        [1000, 1000, 512, 64, 1, 1]


@contextlib.contextmanager
def _req_and_push(requests, stream):
    context = zmq.Context(1)
    req, push = context.socket(zmq.REQ), context.socket(zmq.PUSH)
    for sock, address in ((req, requests), (push, stream)):
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVTIMEO, 5000)
        sock.connect(address)

    def ask(frame):
        req.send(frame)
        return req.recv()
    try:
        yield ask, push.send
    finally:
        req.close()
        push.close()
        context.term()


def test_rejected_frames_are_answered_empty_and_the_server_goes_on(workdir):
    check_rejected_frames_are_answered_empty_and_the_server_goes_on("zmq-tcp", workdir,
                                                                     _req_and_push)


def test_an_empty_answer_is_a_protocol_error(workdir):
    context = zmq.Context(1)
    rep, pull = context.socket(zmq.REP), context.socket(zmq.PULL)
    for sock in (rep, pull):
        sock.setsockopt(zmq.LINGER, 0)
        sock.bind("tcp://127.0.0.1:*")
    endpoint = ",".join(s.getsockopt_string(zmq.LAST_ENDPOINT) for s in (rep, pull))
    check_an_empty_answer_is_a_protocol_error("zmq-tcp", workdir, endpoint, rep,
                                              lambda: (rep.close(), pull.close(),
                                                       context.term()))
