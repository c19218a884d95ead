"""Server side: one listener per mechanism.

Every listener has `endpoint` (the READY string) and `close()`. Stream listeners have
`accept()` -> link (blocking until a client arrives) and `single_client` (pipe: the one
inherited client is all there will ever be). The udp listener exposes its bound socket.
"""
import errno
import os
import socket

from ..errors import IoError
from . import endpoints
from .links import FdStream, SocketStream

BACKLOG = 16


def listen(mechanism, endpoint, cleanup):
    """Creates the server endpoint; files it creates are registered with `cleanup`."""
    return _LISTENERS[mechanism](endpoints.parse(mechanism, endpoint), cleanup)


def _bound_address(sock):
    host, port = sock.getsockname()[:2]
    return endpoints.format_host_port(host, port)


def _address_info(address, kind):
    host, port = address
    return socket.getaddrinfo(host, port, type=kind, flags=socket.AI_PASSIVE)[0]


class TcpListener:
    single_client = False

    def __init__(self, address, cleanup):
        family, _, _, _, sockaddr = _address_info(address, socket.SOCK_STREAM)
        self.sock = socket.create_server(sockaddr, family=family, backlog=BACKLOG)
        self.endpoint = _bound_address(self.sock)

    def accept(self):
        conn, _ = self.sock.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return SocketStream(conn)

    def close(self):
        self.sock.close()


class UdsListener:
    single_client = False

    def __init__(self, path, cleanup):
        self.endpoint = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with cleanup.creating() as created:
                _bind_private(self.sock, path)
                created(path)
            self.sock.listen(BACKLOG)
        except BaseException:
            self.sock.close()
            raise

    def accept(self):
        conn, _ = self.sock.accept()
        return SocketStream(conn)

    def close(self):
        self.sock.close()


def _bind_private(sock, path):
    """bind() creates the socket file with the umask's mode, so narrow the umask to get 0600
    without a window in which the file is more open; bind() also refuses an existing path."""
    previous = os.umask(0o177)
    try:
        sock.bind(path)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise IoError(f"{path}: path exists") from None
        raise
    finally:
        os.umask(previous)


class FifoListener:
    single_client = False

    def __init__(self, directory, cleanup):
        self.endpoint = directory
        self.request_path = os.path.join(directory, "req")
        self.response_path = os.path.join(directory, "resp")
        with cleanup.creating() as created:
            for path in (self.request_path, self.response_path):
                _make_fifo(path)
                created(path)

    def accept(self):
        # The contract's order (req for reading, then resp for writing) matches the client's.
        read_fd = os.open(self.request_path, os.O_RDONLY)
        try:
            write_fd = os.open(self.response_path, os.O_WRONLY)
        except BaseException:
            os.close(read_fd)
            raise
        return FdStream(read_fd, write_fd)

    def close(self):
        pass


def _make_fifo(path):
    try:
        os.mkfifo(path, 0o600)
    except FileExistsError:
        raise IoError(f"{path}: path exists") from None
    os.chmod(path, 0o600)


class PipeListener:
    single_client = True

    def __init__(self, fds, cleanup):
        self.read_fd, self.write_fd = fds
        self.endpoint = f"fd:{self.read_fd},{self.write_fd}"
        for fd in fds:
            os.fstat(fd)

    def accept(self):
        return FdStream(self.read_fd, self.write_fd)

    def close(self):
        pass


class UdpListener:
    def __init__(self, address, cleanup):
        family, kind, proto, _, sockaddr = _address_info(address, socket.SOCK_DGRAM)
        self.sock = socket.socket(family, kind, proto)
        try:
            self.sock.bind(sockaddr)
        except BaseException:
            self.sock.close()
            raise
        self.endpoint = _bound_address(self.sock)

    def close(self):
        self.sock.close()


_LISTENERS = {"tcp": TcpListener, "udp": UdpListener, "uds": UdsListener,
              "pipe": PipeListener, "fifo": FifoListener}
assert set(_LISTENERS) == set(endpoints.MECHANISMS)
