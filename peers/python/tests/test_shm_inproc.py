"""PROTOCOL.md 4.3 (shm, shm-spin, shm-futex) and 4.4 (none, ctypes): round trips between our
own server and client processes, clean-up of the shared memory object, timeouts, rejections,
and the in-process mechanisms against the real libipclab_native.so.

Only /dev/shm objects named by our own servers' READY lines (or made by hand with this test's
pid) are touched: other programs may use the ipclab tag meanwhile.
"""
import dataclasses
import mmap
import os
import stat
import struct
from pathlib import Path

import posix_ipc
import pytest
from peers import Drive, Server, describe, run_peer
from test_roundtrip import check_ok, check_served

from ipclab_peer import frame
from ipclab_peer.transport import shm

MiB = 1 << 20
SHM = ["shm", "shm-spin", "shm-futex"]
MODES = {"shm": shm.HYBRID, "shm-spin": shm.SPIN, "shm-futex": shm.FUTEX}
SIZES = [(0, 0), (16, 16), (MiB, MiB), (MiB + 1, MiB + 1), (3, MiB + 1)]
NATIVE_LIBRARY = Path(__file__).resolve().parents[2] / "native" / "build" / "libipclab_native.so"
REJECTED = "ipclab-peer: rejected frame: "


def shm_path(endpoint):
    return Path("/dev/shm") / (endpoint[len("posix:/"):] + shm.SUFFIX)


def stop_and_remove(server):
    try:
        server.stop()
    finally:
        path = shm_path(server.endpoint)
        if path.exists():  # only if the server failed to clean up: never another's object
            path.unlink()


@pytest.fixture(scope="module")
def servers():
    running = {}

    def get(mechanism):
        # An idle shm-spin server keeps a CPU busy: it runs only while its tests do.
        if mechanism != "shm-spin" and "shm-spin" in running:
            stop_and_remove(running.pop("shm-spin"))
        if mechanism not in running:
            running[mechanism] = Server(mechanism, "auto", "--seed", "5")
        return running[mechanism]
    try:
        yield get
    finally:
        for server in running.values():
            stop_and_remove(server)


@pytest.mark.parametrize("request_size,response_size", SIZES,
                         ids=[f"{a}-{b}" for a, b in SIZES])
@pytest.mark.parametrize("mechanism", SHM)
def test_shm_round_trips(mechanism, request_size, response_size, servers, workdir):
    check_served(servers(mechanism), workdir, mechanism, request_size, response_size)


@pytest.mark.parametrize("mechanism", SHM)
def test_shm_counters_settle_after_a_run(mechanism, servers, workdir):
    """After END/END_ACK both directions are empty (seq == ack); only the server may be asleep,
    waiting for the next request (direction 1), never on direction 2."""
    server = servers(mechanism)
    run = Drive(workdir, mechanism, server.endpoint, 100, 100, iterations=50,
                extra=["--seed", "5"])
    check_ok(run, mechanism, 100, 100, 50)
    with open(shm_path(server.endpoint), "rb") as handle:
        data = handle.read(512)
    words = struct.unpack_from("<128I", data)
    asleep = []
    # Word indexes: seq_d in the sender's line (client 0, server 16), ack_d at 1 in the
    # receiver's, sleepers_d at 32 / 48.
    for seq_at, ack_at, sleepers_at in ((0, 17, 32), (16, 1, 48)):
        seq, ack = words[seq_at], words[ack_at]
        assert seq == ack and seq > 0
        asleep.append(words[sleepers_at])
    assert asleep == [0 if mechanism == "shm-spin" else 1, 0]


def test_hybrid_without_spinning_sleeps_on_the_futex(workdir):
    server = Server("shm", "auto", "--spin-us", "0")
    try:
        run = Drive(workdir, "shm", server.endpoint, 16, 16, iterations=20,
                    extra=["--spin-us", "0", "--io-timeout", "10"])
        check_ok(run, "shm", 16, 16, 20)
    finally:
        stop_and_remove(server)


@pytest.mark.parametrize("mechanism", SHM)
def test_shm_object_is_private_and_sized(mechanism, servers):
    server = servers(mechanism)
    assert server.endpoint == f"posix:/ipclab-{server.ready['pid']}"
    info = shm_path(server.endpoint).stat()
    assert stat.S_IMODE(info.st_mode) == 0o600
    assert info.st_size == shm.SIZE == 2101248


@pytest.mark.parametrize("mechanism,how", [("shm", "SIGTERM"), ("shm", "SIGINT"),
                                           ("shm", "stdin EOF"), ("shm-spin", "SIGTERM"),
                                           ("shm-futex", "stdin EOF")])
def test_shutdown_unlinks_the_object(mechanism, how, workdir):
    server = Server(mechanism, "auto")
    path = shm_path(server.endpoint)
    try:
        assert path.exists()
        check_ok(Drive(workdir, mechanism, server.endpoint, 10, 10, iterations=2),
                 mechanism, 10, 10, 2)
        assert server.shut_down(how) == 0
    finally:
        stop_and_remove(server)
    assert server.drain_stderr() == []
    assert not path.exists()


@pytest.mark.parametrize("mechanism", SHM)
def test_fault_injection_is_a_payload_mismatch(mechanism, workdir):
    server = Server(mechanism, "auto", "--fault", "flip-response-byte")
    try:
        run = Drive(workdir, mechanism, server.endpoint, 16, 16, iterations=2)
        assert run.returncode == 3, describe(run)
        assert run.result["error_kind"] == "payload-mismatch"
    finally:
        stop_and_remove(server)


@pytest.mark.parametrize("mechanism", SHM)
def test_malformed_frame_is_rejected_and_the_server_goes_on(mechanism, servers, workdir):
    server = servers(mechanism)
    channel = shm.open_client(MODES[mechanism], server.endpoint[len("posix:"):], 10, 50)
    bad = bytearray(frame.encode_header(frame.REQUEST, 0, 0, 0))
    bad[0:4] = b"IPCX"
    channel.send(bytes(bad))
    assert server.stderr_line() == REJECTED + "bad magic"
    check_ok(Drive(workdir, mechanism, server.endpoint, 16, 16, iterations=2,
                   extra=["--seed", "5"]), mechanism, 16, 16, 2)


@pytest.fixture
def silent_object():
    """A zero-filled object no server answers on, named with this test's pid."""
    name = f"/ipclab-{os.getpid()}{shm.SUFFIX}"
    memory = posix_ipc.SharedMemory(name, posix_ipc.O_CREX, 0o600, shm.SIZE)
    memory.close_fd()
    try:
        yield f"posix:/ipclab-{os.getpid()}"
    finally:
        posix_ipc.unlink_shared_memory(name)


def test_layout_one_line_per_side_and_inline_messages(silent_object):
    """The offsets of the contract's table, read back raw: each side writes only its own line,
    messages of at most 48 bytes travel in it, longer ones in the slots."""
    name = silent_object[len("posix:"):] + shm.SUFFIX
    shared = posix_ipc.SharedMemory(name)
    try:
        memory = mmap.mmap(shared.fd, shm.SIZE)
    finally:
        shared.close_fd()
    client = shm.ShmChannel(memory, server=False, mode="spin", timeout=1)
    server = shm.ShmChannel(memory, server=True, mode="spin")
    raw = memoryview(memory)

    def words(at, count):
        return struct.unpack_from(f"<{count}I", memory, at)
    request, response = bytes(range(1, 49)), bytes(range(100, 149))[:30]
    client.send(request)
    assert words(0, 4) == (1, 0, 48, 0) and bytes(raw[16:64]) == request
    assert words(64, 4) == (0, 0, 0, 0)
    view = bytearray(shm.SLOT)
    assert server.recv_into(memoryview(view)) == 48 and bytes(view[:48]) == request
    assert words(64, 4) == (0, 1, 0, 0)  # ack1 in the server's line
    server.send(response)
    assert words(64, 4) == (1, 1, 30, 0) and bytes(raw[80:110]) == response
    assert client.recv_into(memoryview(view)) == 30 and bytes(view[:30]) == response
    assert words(0, 4) == (1, 1, 48, 0)  # ack2 in the client's line
    # 49 bytes: the slot, the lines keep only the counters and the length.
    longer = bytes(range(49))
    client.send(longer)
    assert words(0, 3) == (2, 1, 49) and bytes(raw[4096:4096 + 49]) == longer
    assert bytes(raw[16:64]) == request  # the inline bytes are left as they were
    assert server.recv_into(memoryview(view)) == 49 and bytes(view[:49]) == longer
    server.send(longer)
    assert words(64, 3) == (2, 2, 49) and bytes(raw[1052672:1052672 + 49]) == longer
    assert client.recv_into(memoryview(view)) == 49
    assert words(128, 1) == (0,) and words(192, 1) == (0,)  # sleepers, nobody slept
    del raw, client, server
    memory.close()


@pytest.mark.parametrize("mechanism", SHM)
def test_client_times_out_without_a_server(mechanism, silent_object, workdir):
    run = Drive(workdir, mechanism, silent_object, 16, 16, iterations=1,
                extra=["--io-timeout", "0.3"])
    assert run.returncode == 6, describe(run)
    assert run.result["error_kind"] == "timeout"


def test_client_of_a_missing_object_is_an_io_error(workdir):
    run = Drive(workdir, "shm", "posix:/ipclab-0-nothing", 16, 16, iterations=1)
    assert run.returncode == 5, describe(run)
    assert run.result["error_kind"] == "io"


@pytest.mark.parametrize("args", [
    ["serve", "--mechanism", "shm", "--endpoint", "auto", "--spin-us", "-1"],
    ["serve", "--mechanism", "shm", "--endpoint", "posix:/x"],
    ["drive", "--mechanism", "shm", "--endpoint", "auto", "--request-size", "1",
     "--response-size", "1", "--iterations", "1", "--samples-file", "s", "--result-file", "r"],
    ["drive", "--mechanism", "ctypes", "--endpoint", "inproc", "--request-size", "1",
     "--response-size", "1", "--iterations", "1", "--samples-file", "s", "--result-file", "r"],
    ["drive", "--mechanism", "none", "--endpoint", "elsewhere", "--request-size", "1",
     "--response-size", "1", "--iterations", "1", "--samples-file", "s", "--result-file", "r"],
])
def test_usage_errors(args):
    proc = run_peer(args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("ipclab-peer: usage: ")


@pytest.mark.parametrize("mechanism", ["none", "ctypes", "direct"])
def test_in_process_mechanisms_cannot_serve(mechanism):
    proc = run_peer(["serve", "--mechanism", mechanism, "--endpoint", "inproc"])
    assert proc.returncode == 7, proc.stderr


# ---- in-process: none, ctypes ------------------------------------------------------------------

INPROC_SIZES = [(0, 0), (3, 5), (16, 16), (MiB + 1, MiB + 1), (100, 0)]


def native_library():
    if not NATIVE_LIBRARY.exists():
        pytest.fail(f"{NATIVE_LIBRARY} is missing: build the C++ peer first (make build)")
    return str(NATIVE_LIBRARY)


def drive_inproc(workdir, mechanism, request_size, response_size, iterations=20, extra=()):
    library = ["--native-library", native_library()] if mechanism == "ctypes" else []
    return Drive(workdir, mechanism, "inproc", request_size, response_size,
                 iterations=iterations, extra=[*library, "--warmup", "2", "--seed", "9", *extra])


@pytest.mark.parametrize("mechanism", ["none", "ctypes"])
@pytest.mark.parametrize("request_size,response_size", INPROC_SIZES,
                         ids=[f"{a}-{b}" for a, b in INPROC_SIZES])
def test_inproc_round_trips(mechanism, request_size, response_size, workdir):
    run = drive_inproc(workdir, mechanism, request_size, response_size)
    check_ok(run, mechanism, request_size, response_size, 20, warmup=2)


def test_ctypes_with_a_missing_library_is_an_io_error(workdir):
    run = Drive(workdir, "ctypes", "inproc", 16, 16, iterations=1,
                extra=["--native-library", os.path.join(workdir, "nothing.so")])
    assert run.returncode == 5, describe(run)
    assert run.result["error_kind"] == "io"


def test_ctypes_rejected_stamp_is_a_payload_mismatch(monkeypatch, workdir):
    """A non-zero return of ipclab_call: the round trip fails after the clock."""
    from ipclab_peer import cli, client, mechanisms

    calls = []

    def fake_load(endpoint, options):
        def call(*args):
            calls.append(args)
            return -1
        return call
    ctypes_entry = dataclasses.replace(mechanisms.MECHANISMS["ctypes"], connect=fake_load)
    monkeypatch.setitem(mechanisms.MECHANISMS, "ctypes", ctypes_entry)
    samples, result = os.path.join(workdir, "s"), os.path.join(workdir, "r")
    _, config = cli.parse(["drive", "--mechanism", "ctypes", "--endpoint", "inproc",
                           "--native-library", "x.so", "--request-size", "16",
                           "--response-size", "16", "--iterations", "3",
                           "--samples-file", samples, "--result-file", result])
    assert client.drive(config) == 3
    assert len(calls) == 1 and calls[0][1] == 16 and calls[0][3:] == (16, 1, 0)
