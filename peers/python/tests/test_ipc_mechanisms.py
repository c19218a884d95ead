"""The message channels (sysv-mq, posix-mq, sysv-shm) and the file mechanisms (file, file-poll)
of PROTOCOL.md 4.1 and 4.2, both kinds alike: round trips of every size, faults, shutdown and the
clean-up of kernel objects and files, clients without an answer, the command line. What only
one kind does is in test_message_channels.py and test_file_mechanisms.py; the kernel objects
every test makes are removed after it (ipc_objects.py)."""
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from ipc_objects import FILES, MECHANISMS, MESSAGE_CHANNELS, MiB, objects_left, remove_objects, \
    start_server
from ipc_objects import no_leftover_objects, silent_objects  # noqa: F401 (fixtures)
from peers import Drive, describe, run_peer
from test_roundtrip import check_ok, check_served

# Payload sizes around the message size M (8192 for the queues, 1 MiB for sysv-shm): whole
# frames of M - 1, M, M + 1 bytes and payloads of those sizes.
SIZES = [0, 16, 8168, 8169, 8191, 8192, 8193, MiB - 24, MiB - 23, MiB + 1]


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


# ---- clients facing a server that does not answer ---------------------------------------------


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
