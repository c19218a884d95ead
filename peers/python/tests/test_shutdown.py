"""Server shutdown: SIGTERM, SIGINT and end of stdin remove what it created and exit 0."""
import os
import signal
import socket
import stat
import time

import pytest
from peers import Server, run_peer

from ipclab_peer import frame


def fifo_dir(workdir):
    path = os.path.join(workdir, "fifo")
    os.mkdir(path, 0o700)
    return path


def created_paths(mechanism, endpoint):
    if mechanism == "uds":
        return [endpoint]
    return [os.path.join(endpoint, "req"), os.path.join(endpoint, "resp")]


def start(mechanism, workdir):
    endpoint = os.path.join(workdir, "peer.sock") if mechanism == "uds" else fifo_dir(workdir)
    server = Server(mechanism, endpoint)
    paths = created_paths(mechanism, endpoint)
    for path in paths:
        mode = os.stat(path).st_mode
        assert stat.S_IMODE(mode) == 0o600
        assert stat.S_ISSOCK(mode) if mechanism == "uds" else stat.S_ISFIFO(mode)
    return server, paths


def wait_exit(server):
    try:
        return server.proc.wait(5)
    finally:
        server.stop()


@pytest.mark.parametrize("mechanism", ["uds", "fifo"])
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "stdin EOF"])
def test_shutdown_while_waiting_for_a_client(mechanism, how, workdir):
    """The server is blocked in accept() (uds) or open() (fifo) when told to stop."""
    server, paths = start(mechanism, workdir)
    try:
        assert server.shut_down(how) == 0
    finally:
        server.stop()
    assert [path for path in paths if os.path.exists(path)] == []
    assert server.drain_stderr() == []


def test_shutdown_while_a_client_is_connected(workdir):
    server = Server("tcp", "127.0.0.1:0")
    host, port = server.endpoint.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as client:
        client.sendall(frame.encode_header(frame.REQUEST, 0, 100, 0) + bytes(10))
        time.sleep(0.1)  # let the server block inside the payload read
        server.proc.send_signal(signal.SIGTERM)
        assert wait_exit(server) == 0
        assert client.recv(10) == b""


@pytest.mark.parametrize("mechanism", ["uds", "fifo"])
def test_existing_path_is_an_io_error_and_left_alone(mechanism, workdir):
    endpoint = os.path.join(workdir, "taken") if mechanism == "uds" else fifo_dir(workdir)
    taken = endpoint if mechanism == "uds" else os.path.join(endpoint, "resp")
    with open(taken, "w") as existing:
        existing.write("not ours")
    run = run_peer(["serve", "--mechanism", mechanism, "--endpoint", endpoint])
    assert run.returncode == 5, run.stderr
    assert run.stdout == ""
    assert run.stderr.startswith("ipclab-peer: io: ") and run.stderr.count("\n") == 1
    with open(taken) as existing:
        assert existing.read() == "not ours"
    assert sorted(os.listdir(os.path.dirname(taken))) == [os.path.basename(taken)]
