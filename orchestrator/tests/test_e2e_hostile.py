"""End-to-end: peers under hostile input over their own transports. Malformed frames are
rejected with the contract's reason while the server keeps serving; a header or an HTTP body
claiming 128 MiB costs a server no memory ahead of the bytes that arrived, in every language,
on round-trip servers and on each burst model's own reader."""
import socket
import subprocess
import time
from pathlib import Path

import pytest

from ipclab.execute.peers import Peer
from ipclab.execute.probe import load_catalog
from test_e2e import LANGS, REF, VECTORS, seed  # noqa: F401 (seed: a fixture)

pytestmark = pytest.mark.e2e

@pytest.mark.parametrize("server", LANGS)
def test_malformed_frames_are_rejected_and_the_server_keeps_serving(server, tmp_path, seed):
    catalog = load_catalog()
    argv = catalog.languages[server].argv(catalog.root)
    peer = Peer("server", [*argv, "serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                           "--seed", str(seed)], tmp_path).start()
    try:
        host, port = peer.wait_ready(30)["endpoint"].rsplit(":", 1)
        rss_before = rss_kib(peer.pid)
        for vector in VECTORS["malformed"]:
            with socket.create_connection((host, int(port)), timeout=30) as conn:
                conn.sendall(bytes.fromhex(vector["hex"]))
                conn.shutdown(socket.SHUT_WR)
                assert conn.recv(1) == b"", f"{vector['name']}: the server answered"
            assert not peer.exited(), f"{vector['name']}: the server died"
        assert rss_kib(peer.pid) - rss_before < 64 * 1024, "the server allocated a claimed size"
        # The server serves one connection at a time, so once this client is served every
        # rejection before it has been reported.
        client = subprocess.run([*catalog.languages["cpp"].argv(catalog.root), "drive",
                                 "--mechanism", "tcp", "--endpoint", f"{host}:{port}",
                                 "--request-size", "16", "--response-size", "16",
                                 "--iterations", "10", "--seed", str(seed),
                                 "--samples-file", str(tmp_path / "s"),
                                 "--result-file", str(tmp_path / "r.json")], timeout=60)
        assert client.returncode == 0
        stderr = peer.stderr_path.read_text()
        for vector in VECTORS["malformed"]:
            assert f"rejected frame: {vector['reason']}" in stderr, vector["name"]
    finally:
        peer.stop()
    assert peer.returncode == 0


def claim(length):
    """A REQUEST header claiming `length` payload bytes."""
    return REF.header(1, 0, length, 16)


@pytest.mark.parametrize("server,mechanism,model", [
    *((lang, m, None) for lang in LANGS for m in ("tcp", "uds")),
    # the burst servers' own readers: blocking threads, an event loop, io_uring, NIO, asyncio
    ("cpp", "tcp", "thread"), ("cpp", "tcp", "epoll"), ("cpp", "tcp", "io_uring"),
    ("java", "tcp", "thread"), ("java", "tcp", "nio"), ("python", "tcp", "thread"),
    ("python", "tcp", "asyncio")])
def test_headers_claiming_128_mib_cost_the_server_nothing_ahead_of_their_bytes(
        server, mechanism, model, tmp_path, seed):
    """Memory follows the bytes that arrived: 100 connections, each a REQUEST header claiming
    the largest payload, 1000 bytes of it and then silence, raise the server's resident memory
    by under 16 MiB. A round-trip server reads one connection at a time; a burst server reads
    all at once, so it first holds 100 such connections claiming 1 MiB (more than any first
    buffer): its tasks and JIT, the code that grows a buffer included, are then in place. A
    connection of its own costs a burst server its first buffer and, in the thread model, a
    thread (stack, allocation buffer: 60-170 KiB, more when the machine is busy), whatever it
    claims, so what counts is how much more 100 claims of 128 MiB cost than 100 more of 1 MiB."""
    catalog = load_catalog()
    endpoint = "127.0.0.1:0" if mechanism == "tcp" else str(tmp_path / "s.sock")
    burst = ["--server-model", model, "--connections", "300", "--phases-file",
             str(tmp_path / "phases.csv")] if model else []
    peer = Peer("server", [*fixed_heap(catalog.languages[server].argv(catalog.root)), "serve",
                           "--mechanism", mechanism, "--endpoint", endpoint, "--seed", str(seed),
                           *burst], tmp_path).start()

    def opener():
        ready = peer.wait_ready(30)["endpoint"]
        if mechanism == "tcp":
            host, port = ready.rsplit(":", 1)
            return lambda length: socket.create_connection((host, int(port)), timeout=30), \
                lambda length: claim(length) + bytes(1000)
        def unix(length):
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(ready)
            return conn
        return unix, lambda length: claim(length) + bytes(1000)
    grown = claims_cost(peer, opener, 1 << 20 if model else None, settle=0.5)
    assert grown < 16 * 1024, f"{grown} KiB more after 100 claims of 128 MiB"
    assert peer.returncode == 0


def fixed_heap(argv):
    """A JVM's argv with its heap fixed and touched at start: the heap's pages then count in
    the resident memory before the measure, and what the collector's young space touches as it
    fills (up to 17 MiB between two measures on a busy machine) no longer counts as the claims'
    cost. Any allocation of a claimed size still shows: off the heap (direct buffers, which are
    zeroed) as resident memory, on it as an OutOfMemoryError that ends the server."""
    if Path(argv[0]).name != "java":
        return argv
    return [argv[0], "-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch", *argv[1:]]


def claims_cost(peer, opener, warm_length, settle, close_warm=False):
    """KiB the server's resident memory grows by while 100 connections each hold a claim of
    128 MiB and 1000 bytes of it. `opener()` (once READY) gives (connect(length), the bytes a
    connection sends for a claim of length); first 100 connections claim `warm_length` (None:
    none), closed before the measure where `close_warm`, else held, and then 100 more claiming
    as much are the baseline the claims' growth is taken against. Closes everything, stops the
    server."""
    held = []

    def hundred(length):
        rss_before = rss_kib(peer.pid)
        for _ in range(100):
            conn = connect(length)
            held.append(conn)
            conn.sendall(request(length))
        time.sleep(settle)
        assert not peer.exited(), peer.stderr_path.read_text()
        return rss_kib(peer.pid) - rss_before
    try:
        connect, request = opener()
        if warm_length:
            hundred(warm_length)
        if close_warm:
            while held:
                held.pop().close()
            time.sleep(settle)
        baseline = hundred(warm_length) if warm_length and not close_warm else 0
        return hundred(128 << 20) - max(baseline, 0)
    finally:
        for conn in held:
            conn.close()
        peer.stop()


@pytest.mark.parametrize("server", LANGS)
def test_rest_bodies_claiming_128_mib_cost_the_server_nothing_ahead_of_their_bytes(
        server, tmp_path, seed):
    """The same over an RPC framework's own transport that takes raw bytes (REST: HTTP/1.1, a
    Content-Length the body never reaches): 100 connections each POST a call whose body claims
    128 MiB, send 1000 bytes of it and fall silent. Before that, 100 such requests claiming 2000
    B come and go, so the server's threads and pools exist; what follows is the claims' cost."""
    catalog = load_catalog()
    peer = Peer("server", [*catalog.languages[server].argv(catalog.root), "serve", "--mechanism",
                           "rest", "--endpoint", "127.0.0.1:0", "--seed", str(seed)],
                tmp_path).start()

    seqs = iter(range(10**6))

    def opener():
        host, port = peer.wait_ready(30)["endpoint"].rsplit(":", 1)
        return (lambda length: socket.create_connection((host, int(port)), timeout=30),
                lambda length: (f"POST /call/{next(seqs)}?wanted=16 HTTP/1.1\r\nHost: {host}\r\n"
                                f"Content-Type: application/octet-stream\r\n"
                                f"Content-Length: {length}\r\n\r\n").encode() + bytes(1000))
    grown = claims_cost(peer, opener, 2000, settle=1.0, close_warm=True)
    assert grown < 16 * 1024, f"{grown} KiB more after 100 bodies claiming 128 MiB"
    assert peer.returncode == 0


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")
