"""Client side: one connector per mechanism, each returning a link (see links.py)."""
import os
import socket

from . import endpoints
from .links import Datagram, FdStream, SocketStream, set_receive_timeout


def connect(mechanism, endpoint, io_timeout):
    """Opens the client's link; OSError propagates for the caller to report as io."""
    return _CONNECTORS[mechanism](endpoints.parse(mechanism, endpoint), io_timeout)


def _tcp(address, timeout):
    sock = socket.create_connection(address)
    return _configured(sock, timeout, SocketStream, nodelay=True)


def _udp(address, timeout):
    family, kind, proto, _, sockaddr = socket.getaddrinfo(*address, type=socket.SOCK_DGRAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.connect(sockaddr)
    except BaseException:
        sock.close()
        raise
    return _configured(sock, timeout, Datagram)


def _uds(path, timeout):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except BaseException:
        sock.close()
        raise
    return _configured(sock, timeout, SocketStream)


def _configured(sock, timeout, link_class, nodelay=False):
    try:
        if nodelay:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        set_receive_timeout(sock, timeout)
    except BaseException:
        sock.close()
        raise
    return link_class(sock, timeout)


def _pipe(fds, timeout):
    # --io-timeout is not applied: a pipe has no SO_RCVTIMEO, and a poll() before every read
    # would add a system call to each measured round trip.
    read_fd, write_fd = fds
    return FdStream(read_fd, write_fd)


def _fifo(directory, timeout):
    # Same order as the server (req, then resp), or both would block in open() forever.
    write_fd = os.open(os.path.join(directory, "req"), os.O_WRONLY)
    try:
        read_fd = os.open(os.path.join(directory, "resp"), os.O_RDONLY)
    except BaseException:
        os.close(write_fd)
        raise
    return FdStream(read_fd, write_fd)


_CONNECTORS = {"tcp": _tcp, "udp": _udp, "uds": _uds, "pipe": _pipe, "fifo": _fifo}
assert set(_CONNECTORS) == set(endpoints.MECHANISMS)
