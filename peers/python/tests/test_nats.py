"""nats (PROTOCOL.md 4.11) through nats-py: a Python responder and client through one NATS
server, started for this file as the orchestrator starts one per round
(ipclab.execute.nats_server): READY's endpoint and server version, rr up to the largest payload
NATS carries (and one byte more refused), streams past the credit window, the faults, what the
responder rejects (an empty answer; it goes on), an empty answer and nobody subscribed, refused
patterns and endpoints, a lost server, and `capabilities`' library."""
import json
import threading
from importlib.metadata import version

import pytest
from launched_servers import check_a_lost_server_ends_the_responder, started_for_the_file
from peers import Drive, Server, describe, run_peer
from test_client import assert_error
from test_nng_and_zmq import check_a_fault_fails_the_client, check_streams_then_a_round_trip

from ipclab_peer.frame import END, HEADER_SIZE, REQUEST, STREAM_ACK, encode_header, encode_mark
from ipclab_peer.transport.endpoints import parse_nats
from ipclab_peer.transport.nats_subjects import Connection

MIB = 1 << 20
LARGEST = 64 * MIB - HEADER_SIZE  # the server's max_payload less a frame's header


@pytest.fixture(scope="module")
def server():
    """The file's NATS server (a NatsServer, started)."""
    for started in started_for_the_file("nats", ("n",)):
        yield started["n"]


def endpoint(server, name):
    """The file's server with the subject name `name` (each test its own)."""
    return server.url[:server.url.rfind("/") + 1] + name


def raw(server, name):
    """This test's own connection to the file's server, as the peer makes one."""
    return Connection(parse_nats(endpoint(server, name)), 10)


def test_capabilities_name_the_library_and_the_largest_payload():
    listed = json.loads(run_peer(["capabilities"]).stdout)["mechanisms"]["nats"]
    assert listed["patterns"] == ["rr", "stream"]
    assert listed["library"] == f"nats-py {version('nats-py')}"
    assert listed["max_payload"] == LARGEST


def test_ready_names_the_endpoint_and_the_servers_version(server):
    with Server("nats", endpoint(server, "t:ready")) as responder:
        assert responder.endpoint == endpoint(server, "t:ready")
        assert responder.ready["broker"].startswith("NATS 2."), responder.ready


def test_round_trips_up_to_the_largest_payload_and_one_byte_more_is_refused(server, workdir):
    with Server("nats", endpoint(server, "t:rr")) as responder:
        for size in (0, 16, MIB):
            run = Drive(workdir, "nats", responder.endpoint, size, size, 10, ["--warmup", "2"])
            assert run.returncode == 0, describe(run)
            assert len(run.samples) == 8 * 10
        run = Drive(workdir, "nats", responder.endpoint, LARGEST, LARGEST, 1)
        assert run.returncode == 0, describe(run)
        over = Drive(workdir, "nats", responder.endpoint, LARGEST + 1, 16, 1)
        assert_error(over, 7, "unsupported")
        assert responder.stop() == 0


def test_streams_past_the_credit_window(server, workdir):
    check_streams_then_a_round_trip("nats", Server("nats", endpoint(server, "t:stream")),
                                    workdir, 2500)


@pytest.mark.parametrize("fault", ["flip-response-byte", "drop-stream-message",
                                   "flip-stream-byte"])
def test_faults_fail_the_client(fault, server, workdir):
    where = endpoint(server, f"t:{fault}")
    check_a_fault_fails_the_client("nats", Server("nats", where, "--fault", fault), fault,
                                   workdir)


def test_short_load_and_bad_endpoints_are_refused(server, workdir):
    where = endpoint(server, "t:short")
    assert_error(Drive(workdir, "nats", where, 16, 16, 1, ["--pattern", "short"]), 7,
                 "unsupported")
    load = run_peer(["serve", "--pattern", "load", "--server-model", "iterative",
                     "--mechanism", "nats", "--endpoint", where])
    assert load.returncode == 7, load.stderr
    for bad in ("127.0.0.1:4222", "nats://127.0.0.1:4222", "nats://127.0.0.1:0/n",
                "nats://127.0.0.1:4222/a.b", "nats://127.0.0.1:4222/a b"):
        refused = run_peer(["serve", "--mechanism", "nats", "--endpoint", bad])
        assert refused.returncode == 2, (bad, refused.stderr)


def test_rejected_frames_are_answered_empty_and_the_responder_goes_on(server, workdir):
    name = "t:reject"
    with Server("nats", endpoint(server, name)) as responder:
        client = raw(server, name)
        inbox = client.subscribe()
        requests = f"{name}.requests"

        def ask(body):
            client.publish(requests, body, inbox.subject)
            return inbox.next(5).data

        for bad in (bytes(10), encode_header(REQUEST, 0, 100, 0) + bytes(10), b"IPCX" + bytes(20)):
            assert ask(bad) == b""
        # A message of the wrong size where one is due: the rest of the count is given up.
        assert len(ask(encode_mark(0, 32, 2))) == HEADER_SIZE
        client.publish(requests, bytes(31))
        ack = ask(encode_header(END, 3, 0, 0))
        assert STREAM_ACK.unpack_from(ack, HEADER_SIZE)[0] == 0  # received
        client.publish(requests, encode_header(REQUEST, 0, 0, 0))  # no reply subject
        client.flush()
        client.close()
        run = Drive(workdir, "nats", responder.endpoint, 16, 16, 5)
        assert run.returncode == 0, describe(run)
        assert responder.stop() == 0
        assert responder.drain_stderr() == [f"ipclab-peer: rejected frame: {reason}" for reason in (
            "truncated header", "length mismatch", "bad magic", "length mismatch", "no reply-to")]


def test_an_empty_answer_is_a_protocol_error_and_nobody_subscribed_an_io_error(server, workdir):
    subscribed = threading.Event()

    def answer_empty():  # this test's own responder, on a connection (and loop) of its own
        mine = raw(server, "t:empty")
        sub = mine.subscribe("t:empty.requests")
        mine.flush()
        subscribed.set()
        msg = sub.next(10)
        mine.publish(msg.reply, b"")
        mine.close()

    thread = threading.Thread(target=answer_empty)
    thread.start()
    assert subscribed.wait(10)
    run = Drive(workdir, "nats", endpoint(server, "t:empty"), 16, 16, 1)
    thread.join(10)
    assert_error(run, 4, "protocol")
    # Nobody subscribed: the server answers "no responders" at once.
    none = Drive(workdir, "nats", endpoint(server, "t:none"), 16, 16, 1, ["--io-timeout", "5"])
    assert_error(none, 5, "io")
    assert "no responder" in none.stderr, describe(none)


def test_a_responder_whose_server_dies_exits_with_an_io_error(tmp_path):
    check_a_lost_server_ends_the_responder("nats", "nats", "NATS", tmp_path)
