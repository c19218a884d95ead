"""The message channels (sysv-mq, posix-mq, sysv-shm) of PROTOCOL.md 4.1: the tagged private
objects READY names, malformed frames as messages, objects removed under a client or a server,
missing objects, endpoint syntax, sysv-shm's slot length. The kernel objects every test makes
are removed after it (ipc_objects.py)."""
import os
import subprocess
import time

import posix_ipc
import pytest
import sysv_ipc
from ipc_objects import MALFORMED, MESSAGE_CHANNELS, REJECTED, objects_left, remove_objects, \
    start_server, sysv_objects
from ipc_objects import no_leftover_objects, silent_objects  # noqa: F401 (fixtures)
from peers import PEER, Drive, describe, peer_env
from test_roundtrip import check_ok

from ipclab_peer.transport import channels

# Vectors that need end of stream (there is none on a message channel).
NEEDS_END_OF_STREAM = {"truncated header", "truncated payload"}


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


# ---- clients facing a server that does not answer ---------------------------------------------


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


# ---- command line, removed objects, the slot --------------------------------------------------


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
