"""Datagram sockets, one frame per datagram: udp (PROTOCOL.md section 4) and uds-dgram (4.5).

Both sides receive with MSG_TRUNC, so recv returns a datagram's real size even when it did not
fit the buffer: an oversized datagram is seen as such, never silently cut.
"""
import errno
import functools
import os
import socket

from ..errors import ReceiveTimeout
from ..frame import HEADER_SIZE
from .endpoints import format_host_port
from .sockets import bind_private, closing_on_error, set_receive_timeout

UDP_MAX_DATAGRAM = 65507  # over IPv4; a stream message may use all of it (PROTOCOL.md 11.1)
UDP_MAX_PAYLOAD = UDP_MAX_DATAGRAM - HEADER_SIZE  # 65483
# A udp client sends MARK and END again after this long without an answer (PROTOCOL.md 11.1).
UDP_RESEND_SECONDS = 0.1
# Larger than any udp datagram (65507 over IPv4).
UDP_CAPACITY = 65536
INT_MAX = 2**31 - 1
# Linux refuses a Unix datagram over SO_SNDBUF - 32 bytes, and cannot allocate one much over
# 4 MiB (ENOBUFS): PROTOCOL.md 4.5.
UDS_SNDBUF_OVERHEAD = 32
UDS_LARGEST_DATAGRAM = 4194304
SIZE_ERRORS = {errno.EMSGSIZE, errno.ENOBUFS}


def raise_buffers(sock):
    """SO_SNDBUF and SO_RCVBUF as large as the system allows (it caps INT_MAX at
    net.core.wmem_max / rmem_max, doubled); returns SO_SNDBUF as read back."""
    for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        sock.setsockopt(socket.SOL_SOCKET, option, INT_MAX)
    return sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)


@functools.cache
def uds_dgram_max_payload():
    """This machine's largest uds-dgram payload, measured on a probe socket (PROTOCOL.md 4.5)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as probe:
        sndbuf = raise_buffers(probe)
    return min(sndbuf - UDS_SNDBUF_OVERHEAD, UDS_LARGEST_DATAGRAM) - HEADER_SIZE


def uds_dgram_max_datagram():
    """D of PROTOCOL.md 4.5: this machine's largest uds-dgram datagram, so its largest stream
    message."""
    return uds_dgram_max_payload() + HEADER_SIZE


def udp_max_payload():
    return UDP_MAX_PAYLOAD


def udp_max_datagram():
    return UDP_MAX_DATAGRAM


class Datagram:
    """A client's datagram socket connected to its server: send_all sends one datagram,
    recv_frame(view) receives one and returns its real size (which may exceed len(view)).
    `resend`: seconds after which a lost request is sent again (udp), None where nothing is
    lost (uds-dgram)."""

    def __init__(self, sock, timeout, capacity, own_path=None, resend=None):
        self.sock = sock
        self.timeout = timeout
        self.capacity = capacity
        self.resend = resend
        self.send_all = sock.send
        self._recv_into = sock.recv_into
        self._own_path = own_path

    def set_timeout(self, seconds):
        """How long the next receives wait (SO_RCVTIMEO)."""
        set_receive_timeout(self.sock, seconds)
        self.timeout = seconds

    def recv_frame(self, view):
        try:
            return self._recv_into(view, 0, socket.MSG_TRUNC)
        except BlockingIOError:
            raise ReceiveTimeout(f"no datagram within {self.timeout:g} s") from None

    def close(self):
        self.sock.close()
        if self._own_path is not None:
            _remove(self._own_path)


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def size_error(err, size):
    """For a send the kernel refused as too large (EMSGSIZE, ENOBUFS): the same error with a
    message naming the size; else None."""
    if err.errno in SIZE_ERRORS:
        return OSError(err.errno, f"cannot send a datagram of {size} bytes: "
                                  f"{os.strerror(err.errno)}")
    return None


# ---- client ------------------------------------------------------------------------------


def connect_udp(endpoint, options):
    family, kind, proto, _, sockaddr = socket.getaddrinfo(
        endpoint.host, endpoint.port, type=socket.SOCK_DGRAM)[0]
    sock = socket.socket(family, kind, proto)
    with closing_on_error(sock):
        sock.connect(sockaddr)
        set_receive_timeout(sock, options.io_timeout)
    return Datagram(sock, options.io_timeout, UDP_CAPACITY, resend=UDP_RESEND_SECONDS)


def connect_uds(endpoint, options):
    """Binds PATH.<pid> (0600) so the server can answer, connects to the server's path; the
    link removes its own path when closed."""
    own_path = f"{endpoint.path}.{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    with closing_on_error(sock):
        bind_private(sock, own_path)
    try:
        raise_buffers(sock)
        sock.connect(endpoint.path)
        set_receive_timeout(sock, options.io_timeout)
    except BaseException:
        sock.close()
        _remove(own_path)
        raise
    return Datagram(sock, options.io_timeout, HEADER_SIZE + uds_dgram_max_payload(), own_path)


# ---- server ------------------------------------------------------------------------------


class DatagramListener:
    """A bound datagram socket. The server's datagram loop receives into `capacity` bytes,
    refuses a REQUEST that wants more than `max_payload` and a MARK announcing messages over
    `max_message`; `lossy`: datagrams may be lost (udp), so a stream is not counted."""

    def __init__(self, sock, endpoint, capacity, max_payload, lossy=False):
        self.sock = sock
        self.endpoint = endpoint
        self.capacity = capacity
        self.max_payload = max_payload
        self.max_message = max_payload + HEADER_SIZE  # the largest datagram
        self.lossy = lossy

    def close(self):
        self.sock.close()


def listen_udp(endpoint, options, cleanup):
    family, kind, proto, _, sockaddr = socket.getaddrinfo(
        endpoint.host, endpoint.port, type=socket.SOCK_DGRAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    with closing_on_error(sock):
        sock.bind(sockaddr)
        host, port = sock.getsockname()[:2]
    return DatagramListener(sock, format_host_port(host, port), UDP_CAPACITY, UDP_MAX_PAYLOAD,
                            lossy=True)


def listen_uds(endpoint, options, cleanup):
    """Binds the path 0600 (refusing an existing one) and removes it when the server exits."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    with closing_on_error(sock):
        with cleanup.creating() as created:
            bind_private(sock, endpoint.path)
            created(endpoint.path)
        raise_buffers(sock)
    limit = uds_dgram_max_payload()
    return DatagramListener(sock, endpoint.path, HEADER_SIZE + limit, limit)
