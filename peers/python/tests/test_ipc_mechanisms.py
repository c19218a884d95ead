"""The message channels (sysv-mq, posix-mq, sysv-shm) and the file mechanisms (file, file-poll)
of PROTOCOL.md 4.1 and 4.2: round trips, rejections, timeouts and clean-up of kernel objects.

Every kernel object a test creates (through a server or by hand) is recorded, and removed after
the test if it is still there, so a failing test leaves nothing behind. Only objects named by
our own servers' READY lines are touched: other programs may use the ipclab tag meanwhile.
"""
import glob
import os
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import posix_ipc
import pytest
import sysv_ipc
from peers import PEER, Drive, Server, describe, malformed_vectors, peer_env, run_peer
from test_roundtrip import check_ok, check_served

from ipclab_peer import frame
from ipclab_peer.transport import channels

MiB = 1 << 20
MESSAGE_CHANNELS = ["sysv-mq", "posix-mq", "sysv-shm"]
FILES = ["file", "file-poll"]
MECHANISMS = MESSAGE_CHANNELS + FILES
REJECTED = "ipclab-peer: rejected frame: "
# Payload sizes around the message size M (8192 for the queues, 1 MiB for sysv-shm): whole
# frames of M - 1, M, M + 1 bytes and payloads of those sizes.
SIZES = [0, 16, 8168, 8169, 8191, 8192, 8193, MiB - 24, MiB - 23, MiB + 1]
# Vectors that need end of stream (there is none on a message channel).
NEEDS_END_OF_STREAM = {"truncated header", "truncated payload"}
MALFORMED = malformed_vectors()

_endpoints = []  # READY endpoints (and hand-made ones) to remove after each test


def remember(endpoint):
    _endpoints.append(endpoint)
    return endpoint


def sysv_objects(key):
    """(kind, id) of every System V object with this key, from /proc/sysvipc."""
    found = []
    for kind in ("msg", "shm", "sem"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        for line in lines[1:]:
            fields = line.split()
            if int(fields[0]) & 0xFFFFFFFF == key:
                found.append((kind, int(fields[1])))
    return found


def objects_left(endpoint):
    """What is still there of the objects an endpoint names."""
    if endpoint.startswith("sysv:"):
        return sysv_objects(int(endpoint[len("sysv:"):], 16))
    prefix = endpoint[len("posix:"):]
    left = glob.glob(f"/dev/shm/{prefix[1:]}*")
    for direction in (1, 2):
        try:
            posix_ipc.MessageQueue(f"{prefix}-{direction}").close()
        except posix_ipc.ExistentialError:
            continue
        left.append(f"{prefix}-{direction}")
    return left


def remove_objects(endpoint):
    if endpoint.startswith("sysv:"):
        for kind, ident in sysv_objects(int(endpoint[len("sysv:"):], 16)):
            subprocess.run(["ipcrm", {"msg": "-q", "shm": "-m", "sem": "-s"}[kind], str(ident)],
                           capture_output=True)
        return
    prefix = endpoint[len("posix:"):]
    for direction in (1, 2):
        try:
            posix_ipc.unlink_message_queue(f"{prefix}-{direction}")
        except posix_ipc.ExistentialError:
            pass


@pytest.fixture(autouse=True)
def no_leftover_objects():
    yield
    while _endpoints:
        remove_objects(_endpoints.pop())


def start_server(mechanism, directory, *extra, track=True):
    if mechanism in FILES:
        endpoint = os.path.join(directory, mechanism)
        os.mkdir(endpoint, 0o700)
    else:
        endpoint = "auto"
    server = Server(mechanism, endpoint, *extra)
    if mechanism in MESSAGE_CHANNELS and track:
        remember(server.endpoint)
    return server


@pytest.fixture(scope="module")
def servers():
    """One server per mechanism for the round-trip tests: each serves many clients in turn."""
    directory = tempfile.mkdtemp(prefix="ipclabpy-")
    running = {}

    def get(mechanism):
        if mechanism not in running:
            running[mechanism] = start_server(mechanism, directory, "--seed", "5", track=False)
        return running[mechanism]
    try:
        yield get, directory
    finally:
        for server in running.values():
            server.stop()
            if server.endpoint.startswith(("sysv:", "posix:")):
                remove_objects(server.endpoint)
        shutil.rmtree(directory, ignore_errors=True)


def round_trip_cases():
    for mechanism in MECHANISMS:
        for size in SIZES:
            yield pytest.param(mechanism, size, size, id=f"{mechanism}-{size}")
        yield pytest.param(mechanism, 3, MiB + 1, id=f"{mechanism}-3-{MiB + 1}")
    for mechanism in MESSAGE_CHANNELS:
        yield pytest.param(mechanism, 16 * MiB, 16 * MiB, id=f"{mechanism}-16MiB")


@pytest.mark.parametrize("mechanism,request_size,response_size", round_trip_cases())
def test_round_trips(mechanism, request_size, response_size, servers, workdir):
    get, _ = servers
    iterations, warmup = (1, 0) if request_size > MiB + 1 else (3, 1)
    check_served(get(mechanism), workdir, mechanism, request_size, response_size, iterations,
                 warmup)


@pytest.mark.parametrize("mechanism", MESSAGE_CHANNELS)
def test_ready_names_tagged_private_objects(mechanism, workdir):
    server = start_server(mechanism, workdir)
    try:
        endpoint = server.endpoint
        pid = server.ready["pid"]
        if mechanism == "posix-mq":
            assert endpoint == f"posix:/ipclab-{pid}"
            for direction in (1, 2):
                queue = posix_ipc.MessageQueue(f"/ipclab-{pid}-{direction}")
                try:
                    assert (queue.max_messages, queue.max_message_size) == (10, 8192)
                    assert queue.mode & 0o777 == 0o600
                finally:
                    queue.close()
        else:
            assert endpoint.startswith("sysv:0x1c1a") and len(endpoint) == len("sysv:0x") + 8
            key = int(endpoint[len("sysv:"):], 16)
            assert key & 0xFFFF != 0
            kinds = sorted(kind for kind, _ in sysv_objects(key))
            assert kinds == (["msg"] if mechanism == "sysv-mq" else ["sem", "shm"])
            if mechanism == "sysv-mq":
                assert sysv_ipc.MessageQueue(key).mode & 0o777 == 0o600
            else:
                memory = sysv_ipc.SharedMemory(key)
                assert memory.size == 2097168 and memory.mode & 0o777 == 0o600
                memory.detach()
    finally:
        assert server.stop() == 0
    assert objects_left(endpoint) == []


@pytest.mark.parametrize("mechanism", MESSAGE_CHANNELS)
def test_malformed_frames_on_a_message_channel(mechanism, workdir):
    """Each malformed header arrives as one message; the server rejects it, drops the rest of
    that message and serves the next client."""
    server = start_server(mechanism, workdir)
    try:
        channel = open_client_channel(mechanism, server.endpoint)
        for vector in MALFORMED:
            if vector["name"].split(" (")[0] in NEEDS_END_OF_STREAM:
                continue
            channel.send(bytes.fromhex(vector["hex"]))
            assert server.stderr_line() == REJECTED + vector["reason"], vector["name"]
        close_channel(channel)
        run = Drive(workdir, mechanism, server.endpoint, 16, 16, iterations=3)
        check_ok(run, mechanism, 16, 16, 3)
        assert server.proc.poll() is None
    finally:
        assert server.stop() == 0
    assert server.drain_stderr() == []


def open_client_channel(mechanism, endpoint):
    if mechanism == "sysv-mq":
        key = int(endpoint[len("sysv:"):], 16)
        return channels.SysvQueueChannel(channels.open_sysv_queue(key), server=False)
    if mechanism == "posix-mq":
        return channels.open_posix_queues(endpoint[len("posix:"):], 10)
    return channels.open_shm(int(endpoint[len("sysv:"):], 16), 10)


def close_channel(channel):
    if isinstance(channel, channels.PosixQueueChannel):
        channel.close()
    elif isinstance(channel, channels.ShmChannel):
        memory = channel.memory.obj
        channel.memory.release()
        memory.detach()


@pytest.mark.parametrize("mechanism", FILES)
def test_malformed_files(mechanism, workdir):
    server = start_server(mechanism, workdir, "--poll-interval-us", "500")
    try:
        directory = server.endpoint
        reasons = {"truncated payload": "length mismatch"}  # a file has no end of stream
        for vector in MALFORMED:
            temporary = os.path.join(directory, "req.tmp")
            Path(temporary).write_bytes(bytes.fromhex(vector["hex"]))
            os.rename(temporary, os.path.join(directory, "req"))
            reason = reasons.get(vector["reason"], vector["reason"])
            assert server.stderr_line() == REJECTED + reason, vector["name"]
        # A well-formed header whose file is longer than it announces.
        Path(directory, "req.tmp").write_bytes(frame.encode_header(frame.REQUEST, 0, 4, 0)
                                               + bytes(5))
        os.rename(os.path.join(directory, "req.tmp"), os.path.join(directory, "req"))
        assert server.stderr_line() == REJECTED + "length mismatch"
        run = Drive(workdir, mechanism, directory, 16, 16, iterations=3)
        check_ok(run, mechanism, 16, 16, 3)
        assert os.listdir(directory) == []
    finally:
        assert server.stop() == 0
    assert server.drain_stderr() == []


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_fault_injection_is_a_payload_mismatch(mechanism, workdir):
    server = start_server(mechanism, workdir, "--fault", "flip-response-byte")
    try:
        run = Drive(workdir, mechanism, server.endpoint, 16, 9000, iterations=2)
        assert run.returncode == 3, describe(run)
        assert run.result["error_kind"] == "payload-mismatch"
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "stdin EOF"])
def test_shutdown_removes_everything(mechanism, how, workdir):
    server = start_server(mechanism, workdir)
    endpoint = server.endpoint
    try:
        run = Drive(workdir, mechanism, endpoint, 100, 100, iterations=2)
        check_ok(run, mechanism, 100, 100, 2)
        if mechanism in FILES:
            # Leftovers of a dead client: the server removes them when it exits.
            Path(endpoint, "req.tmp").write_bytes(b"partial")
            Path(endpoint, "resp").write_bytes(b"unread")
        time.sleep(0.05)  # let the server block in its next receive
        assert server.shut_down(how) == 0
    finally:
        server.stop()
    # Removing an object under the blocked main thread must not produce an error line.
    assert server.drain_stderr() == []
    if mechanism in FILES:
        assert os.listdir(endpoint) == []
    else:
        assert objects_left(endpoint) == []


def test_file_server_refuses_a_directory_with_leftovers(workdir):
    directory = os.path.join(workdir, "files")
    os.mkdir(directory, 0o700)
    Path(directory, "req").write_bytes(b"stale")
    run = run_peer(["serve", "--mechanism", "file", "--endpoint", directory])
    assert run.returncode == 5, run.stderr
    assert run.stderr.startswith("ipclab-peer: io: ") and run.stdout == ""
    assert os.listdir(directory) == ["req"]


def test_files_are_private(workdir):
    """The client's request files are 0600 (seen by a reader that is not a server)."""
    directory = os.path.join(workdir, "files")
    os.mkdir(directory, 0o700)
    proc = subprocess.Popen(PEER + [
        "drive", "--mechanism", "file-poll", "--endpoint", directory, "--request-size", "16",
        "--response-size", "16", "--iterations", "1", "--io-timeout", "0.5",
        "--samples-file", os.path.join(workdir, "s"), "--result-file",
        os.path.join(workdir, "r")], env=peer_env(), stderr=subprocess.PIPE, text=True)
    try:
        request = Path(directory, "req")
        deadline = time.monotonic() + 10
        while not request.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert stat.S_IMODE(request.stat().st_mode) == 0o600
        assert proc.wait(10) == 6
        assert proc.stderr.read().startswith("ipclab-peer: timeout: ")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


# ---- clients facing a server that does not answer ---------------------------------------------


@pytest.fixture
def silent_objects():
    """Kernel objects made by the test itself, as a server would, but nobody answers."""
    made = []

    def make(mechanism):
        if mechanism == "posix-mq":
            prefix = f"/ipclab-{os.getpid()}"
            remember(f"posix:{prefix}")
            channels.create_posix_queues(prefix, made.append)
            return f"posix:{prefix}"
        if mechanism == "sysv-shm":
            key, memory, _ = channels.create_shm(made.append)
            remember(channels.format_sysv(key))
            memory.detach()
            return channels.format_sysv(key)
        key, _ = channels.create_sysv_queue(made.append)
        return remember(channels.format_sysv(key))
    yield make
    for remove in made:
        try:
            remove()
        except Exception:  # noqa: BLE001 - already removed by the test
            pass


@pytest.mark.parametrize("mechanism", ["posix-mq", "sysv-shm", "file", "file-poll"])
def test_client_times_out_without_an_answer(mechanism, silent_objects, workdir):
    if mechanism in FILES:
        endpoint = os.path.join(workdir, "files")
        os.mkdir(endpoint, 0o700)
    else:
        endpoint = silent_objects(mechanism)
    started = time.monotonic()
    run = Drive(workdir, mechanism, endpoint, 16, 16, iterations=1,
                extra=["--io-timeout", "0.3"])
    assert run.returncode == 6, describe(run)
    assert run.stderr.startswith("ipclab-peer: timeout: ")
    assert run.result["error_kind"] == "timeout"
    assert time.monotonic() - started < 10


def test_sysv_mq_client_fails_when_the_queue_is_removed(silent_objects, workdir):
    """msgrcv has no timeout: a client waits until the (dead) server's queue is removed."""
    endpoint = silent_objects("sysv-mq")
    key = int(endpoint[len("sysv:"):], 16)
    queue = sysv_ipc.MessageQueue(key)
    proc = subprocess.Popen(PEER + [
        "drive", "--mechanism", "sysv-mq", "--endpoint", endpoint, "--request-size", "16",
        "--response-size", "16", "--iterations", "1",
        "--samples-file", os.path.join(workdir, "s"), "--result-file",
        os.path.join(workdir, "r")], env=peer_env(), stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while queue.current_messages == 0 and time.monotonic() < deadline:
            time.sleep(0.01)  # the request has arrived: the client now waits in msgrcv
        queue.remove()
        assert proc.wait(10) == 5
        assert "queue was removed" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.mark.parametrize("mechanism", MESSAGE_CHANNELS)
def test_client_of_a_missing_object_is_an_io_error(mechanism, workdir):
    endpoint = "posix:/ipclab-0-none" if mechanism == "posix-mq" else "sysv:0x1c1a0000"
    run = Drive(workdir, mechanism, endpoint, 16, 16, iterations=1)
    assert run.returncode == 5, describe(run)
    assert run.stderr.startswith("ipclab-peer: io: ")


# ---- command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["serve", "--mechanism", "sysv-mq", "--endpoint", "sysv:0x1c1a0001"],
    ["serve", "--mechanism", "posix-mq", "--endpoint", "/ipclab-1"],
    ["serve", "--mechanism", "file-poll", "--endpoint", "/tmp", "--poll-interval-us", "0"],
    ["serve", "--mechanism", "file-poll", "--endpoint", "/tmp", "--poll-interval-us", "-5"],
    ["serve", "--mechanism", "file-poll", "--endpoint", "/tmp", "--poll-interval-us",
     str(2**32)],
    ["serve", "--mechanism", "file", "--endpoint", "/tmp", "--poll-interval-us", "1",
     "--poll-interval-us", "2"],
], ids=["sysv endpoint to serve", "path to posix serve", "zero interval", "negative interval",
        "interval overflow", "repeated interval"])
def test_usage_errors(args):
    run = run_peer(args)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("ipclab-peer: usage: ") and run.stderr.count("\n") == 1


@pytest.mark.parametrize("mechanism,endpoint", [
    ("sysv-mq", "auto"), ("sysv-shm", "0x1c1a0001"), ("sysv-shm", "sysv:0x"),
    ("posix-mq", "auto"), ("posix-mq", "posix:ipclab-1"),
])
def test_client_endpoint_syntax(mechanism, endpoint, workdir):
    run = Drive(workdir, mechanism, endpoint, 16, 16, iterations=1)
    assert run.returncode == 2, describe(run)


@pytest.mark.parametrize("mechanism", ["sysv-mq", "sysv-shm"])
def test_server_whose_objects_are_removed_exits_with_io_error(mechanism, workdir):
    server = start_server(mechanism, workdir)
    try:
        time.sleep(0.05)  # let the server block in its receive
        remove_objects(server.endpoint)
        assert server.proc.wait(10) == 5
    finally:
        server.stop()
    lines = server.drain_stderr()
    assert lines and all(line.startswith("ipclab-peer: io: ") for line in lines), lines


def test_a_sysv_shm_slot_length_over_1_mib_is_a_protocol_error():
    from ipclab_peer.errors import ProtocolError
    from ipclab_peer.transport.channels import SHM_LENGTH, SHM_SIZE, SHM_SLOT_SPAN, ShmChannel

    class Unguarded:  # semaphore operations that never block: only the slot check is under test
        def operation(self, index, delta, timeout=None):
            return lambda: None

    memory = bytearray(SHM_SIZE)
    server = ShmChannel(memory, Unguarded(), server=True)
    SHM_LENGTH.pack_into(memory, 0, (1 << 20) + 1)  # direction 1's slot, which the server reads
    with pytest.raises(ProtocolError, match="slot length 1048577 above 1048576"):
        server.recv_into(memoryview(bytearray(64)))
    assert SHM_SLOT_SPAN == 8 + (1 << 20)
