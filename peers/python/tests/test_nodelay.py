"""--nodelay on|off (PROTOCOL.md 1, 10.3): TCP_NODELAY on the peer's own sockets, looked at
from outside (a server's accepted socket through pidfd_getfd, a client's in this process);
off works end to end on tcp and rest and is unsupported elsewhere (grpc: grpcio sets it
itself)."""
import ctypes
import http.client
import os
import socket
import time
import types

import pytest
from peers import Drive, Server, Stream, run_peer, serving
from test_roundtrip import check_ok

from ipclab_peer.rpc import rest
from ipclab_peer.transport import connect, endpoints

SYS_PIDFD_GETFD = 438  # x86-64
_libc = ctypes.CDLL(None, use_errno=True)


def _fds(pid):
    """Duplicates of the socket descriptors of process `pid` (this process included)."""
    pidfd = os.pidfd_open(pid)
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    continue
            except OSError:
                continue
            fd = _libc.syscall(SYS_PIDFD_GETFD, pidfd, int(name), 0)
            if fd >= 0:
                yield fd
    finally:
        os.close(pidfd)


def no_delay_towards(pid, peer):
    """TCP_NODELAY of process `pid`'s connected tcp socket whose peer is `peer` (waiting a
    little for a server to accept it)."""
    for _ in range(100):
        found = _no_delay_towards(pid, peer)
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no socket of {pid} is connected to {peer}")


def _no_delay_towards(pid, peer):
    for fd in _fds(pid):
        with socket.socket(fileno=fd) as sock:
            if sock.family != socket.AF_INET or sock.type != socket.SOCK_STREAM:
                continue
            try:
                if sock.getpeername() != peer:
                    continue
            except OSError:
                continue
            return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    return None


def address(endpoint):
    host, port = endpoint.rsplit(":", 1)
    return host, int(port)


@pytest.mark.parametrize("nodelay", ["on", "off"])
def test_tcp_server_sets_nodelay_as_told(nodelay, workdir):
    with serving("tcp", workdir, "--nodelay", nodelay) as case:
        with socket.create_connection(address(case.endpoint), timeout=10) as sock:
            assert no_delay_towards(case.server.proc.pid, sock.getsockname()) == \
                (nodelay == "on")


@pytest.mark.parametrize("nodelay", ["on", "off"])
def test_tcp_client_sets_nodelay_as_told(nodelay):
    options = types.SimpleNamespace(io_timeout=5, nodelay=nodelay)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        endpoint = endpoints.HostPort("127.0.0.1", listener.getsockname()[1])
        for link in (connect.tcp(endpoint, options),
                     connect.tcp_from_source(endpoint, options, 7).connect()):
            listener.accept()[0].close()
            assert link.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == \
                (nodelay == "on")
            link.close()


@pytest.mark.parametrize("nodelay", ["on", "off"])
def test_rest_server_sets_nodelay_as_told(nodelay):
    with Server("rest", "127.0.0.1:0", "--nodelay", nodelay) as server:
        conn = http.client.HTTPConnection(*address(server.endpoint), timeout=10)
        try:
            conn.request("POST", "/finish", body=b"")
            assert conn.getresponse().read() == b'{"corrupted":0}'
            assert no_delay_towards(server.proc.pid, conn.sock.getsockname()) == \
                (nodelay == "on")
        finally:
            conn.close()


@pytest.mark.parametrize("nodelay", ["on", "off"])
def test_rest_client_sets_nodelay_as_told(nodelay):
    options = types.SimpleNamespace(io_timeout=10, nodelay=nodelay, pattern="rr",
                                    http_client=None, rest_body="octet")
    with Server("rest", "127.0.0.1:0") as server:
        client = rest.Client(endpoints.parse_host_port(server.endpoint), options)
        try:
            assert no_delay_towards(os.getpid(), address(server.endpoint)) == \
                (nodelay == "on")
        finally:
            client.close()


@pytest.mark.parametrize("mechanism,pattern", [("tcp", "rr"), ("tcp", "short"),
                                               ("rest", "rr"), ("rest", "short")])
def test_nodelay_off_round_trips(mechanism, pattern, workdir):
    with serving(mechanism, workdir, "--nodelay", "off") as case:
        run = Drive(workdir, mechanism, case.endpoint, 3000, 5000, iterations=5,
                    extra=["--nodelay", "off", "--pattern", pattern])
        check_ok(run, mechanism, 3000, 5000, 5, pattern=pattern)


def test_nodelay_off_stream(workdir):
    with serving("tcp", workdir, "--nodelay", "off") as case:
        run = Stream(workdir, "tcp", case.endpoint, 100, 1000, extra=["--nodelay", "off"])
        assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("mechanism", ["grpc", "uds", "udp", "sysv-mq", "thrift-binary",
                                       "ice", "corba"])
def test_serve_nodelay_off_elsewhere_is_unsupported(mechanism, workdir):
    endpoint = {"uds": os.path.join(workdir, "s"), "sysv-mq": "auto"}.get(mechanism,
                                                                          "127.0.0.1:0")
    proc = run_peer(["serve", "--mechanism", mechanism, "--endpoint", endpoint,
                     "--nodelay", "off"])
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout == "" and "--nodelay off is not supported" in proc.stderr
    if mechanism == "grpc":
        assert "grpcio" in proc.stderr


@pytest.mark.parametrize("mechanism", ["grpc", "uds", "thrift-compact", "ice"])
def test_drive_nodelay_off_elsewhere_is_unsupported(mechanism, workdir):
    endpoint = os.path.join(workdir, "s") if mechanism == "uds" else "127.0.0.1:1"
    run = Drive(workdir, mechanism, endpoint, 16, 16, extra=["--nodelay", "off"])
    assert run.returncode == 7, run.stderr
    assert run.result["error_kind"] == "unsupported"


def test_nodelay_on_is_accepted_everywhere(workdir):
    with serving("uds", workdir, "--nodelay", "on") as case:
        run = Drive(workdir, "uds", case.endpoint, 16, 16, extra=["--nodelay", "on"])
        check_ok(run, "uds", 16, 16, 5)
