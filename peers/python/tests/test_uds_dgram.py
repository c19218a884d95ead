"""uds-dgram (PROTOCOL.md 4.5): the socket files both sides create and remove, the kernel's
limit, and what the client makes of wrong datagrams. Round trips and the server's rejections
are in test_roundtrip.py and test_server.py with the other mechanisms."""
import os
import socket
import stat
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from peers import Drive, Server, describe, run_peer
from test_client import assert_error, response

from ipclab_peer.errors import IoError
from ipclab_peer.frame import HEADER_SIZE
from ipclab_peer.transport import datagram, endpoints

LIMIT = datagram.uds_dgram_max_payload()


def leftovers(directory, keep=()):
    return sorted(set(os.listdir(directory)) - set(keep))


def test_the_limit_follows_the_send_buffer():
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as probe:
        sndbuf = datagram.raise_buffers(probe)
    assert LIMIT == min(sndbuf - 32, 4194304) - HEADER_SIZE
    capabilities = run_peer(["capabilities"])
    assert f'"uds-dgram": {{"roles": ["serve", "drive"], "patterns": ["rr", "stream"], ' \
           f'"max_payload": {LIMIT}}}' in capabilities.stdout


def test_server_socket_is_private_and_removed_at_exit(workdir):
    path = Path(workdir) / "peer.sock"
    server = Server("uds-dgram", str(path))
    try:
        assert server.endpoint == str(path)
        mode = path.stat().st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    finally:
        assert server.stop() == 0
    assert not path.exists()


def test_server_refuses_an_existing_path(workdir):
    path = Path(workdir) / "peer.sock"
    path.write_bytes(b"")
    proc = run_peer(["serve", "--mechanism", "uds-dgram", "--endpoint", str(path)])
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout == "" and "path exists" in proc.stderr
    assert path.exists()


@pytest.mark.parametrize("sizes", [(LIMIT + 1, 16), (16, LIMIT + 1)])
def test_sizes_over_the_limit_are_unsupported(sizes, workdir):
    run = Drive(workdir, "uds-dgram", os.path.join(workdir, "peer.sock"), *sizes)
    assert_error(run, 7, "unsupported")
    assert leftovers(workdir, keep=("samples.bin", "result.json")) == []


def test_client_path_is_private_and_removed_on_close(workdir):
    server_path = os.path.join(workdir, "peer.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(server_path)
        link = datagram.connect_uds(endpoints.Path(server_path),
                                    SimpleNamespace(io_timeout=1.0))
        own = f"{server_path}.{os.getpid()}"
        try:
            assert stat.S_IMODE(os.stat(own).st_mode) == 0o600
            assert link.capacity == HEADER_SIZE + LIMIT
        finally:
            link.close()
        assert not os.path.exists(own)


def test_client_refuses_an_existing_path_of_its_own(workdir):
    server_path = os.path.join(workdir, "peer.sock")
    own = Path(f"{server_path}.{os.getpid()}")
    own.write_bytes(b"")
    with pytest.raises(IoError, match="path exists"):
        datagram.connect_uds(endpoints.Path(server_path), SimpleNamespace(io_timeout=1.0))
    assert own.exists()


def test_missing_server_is_an_io_error_and_leaves_no_file(workdir):
    run = Drive(workdir, "uds-dgram", os.path.join(workdir, "none.sock"), 16, 16)
    assert_error(run, 5, "io")
    assert leftovers(workdir, keep=("samples.bin", "result.json")) == []


def fake_server(path, answer):
    """A uds-dgram socket at `path` that answers each request with answer(request) (None:
    stays silent), in a thread, until the client is done."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    datagram.raise_buffers(sock)
    sock.settimeout(10)

    def serve():
        try:
            request, client = sock.recvfrom(65536)
            reply = answer(request)
            if reply is not None:
                sock.sendto(reply, client)
        except OSError:
            pass
    thread = threading.Thread(target=serve)
    thread.start()
    return sock, thread


@pytest.mark.parametrize("extra", [1, LIMIT])
def test_a_longer_datagram_is_seen_whole(extra, workdir):
    """MSG_TRUNC: even a response longer than the client's buffer shows its real size."""
    path = os.path.join(workdir, "peer.sock")
    sock, thread = fake_server(path, lambda request: response(0, 16, 16) + bytes(extra))
    with sock:
        run = Drive(workdir, "uds-dgram", path, 16, 16, extra=["--io-timeout", "5"])
        thread.join()
    assert_error(run, 4, "protocol")
    assert f"a frame of {HEADER_SIZE + 16 + extra} bytes instead of 40" in run.stderr
    assert leftovers(workdir, keep=("peer.sock", "samples.bin", "result.json")) == []


def test_silent_server_is_a_timeout_and_the_client_removes_its_path(workdir):
    path = os.path.join(workdir, "peer.sock")
    sock, thread = fake_server(path, lambda request: None)
    with sock:
        run = Drive(workdir, "uds-dgram", path, 16, 16, extra=["--io-timeout", "0.3"])
        thread.join()
    assert_error(run, 6, "timeout")
    assert leftovers(workdir, keep=("peer.sock", "samples.bin", "result.json")) == [], \
        describe(run)
