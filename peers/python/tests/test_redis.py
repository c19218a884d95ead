"""redis-tcp and redis-uds (PROTOCOL.md 4.10) through redis-py: a Python responder and client
through one Redis server per mechanism, started for this file as the orchestrator starts one
per round (ipclab.execute.redis_server): READY's endpoint and server version, rr up to the
largest payload, streams past the credit window, the faults, what the responder rejects (an
empty answer; it goes on), an empty answer and none, refused patterns and endpoints, a lost
server, and `capabilities`' library."""
import json

import pytest
import redis
from launched_servers import check_a_lost_server_ends_the_responder, started_for_the_file
from peers import Drive, Server, describe, run_peer
from test_client import assert_error
from test_nng_and_zmq import check_a_fault_fails_the_client, check_streams_then_a_round_trip

from ipclab_peer.frame import (END, HEADER_SIZE, MAX_PAYLOAD, REQUEST, STREAM_ACK, encode_header,
                               encode_mark)
from ipclab_peer.transport.redis_lists import credit_every, stream_window

MECHANISMS = ("redis-tcp", "redis-uds")
MIB = 1 << 20


@pytest.fixture(scope="module")
def servers():
    """{mechanism: its RedisServer}."""
    yield from started_for_the_file("redis", ("redis-tcp", "tcp"), ("redis-uds", "uds"))


def endpoint(servers, mechanism, name):
    """The suite's server for `mechanism` with the key name `name` (each test its own)."""
    url = servers[mechanism].url
    cut = url.rfind("#" if mechanism == "redis-uds" else "/")
    return url[:cut + 1] + name


def raw(servers, mechanism):
    """This test's own client of the suite's server."""
    address = servers[mechanism].address
    if isinstance(address, str):
        return redis.Redis(unix_socket_path=address, socket_timeout=10)
    return redis.Redis(host=address[0], port=address[1], socket_timeout=10)


def test_capabilities_name_the_library():
    listed = json.loads(run_peer(["capabilities"]).stdout)["mechanisms"]
    for mechanism in MECHANISMS:
        assert listed[mechanism]["patterns"] == ["rr", "stream"]
        assert listed[mechanism]["library"] == f"redis-py {redis.__version__}"


def test_the_stream_window_keeps_64_mib_and_credits_half_of_it():
    assert [stream_window(size) for size in (1, 65536, 131072, MIB, 64 * MIB, MAX_PAYLOAD)] == \
        [1000, 1000, 512, 64, 1, 1]
    assert [credit_every(w) for w in (1000, 64, 1)] == [500, 32, 1]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_ready_names_the_endpoint_and_the_servers_version(mechanism, servers):
    with Server(mechanism, endpoint(servers, mechanism, "t:ready")) as server:
        assert server.endpoint == endpoint(servers, mechanism, "t:ready")
        assert server.ready["broker"].startswith("Redis ") and len(server.ready["broker"]) > 6


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_round_trips_and_the_largest_payload(mechanism, servers, workdir):
    with Server(mechanism, endpoint(servers, mechanism, "t:rr")) as server:
        for size in (0, 16, MIB):
            run = Drive(workdir, mechanism, server.endpoint, size, size, 10, ["--warmup", "2"])
            assert run.returncode == 0, describe(run)
            assert len(run.samples) == 8 * 10
        run = Drive(workdir, mechanism, server.endpoint, MAX_PAYLOAD, 16, 1)
        assert run.returncode == 0, describe(run)
        assert server.stop() == 0


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_streams_past_the_credit_window(mechanism, servers, workdir):
    check_streams_then_a_round_trip(
        mechanism, Server(mechanism, endpoint(servers, mechanism, "t:stream")), workdir, 2500)


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("fault", ["flip-response-byte", "drop-stream-message",
                                   "flip-stream-byte"])
def test_faults_fail_the_client(mechanism, fault, servers, workdir):
    where = endpoint(servers, mechanism, f"t:{fault}")
    check_a_fault_fails_the_client(mechanism, Server(mechanism, where, "--fault", fault), fault,
                                   workdir)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_short_load_and_bad_endpoints_are_refused(mechanism, servers, workdir):
    where = endpoint(servers, mechanism, "t:short")
    assert_error(Drive(workdir, mechanism, where, 16, 16, 1, ["--pattern", "short"]), 7,
                 "unsupported")
    load = run_peer(["serve", "--pattern", "load", "--server-model", "iterative",
                     "--mechanism", mechanism, "--endpoint", where])
    assert load.returncode == 7, load.stderr
    for bad in ("127.0.0.1:6379", "redis://127.0.0.1:6379", "unix://rel/s#n",
                "redis://127.0.0.1:6379/a b", "unix:///tmp/s#"):
        refused = run_peer(["serve", "--mechanism", mechanism, "--endpoint", bad])
        assert refused.returncode == 2, (bad, refused.stderr)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_rejected_frames_are_answered_empty_and_the_responder_goes_on(mechanism, servers,
                                                                      workdir):
    client, name = raw(servers, mechanism), "t:reject"
    requests, replies = f"{name}:requests", f"{name}:replies"
    client.rpush(requests, bytes(40))  # an earlier run's leftover: deleted at the start
    with Server(mechanism, endpoint(servers, mechanism, name)) as server:
        for bad in (bytes(10), encode_header(REQUEST, 0, 100, 0) + bytes(10), b"IPCX" + bytes(20)):
            client.rpush(requests, bad)
            assert client.blpop(replies, 5) == (replies.encode(), b"")
        # A message of the wrong size where one is due: the rest of the count is given up.
        client.rpush(requests, encode_mark(0, 32, 2))
        assert len(client.blpop(replies, 5)[1]) == HEADER_SIZE
        client.rpush(requests, bytes(31))
        client.rpush(requests, encode_header(END, 3, 0, 0))
        ack = client.blpop(replies, 5)[1]
        assert STREAM_ACK.unpack_from(ack, HEADER_SIZE)[0] == 0  # received
        run = Drive(workdir, mechanism, server.endpoint, 16, 16, 5)
        assert run.returncode == 0, describe(run)
        assert client.exists(requests, replies, f"{name}:credits") == 0  # nothing left
        assert server.stop() == 0
        assert server.drain_stderr() == [f"ipclab-peer: rejected frame: {reason}" for reason in (
            "truncated header", "length mismatch", "bad magic", "length mismatch")]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_an_empty_answer_is_a_protocol_error_and_none_a_timeout(mechanism, servers, workdir):
    raw(servers, mechanism).rpush("t:empty:replies", b"")
    assert_error(Drive(workdir, mechanism, endpoint(servers, mechanism, "t:empty"), 16, 16, 1),
                 4, "protocol")
    assert_error(Drive(workdir, mechanism, endpoint(servers, mechanism, "t:none"), 16, 16, 1,
                       ["--io-timeout", "0.5"]), 6, "timeout")


def test_a_responder_whose_server_dies_exits_with_an_io_error(tmp_path):
    check_a_lost_server_ends_the_responder("redis", "redis-uds", "Redis", tmp_path, "uds")
