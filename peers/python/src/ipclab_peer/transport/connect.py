"""Client side: one connector per mechanism, each returning a link (see links.py)."""
import os
import socket

from . import channels, endpoints, files, shm
from .links import Datagram, FdStream, MessageStream, SocketStream, set_receive_timeout


def connect(mechanism, endpoint, io_timeout, poll_interval_us=2000, spin_us=50):
    """Opens the client's link; OSError propagates for the caller to report as io."""
    target = endpoints.parse(mechanism, endpoint)
    if mechanism in endpoints.SHM:
        return MessageStream(shm.open_client(mechanism, target, io_timeout, spin_us), io_timeout)
    if mechanism in ("file", "file-poll"):
        return _file(mechanism, target, io_timeout, poll_interval_us)
    return _CONNECTORS[mechanism](target, io_timeout)


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


def _sysv_mq(key, timeout):
    # sysv_ipc's receive has no timeout: a client blocks until its message arrives or the
    # queue is removed (the orchestrator removes a dead server's queue, EIDRM -> io error).
    queue = channels.open_sysv_queue(key)
    return MessageStream(channels.SysvQueueChannel(queue, server=False), timeout)


def _posix_mq(prefix, timeout):
    channel = channels.open_posix_queues(prefix, timeout)
    return MessageStream(channel, timeout, on_close=channel.close)


def _sysv_shm(key, timeout):
    channel = channels.open_shm(key, timeout)
    return MessageStream(channel, timeout)


def _file(mechanism, directory, timeout, poll_interval_us):
    files.check_directory(directory)
    # The watch on resp exists before the first request is written.
    waiter = files.make_waiter(mechanism, directory, files.RESPONSE_NAME, poll_interval_us)
    return files.FileLink(files.FileWriter(directory, files.REQUEST_NAME), waiter, timeout)


_CONNECTORS = {"tcp": _tcp, "udp": _udp, "uds": _uds, "pipe": _pipe, "fifo": _fifo,
               "sysv-mq": _sysv_mq, "posix-mq": _posix_mq, "sysv-shm": _sysv_shm,
               "file": None, "file-poll": None, "shm": None, "shm-spin": None,
               "shm-futex": None}
assert set(_CONNECTORS) == set(endpoints.MECHANISMS)
