"""iceoryx2 and iceoryx2-spin (PROTOCOL.md 4.12) through the iceoryx2 wheel: a Python server and
client over the server's services, READY's endpoint and where the library's files go, rr up to
the largest payload (and one byte more refused), --sample-write header (the header alone
written and checked), streams past the subscriber's buffer, the faults, what the server rejects
(an empty answer; it goes on), clients one after another (one leaving amid a stream, one
killed), shutdown dropping the node and leaving nothing in /dev/shm, a client nobody answers
timing out, an empty answer, refused patterns and endpoints, and `capabilities`' library. This
test's own client and server (in-process) are the peer's, from the transport."""
import json
import os
import subprocess
import threading
import time
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest
from peers import Drive, Server, Stream, describe, run_peer, start_peer
from test_client import assert_error
from test_nng_and_zmq import check_a_fault_fails_the_client, check_streams_then_a_round_trip
from test_roundtrip import check_ok

from ipclab_peer.frame import END, HEADER_SIZE, REQUEST, STREAM_ACK, encode_header, encode_mark
from ipclab_peer.shutdown import Cleanup
from ipclab_peer.transport import endpoints, iceoryx2_samples

MECHANISMS = ("iceoryx2", "iceoryx2-spin")
MODES = {"iceoryx2": iceoryx2_samples.EVENT_WAIT, "iceoryx2-spin": iceoryx2_samples.SPIN}
LARGEST = 16 << 20
REJECTED = "ipclab-peer: rejected frame: "
NO_PID = 2 ** 22 + 17  # over pid_max: no live server's prefix


@pytest.fixture
def root(workdir):
    """A server's directory as the orchestrator makes one: empty, private."""
    path = Path(workdir) / "iceoryx2"
    path.mkdir(mode=0o700)
    return path


def shm_objects(pid):
    return sorted(Path("/dev/shm").glob(f"ipclab-{pid}-*"))


def library_files(root):
    """What the library has in the root besides its (empty) directories."""
    return [path for path in root.rglob("*") if not path.is_dir()]


@pytest.fixture
def umask_kept():
    """The transport sets the umask to 077 (4.12) for the process: this one's is put back."""
    mask = os.umask(0o077)
    os.umask(mask)
    yield
    os.umask(mask)


@pytest.fixture
def raw_client(umask_kept):
    """connect(endpoint): this test's own client link to a server, as the peer makes one."""
    links = []

    def connect(endpoint):
        config = SimpleNamespace(io_timeout=5, pattern="rr", request_size=64,
                                 sample_write="full")
        links.append(iceoryx2_samples.connect(endpoints.parse_iceoryx2(endpoint), config,
                                              iceoryx2_samples.EVENT_WAIT))
        return links[-1]
    yield connect
    for link in links:
        link.close()


@pytest.fixture
def own_server(root, umask_kept):
    """make(mode): a server's services made in this process as `serve` makes them, answering
    nothing unless the test does; removed (node, /dev/shm) at the end."""
    made = []

    def make(mode):
        made.append(iceoryx2_samples.listen(endpoints.Path(str(root)), None, Cleanup(), mode))
        return made[-1]
    yield make
    for samples in made:
        samples.remove()
        assert shm_objects(os.getpid()) == []


def test_capabilities_name_the_library_and_the_largest_payload():
    listed = json.loads(run_peer(["capabilities"]).stdout)["mechanisms"]
    for mechanism in MECHANISMS:
        assert listed[mechanism] == {"roles": ["serve", "drive"], "patterns": ["rr", "stream"],
                                     "max_payload": LARGEST,
                                     "library": f"iceoryx2 {version('iceoryx2')}"}


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_round_trips_up_to_the_largest_payload_and_nothing_is_left(mechanism, root, workdir):
    with Server(mechanism, str(root)) as server:
        pid = server.ready["pid"]
        assert server.endpoint == f"posix:/ipclab-{pid},{root}"
        made = shm_objects(pid)
        # Every object private, the node-global segment iceoryx2 makes 0666 too.
        assert made and {oct(path.stat().st_mode & 0o777) for path in made} == {"0o600"}
        assert library_files(root)  # the node's and the services' files in the root
        for size, iterations in ((0, 10), (16, 20), (65536, 10), (LARGEST, 2)):
            check_ok(Drive(workdir, mechanism, server.endpoint, size, size, iterations,
                           ["--warmup", "1"]), mechanism, size, size, iterations, warmup=1)
        assert_error(Drive(workdir, mechanism, server.endpoint, LARGEST + 1, 16, 1), 7,
                     "unsupported")
        assert server.stop() == 0
    assert server.drain_stderr() == []
    assert shm_objects(pid) == [] and library_files(root) == []


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_sample_write_header_writes_and_checks_the_header_alone(mechanism, root, workdir):
    """Both sides given it: round trips at 16 B and the largest payload; a client given it
    alone sends payloads the server finds corrupted, a server given it alone answers with
    payloads the client finds wrong."""
    header = ["--sample-write", "header"]
    with Server(mechanism, str(root), *header) as server:
        for size, iterations in ((16, 20), (LARGEST, 20)):
            check_ok(Drive(workdir, mechanism, server.endpoint, size, size, iterations,
                           header + ["--warmup", "1"]), mechanism, size, size, iterations,
                     warmup=1)
        assert_error(Drive(workdir, mechanism, server.endpoint, 64, 64, 3), 3,
                     "payload-mismatch")
        assert server.stop() == 0
        assert server.drain_stderr() == []
    with Server(mechanism, str(root)) as server:
        assert_error(Drive(workdir, mechanism, server.endpoint, 64, 64, 3, header), 3,
                     "payload-mismatch", samples=3)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_streams_past_the_buffer_then_round_trips(mechanism, root, workdir):
    check_streams_then_a_round_trip(mechanism, Server(mechanism, str(root)), workdir, 2000)


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("fault", ["flip-response-byte", "drop-stream-message",
                                   "flip-stream-byte"])
def test_faults_fail_the_client(mechanism, fault, root, workdir):
    check_a_fault_fails_the_client(mechanism, Server(mechanism, str(root), "--fault", fault),
                                   fault, workdir)


def test_rejected_frames_are_answered_empty_and_the_server_goes_on(root, workdir, raw_client):
    with Server("iceoryx2", str(root)) as server:
        link = raw_client(server.endpoint)
        answer = bytearray(HEADER_SIZE + STREAM_ACK.size)

        def ask(frame):
            link.send_all(frame)
            return bytes(answer[:link.recv_frame(answer)])

        for bad in (bytes(10), encode_header(REQUEST, 0, 100, 0) + bytes(10), b"IPCX" + bytes(20),
                    encode_header(REQUEST, 0, 0, LARGEST + 1)):
            assert ask(bad) == b""
        assert len(ask(encode_mark(0, 32, 2))) == HEADER_SIZE
        link.send_all(bytes(31))  # where 32 bytes are due: the rest of the count is given up
        ack = ask(encode_header(END, 3, 0, 0))
        assert STREAM_ACK.unpack_from(ack, HEADER_SIZE)[0] == 0  # received
        link.close()
        check_ok(Drive(workdir, "iceoryx2", server.endpoint, 16, 16, 5), "iceoryx2", 16, 16, 5)
        assert server.stop() == 0
        assert server.drain_stderr() == [REJECTED + reason for reason in (
            "truncated header", "length mismatch", "bad magic", "length too large",
            "length mismatch")]


def test_clients_one_after_another_one_left_amid_a_stream_one_killed(root, workdir, raw_client):
    with Server("iceoryx2", str(root)) as server:
        check_ok(Drive(workdir, "iceoryx2", server.endpoint, 16, 16, 5), "iceoryx2", 16, 16, 5)
        left = raw_client(server.endpoint)
        left.send_all(encode_mark(0, 64, 1000))
        assert left.recv_frame(bytearray(HEADER_SIZE)) == HEADER_SIZE
        for _ in range(10):
            left.send_all(bytes(64))
        left.close()  # 990 messages short: the next client's frames are still frames
        check_ok(Drive(workdir, "iceoryx2", server.endpoint, 100, 200, 5), "iceoryx2", 100, 200,
                 5)
        killed = start_peer(["drive", "--mechanism", "iceoryx2", "--endpoint", server.endpoint,
                             "--request-size", "16", "--response-size", "16",
                             "--iterations", "10000000", "--samples-file", f"{workdir}/k.bin",
                             "--result-file", f"{workdir}/k.json"],
                            subprocess.DEVNULL, subprocess.DEVNULL, subprocess.DEVNULL)
        time.sleep(1)
        assert killed.poll() is None
        killed.kill()
        killed.wait()
        # The next node's creation cleans the dead one's ports up (the library's own doing).
        run = Stream(workdir, "iceoryx2", server.endpoint, 1000, 100)
        assert run.returncode == 0, describe(run)
        check_ok(Drive(workdir, "iceoryx2", server.endpoint, 16, 16, 5), "iceoryx2", 16, 16, 5)
        assert server.stop() == 0
        assert server.drain_stderr() == []


@pytest.mark.parametrize("mechanism,how", [("iceoryx2", "SIGTERM"), ("iceoryx2", "SIGINT"),
                                           ("iceoryx2", "stdin EOF"),
                                           ("iceoryx2-spin", "SIGTERM")])
def test_shutdown_drops_the_node_and_removes_the_shared_memory(mechanism, how, root, workdir):
    server = Server(mechanism, str(root))
    pid = server.ready["pid"]
    try:
        check_ok(Drive(workdir, mechanism, server.endpoint, 10, 10, 2), mechanism, 10, 10, 2)
        assert server.shut_down(how) == 0
    finally:
        server.stop()
    assert server.drain_stderr() == []
    assert shm_objects(pid) == [] and library_files(root) == []


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_client_nobody_answers_times_out(mechanism, own_server, workdir):
    silent = own_server(MODES[mechanism])
    started = time.monotonic()
    assert_error(Drive(workdir, mechanism, silent.endpoint, 16, 16, 1, ["--io-timeout", "0.5"]),
                 6, "timeout")
    assert time.monotonic() - started < 10


def test_an_empty_answer_is_a_protocol_error(own_server, workdir):
    server = own_server(iceoryx2_samples.EVENT_WAIT)

    def answer_empty():
        assert server.next() is not None
        server.release()
        server.send(b"")

    thread = threading.Thread(target=answer_empty)
    thread.start()
    run = Drive(workdir, "iceoryx2", server.endpoint, 16, 16, 1, ["--io-timeout", "5"])
    thread.join(10)
    assert_error(run, 4, "protocol")


def test_short_load_burst_and_bad_endpoints_are_refused(root, workdir):
    endpoint = f"posix:/ipclab-{NO_PID},{root}"
    assert_error(Drive(workdir, "iceoryx2", endpoint, 16, 16, 1, ["--pattern", "short"]), 7,
                 "unsupported")
    for extra in (["--pattern", "load", "--server-model", "iterative"],
                  ["--server-model", "iterative", "--connections", "1", "--phases-file",
                   f"{workdir}/phases"]):
        refused = run_peer(["serve", "--mechanism", "iceoryx2", "--endpoint", str(root), *extra])
        assert refused.returncode == 7, refused.stderr
    for bad in (str(root), f"posix:/ipclab-{NO_PID}", f"posix:/other-1,{root}"):
        assert Drive(workdir, "iceoryx2", bad, 16, 16, 1).returncode == 2, bad
    # --sample-write header: rr over iceoryx2 alone.
    header = ["--sample-write", "header"]
    assert_error(Stream(workdir, "iceoryx2", endpoint, 64, 10, header), 7, "unsupported")
    assert_error(Drive(workdir, "tcp", "127.0.0.1:9", 16, 16, 1, header), 7, "unsupported")
    tcp = run_peer(["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", *header])
    assert tcp.returncode == 7 and "--sample-write header" in tcp.stderr, tcp.stderr
    missing = run_peer(["serve", "--mechanism", "iceoryx2", "--endpoint", str(root / "none")])
    assert missing.returncode == 5 and "not a directory" in missing.stderr, missing.stderr
    # No server there: its services do not exist, an io error at once. The client's node made
    # the prefix's node-global segment (what a server would remove): removed here.
    try:
        assert_error(Drive(workdir, "iceoryx2", endpoint, 16, 16, 1), 5, "io")
    finally:
        for path in shm_objects(NO_PID):
            path.unlink()
