"""Pattern load over a message queue (PROTOCOL.md 11.5.5): the client against this peer's queue
load server on both models (outputs agree, nothing left behind), the one-message request limit,
the server against hand-made messages (reply addresses, rejections, the whole server's
corrupted count), what it refuses, its shutdown, and the posix-mq client's reply queues."""
import os
import threading
import time
from pathlib import Path

import posix_ipc
import pytest
import sysv_ipc
from peers import describe, run_peer
from test_load import SEED, check_consistent, drive_load, load_server

from ipclab_peer import cli, frame, payload
from ipclab_peer.errors import UsageError
from ipclab_peer.load import schedule
from ipclab_peer.transport.shared_queues import reply_queue_size

QUEUES = ["sysv-mq", "posix-mq"]
MODELS = ["iterative", "thread-pool"]
REJECTED = "ipclab-peer: rejected frame: "
WAIT = 10


def sysv_keys(endpoint):
    return [int(key, 16) for key in endpoint[len("sysv:"):].split(",")]


def queues_left(server):
    """The server's queues still there: System V keys, or /dev/mqueue/ipclab-<pid>-*."""
    if server.endpoint.startswith("sysv:"):
        lines = Path("/proc/sysvipc/msg").read_text().splitlines()[1:]
        present = {int(line.split()[0]) & 0xFFFFFFFF for line in lines}
        return [hex(key) for key in sysv_keys(server.endpoint) if key in present]
    prefix = f"ipclab-{server.ready['pid']}-"
    return sorted(name for name in os.listdir("/dev/mqueue") if name.startswith(prefix))


@pytest.fixture
def started():
    """load_server(...) that are stopped, and whose queues are checked gone, at the end."""
    servers = []

    def start(mechanism, model="iterative", *extra):
        server = load_server(mechanism, "auto", model, *extra)
        servers.append(server)
        return server
    yield start
    for server in servers:
        assert server.stop() == 0
        assert queues_left(server) == []


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("mechanism", QUEUES)
def test_a_small_schedule_is_served_on_each_model(mechanism, model, started, workdir):
    server = started(mechanism, model)
    assert server.ready["server_model"] == model
    if mechanism == "sysv-mq":
        key, reply = sysv_keys(server.endpoint)
        assert key >> 16 == 0x1C1A and 1 <= key & 0xFFFF <= 0x7FFF and reply == key | 0x8000
        assert server.endpoint == f"sysv:0x{key:08x},0x{reply:08x}"
    else:
        assert server.endpoint == f"posix:/ipclab-{server.ready['pid']}"
    done, records, result, samples = drive_load(workdir, mechanism, server.endpoint, 3, 200,
                                                300)
    assert done.returncode == 0, describe(done)
    rows = check_consistent(records, result, samples, 3,
                            schedule.schedule(SEED, 200, "fixed", 0, 300))
    assert result["requests_ok"] == 60 and not any(r["error"] for r in rows)
    if mechanism == "posix-mq":  # the client unlinked its reply queues at its end
        assert queues_left(server) == [f"ipclab-{server.ready['pid']}-1"]


@pytest.mark.parametrize("mechanism", QUEUES)
def test_the_largest_request_and_a_response_of_several_messages(mechanism, started, workdir):
    server = started(mechanism, "thread-pool", "--workers", "2")
    done, records, result, samples = drive_load(workdir, mechanism, server.endpoint, 2, 100,
                                                100, "--request-size", "8168",
                                                "--response-size", "20000")
    assert done.returncode == 0, describe(done)
    check_consistent(records, result, samples, 2, schedule.schedule(SEED, 100, "fixed", 0, 100))
    assert result["requests_ok"] == 10


@pytest.mark.parametrize("mechanism", QUEUES)
def test_a_request_over_one_message_is_unsupported(mechanism, started, workdir):
    server = started(mechanism)
    done, _, result, _ = drive_load(workdir, mechanism, server.endpoint, 2, 100, 10,
                                    "--request-size", "8169")
    assert done.returncode == 7 and result["error_kind"] == "unsupported", describe(done)
    assert "8168" in done.stderr


def test_reply_queue_sizes():
    assert reply_queue_size(0) == (1, 32)
    assert reply_queue_size(16) == (1, 40)
    assert reply_queue_size(8168) == (1, 8192)
    assert reply_queue_size(8169) == (2, 8192)
    assert reply_queue_size(10**6) == (10, 8192)


class RawSysv:
    """Hand-made messages onto a sysv-mq load server's queues."""

    def __init__(self, server):
        key, reply = sysv_keys(server.endpoint)
        self.requests, self.replies = sysv_ipc.MessageQueue(key), sysv_ipc.MessageQueue(reply)

    def send(self, message):
        self.requests.send(message, True, 1)

    def receive(self, connection):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                return self.replies.receive(False, 2 + connection)[0]
            except sysv_ipc.BusyError:
                time.sleep(0.005)
        raise AssertionError(f"no reply for connection {connection}")

    def close(self):
        pass


class RawPosix:
    """The same over posix-mq: this test makes the reply queues a client would make."""

    def __init__(self, server):
        self.prefix = server.endpoint[len("posix:"):]
        self.requests = posix_ipc.MessageQueue(f"{self.prefix}-1", write=True, read=False)
        self.replies = {}

    def send(self, message):
        self.requests.send(message, WAIT)

    def receive(self, connection):
        return self.replies[connection].receive(WAIT)[0]

    def open_reply(self, connection):
        self.replies[connection] = posix_ipc.MessageQueue(
            f"{self.prefix}-r{connection}", posix_ipc.O_CREX, 0o600, 1, 40, write=False)

    def close(self):
        self.requests.close()
        for connection, queue in self.replies.items():
            queue.close()
            try:
                posix_ipc.unlink_message_queue(f"{self.prefix}-r{connection}")
            except posix_ipc.ExistentialError:
                pass


def raw(server, connections=2):
    if server.endpoint.startswith("sysv:"):
        return RawSysv(server)
    queues = RawPosix(server)
    for connection in range(connections):
        queues.open_reply(connection)
    return queues


def message(kind, sequence, length, wanted, flags, corrupt=False, extra=b""):
    body = bytearray(payload.payload(SEED, payload.REQUEST_STREAM, sequence, length))
    if corrupt:
        body[0] ^= 1
    return frame.encode_header(kind, sequence, length, wanted, flags) + bytes(body) + extra


def response(sequence, length, wanted):
    return (frame.encode_header(frame.RESPONSE, sequence, wanted, length)
            + payload.payload(SEED, payload.RESPONSE_STREAM, sequence, wanted))


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("mechanism", QUEUES)
def test_reply_addresses_rejections_and_the_whole_servers_corrupted_count(mechanism, model,
                                                                          started):
    server = started(mechanism, model)
    queues = raw(server)
    try:
        for bad, reason in [(message(frame.REQUEST, 0, 8, 8, 0), "bad flags"),
                            (message(frame.REQUEST, 0, 8, 8, 1), "bad flags"),
                            (message(frame.REQUEST, 0, 8, 8, 0x8400), "bad flags"),
                            (message(frame.MARK, 0, 16, 0, 0x8000), "unexpected kind"),
                            (message(frame.REQUEST, 0, 8, 8, 0x8000, extra=b"x"),
                             "length mismatch"),
                            (message(frame.END, 0, 1, 0, 0x8000), "bad end frame"),
                            (b"IPCL\x01", "truncated header")]:
            queues.send(bad)
            assert server.stderr_line() == REJECTED + reason
        queues.send(message(frame.REQUEST, 0, 8, 16, 0x8001, corrupt=True))
        assert queues.receive(1) == response(0, 8, 16)
        queues.send(message(frame.REQUEST, 1, 5, 0, 0x8000))
        assert queues.receive(0) == response(1, 5, 0)
        queues.send(message(frame.END, 2, 0, 0, 0x8000))  # counts connection 1's corruption
        assert queues.receive(0) == frame.end_ack(2, 1)
        queues.send(message(frame.END, 2, 0, 0, 0x8001))
        assert queues.receive(1) == frame.end_ack(2, 0)
    finally:
        queues.close()
    assert server.drain_stderr() == []


def test_a_full_posix_reply_queue_drops_the_answer(started):
    server = started("posix-mq")
    queues = raw(server, connections=1)
    try:
        queues.send(message(frame.REQUEST, 0, 8, 16, 0x8000))
        queues.send(message(frame.REQUEST, 1, 8, 16, 0x8000))  # the queue holds one message
        line = server.stderr_line()
        assert line.startswith("ipclab-peer: io: ") and "dropped" in line, line
        assert queues.receive(0) == response(0, 8, 16)
    finally:
        queues.close()


@pytest.mark.parametrize("args", [["--server-model", "thread"], ["--server-model", "asyncio"],
                                  ["--fault", "none"], ["--fault", "flip-response-byte"],
                                  ["--backlog", "5"], ["--nodelay", "on"]])
@pytest.mark.parametrize("mechanism", QUEUES)
def test_what_a_queue_load_server_refuses_is_unsupported(mechanism, args):
    flags = {"--server-model": "iterative", **dict([args])}
    done = run_peer(["serve", "--pattern", "load", "--mechanism", mechanism, "--endpoint",
                     "auto", *[x for pair in flags.items() for x in pair]])
    assert done.returncode == 7 and done.stderr.count("\n") == 1, describe(done)
    assert done.stdout == ""


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "stdin EOF"])
@pytest.mark.parametrize("mechanism", QUEUES)
def test_shutdown_with_workers_blocked_in_receive_removes_every_queue(mechanism, how,
                                                                        started):
    server = started(mechanism, "thread-pool", "--workers", "3")
    queues = raw(server, connections=1)
    try:
        queues.send(message(frame.REQUEST, 0, 8, 16, 0x8000))
        assert queues.receive(0) == response(0, 8, 16)
    finally:
        if mechanism == "posix-mq":  # left for the server to unlink: it opened it
            queues.replies.pop(0).close()
        queues.close()
    assert server.shut_down(how) == 0
    assert queues_left(server) == []


@pytest.mark.parametrize("endpoint,pattern", [("sysv:0x1c1a0001", "load"),
                                              ("sysv:0x1c1a0001,0x1c1a8001", "rr")])
def test_a_sysv_mq_endpoint_must_fit_the_pattern(endpoint, pattern):
    argv = ["drive", "--mechanism", "sysv-mq", "--endpoint", endpoint, "--pattern", pattern,
            "--samples-file", "s", "--result-file", "r"]
    argv += (["--clients", "1", "--rate", "1", "--duration-ms", "1", "--records-file", "x"]
             if pattern == "load" else ["--request-size", "1", "--response-size", "1",
                                        "--iterations", "1"])
    with pytest.raises(UsageError, match="load server's endpoint"):
        cli.parse(argv)


@pytest.fixture
def silent_posix_queue():
    """A request queue no server reads, named as a posix-mq server's would be."""
    prefix = f"/ipclab-{os.getpid()}"
    queue = posix_ipc.MessageQueue(f"{prefix}-1", posix_ipc.O_CREX, 0o600, 10, 8192)
    yield prefix
    queue.close()
    queue.unlink()


def test_a_posix_client_times_out_and_removes_its_reply_queues(silent_posix_queue, workdir):
    done, records, result, samples = drive_load(workdir, "posix-mq",
                                                f"posix:{silent_posix_queue}", 2, 100, 40,
                                                io_timeout="0.3")
    assert done.returncode == 0, describe(done)
    rows = check_consistent(records, result, samples, 2,
                            schedule.schedule(SEED, 100, "fixed", 0, 40))
    assert [r["error"] for r in rows] == ["timeout", "timeout", "not-sent", "not-sent"]
    assert not [n for n in os.listdir("/dev/mqueue") if n.startswith(f"ipclab-{os.getpid()}-r")]


def test_a_posix_reply_queue_that_exists_ends_the_case_as_io(silent_posix_queue, workdir):
    taken = posix_ipc.MessageQueue(f"{silent_posix_queue}-r1", posix_ipc.O_CREX, 0o600, 1, 40)
    try:
        done, _, result, _ = drive_load(workdir, "posix-mq", f"posix:{silent_posix_queue}", 3,
                                        100, 10)
        assert done.returncode == 5 and result["error_kind"] == "io", describe(done)
        left = [n for n in os.listdir("/dev/mqueue") if n.startswith(f"ipclab-{os.getpid()}-r")]
        assert left == [f"ipclab-{os.getpid()}-r1"]  # r0 (made before r1 failed) is gone
    finally:
        taken.close()
        taken.unlink()


def test_a_sysv_client_waiting_for_a_lost_answer_ends_when_the_queues_go(workdir):
    """No timed receive over sysv-mq: the orchestrator removes a dead server's queues and the
    waiting connection fails with EIDRM (io)."""
    made = [sysv_ipc.MessageQueue(key, sysv_ipc.IPC_CREX, 0o600) for key in
            (0x1C1A7FF1, 0x1C1AFFF1)]  # a request queue no server reads, and its reply queue

    def remove_once_a_request_waits():
        deadline = time.monotonic() + WAIT
        while made[0].current_messages == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        for queue in made:
            queue.remove()
    remover = threading.Thread(target=remove_once_a_request_waits)
    remover.start()
    try:
        done, records, result, samples = drive_load(workdir, "sysv-mq",
                                                    "sysv:0x1c1a7ff1,0x1c1afff1", 1, 100, 20)
    finally:
        remover.join()
    assert done.returncode == 0, describe(done)
    rows = check_consistent(records, result, samples, 1,
                            schedule.schedule(SEED, 100, "fixed", 0, 20))
    assert [r["error"] for r in rows] == ["io", "not-sent"]
