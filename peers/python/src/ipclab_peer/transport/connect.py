"""Client side: one connector per kind of transport, `connector(endpoint, options) -> link`
(see links.py). `endpoint` is the typed value of endpoints.py, `options` the drive
configuration (io_timeout, poll_interval_us, spin_us). mechanisms.py says which mechanism uses
which connector; OSError propagates for the caller to report as io.
"""
import os
import socket

from . import channels, files, shm
from .links import FdStream, MessageStream, SocketStream
from .sockets import closing_on_error, set_receive_timeout


def tcp(endpoint, options):
    sock = socket.create_connection((endpoint.host, endpoint.port))
    with closing_on_error(sock):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        set_receive_timeout(sock, options.io_timeout)
    return SocketStream(sock, options.io_timeout)


def uds(endpoint, options):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with closing_on_error(sock):
        sock.connect(endpoint.path)
        set_receive_timeout(sock, options.io_timeout)
    return SocketStream(sock, options.io_timeout)


def pipe(endpoint, options):
    # --io-timeout is not applied: a pipe has no SO_RCVTIMEO, and a poll() before every read
    # would add a system call to each measured round trip.
    return FdStream(endpoint.read, endpoint.write)


def fifo(endpoint, options):
    # Same order as the server (req, then resp), or both would block in open() forever.
    write_fd = os.open(os.path.join(endpoint.path, "req"), os.O_WRONLY)
    try:
        read_fd = os.open(os.path.join(endpoint.path, "resp"), os.O_RDONLY)
    except BaseException:
        os.close(write_fd)
        raise
    return FdStream(read_fd, write_fd)


def sysv_mq(endpoint, options):
    # sysv_ipc's receive has no timeout: a client blocks until its message arrives or the
    # queue is removed (the orchestrator removes a dead server's queue, EIDRM -> io error).
    queue = channels.open_sysv_queue(endpoint.key)
    return MessageStream(channels.SysvQueueChannel(queue, server=False), options.io_timeout)


def posix_mq(endpoint, options):
    channel = channels.open_posix_queues(endpoint.prefix, options.io_timeout)
    return MessageStream(channel, options.io_timeout, on_close=channel.close)


def sysv_shm(endpoint, options):
    return MessageStream(channels.open_shm(endpoint.key, options.io_timeout), options.io_timeout)


def posix_shm(endpoint, options, mode):
    """shm, shm-spin, shm-futex: `mode` is how this side waits (shm.HYBRID, SPIN, FUTEX)."""
    channel = shm.open_client(mode, endpoint.prefix, options.io_timeout, options.spin_us)
    return MessageStream(channel, options.io_timeout)


def file(endpoint, options, waiter):
    """file, file-poll: `waiter` is how this side learns of `resp` (files.InotifyWaiter or
    files.PollWaiter); it watches before the first request is written."""
    directory = endpoint.path
    files.check_directory(directory)
    watch = waiter(directory, files.RESPONSE_NAME, options.poll_interval_us)
    return files.FileLink(files.FileWriter(directory, files.REQUEST_NAME), watch,
                          options.io_timeout)
