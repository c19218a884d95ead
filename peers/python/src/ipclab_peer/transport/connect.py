"""Client side: one connector per kind of transport, `connector(endpoint, options) -> link`
(see links.py). `endpoint` is the typed value of endpoints.py, `options` the drive
configuration (io_timeout, poll_interval_us, spin_us). mechanisms.py says which mechanism uses
which connector; OSError propagates for the caller to report as io.
"""
import functools
import os
import socket

from . import channels, files, shm
from .links import FdStream, MessageStream, SocketStream
from .sockets import closing_on_error, set_no_delay, set_receive_timeout


def tcp(endpoint, options):
    sock = socket.create_connection((endpoint.host, endpoint.port))
    with closing_on_error(sock):
        set_no_delay(sock, options)
        set_receive_timeout(sock, options.io_timeout)
    return SocketStream(sock, options.io_timeout)


# Linux's IP_BIND_ADDRESS_NO_PORT: bind() takes the address now and the port at connect(), so
# one source address can reuse a port towards another destination.
IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)
LOOPBACK = "127.0.0.1"


def tcp_short(endpoint, options, index):
    """Connection `index` of pattern short over tcp, by --source (PROTOCOL.md 1, 11.2):
    `rotate` from the next loopback source address, `one` from the kernel's choice."""
    if options.source == "one":
        return tcp_unbound(endpoint, options, index)
    return tcp_from_source(endpoint, options, index)


def tcp_from_source(endpoint, options, index):
    """Connection `index` of pattern short (PROTOCOL.md 11.2), made ready before the sample's
    clock starts: the socket, and for a server on 127.0.0.1 its source address 127.1.b.c
    (k = index mod 65280, b = k / 255, c = k mod 255: the contract keeps c below 255 because
    the JDK refuses .255; port chosen at connect), so 100 000 connections in a row do not run
    out of ephemeral ports while the earlier ones sit in TIME_WAIT."""
    def bind(sock):
        if endpoint.host == LOOPBACK:
            sock.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
            k = index % 65280
            sock.bind((f"127.1.{k // 255}.{k % 255}", 0))
    return _tcp_unconnected(endpoint, options, bind)


def tcp_unbound(endpoint, options, index):
    """`--source one` (contract 6): the socket is still made before the clock, but nothing is
    bound: connect() takes the kernel's source (127.0.0.1 towards a loopback server, an
    ephemeral port), as the blog's client did. Its connections share one address's ports,
    which a long run can exhaust unless the kernel reuses those in TIME_WAIT
    (net.ipv4.tcp_tw_reuse, on for loopback by default): that is the condition it measures."""
    return _tcp_unconnected(endpoint, options, lambda sock: None)


def _tcp_unconnected(endpoint, options, bind):
    family, address = _resolved(endpoint)
    sock = socket.socket(family, socket.SOCK_STREAM)
    with closing_on_error(sock):
        set_no_delay(sock, options)
        bind(sock)
        set_receive_timeout(sock, options.io_timeout)
    return Unconnected(sock, address, options.io_timeout)


def uds_unconnected(endpoint, options, index):
    """Connection `index` of pattern short over uds: the socket, made before the clock."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with closing_on_error(sock):
        set_receive_timeout(sock, options.io_timeout)
    return Unconnected(sock, endpoint.path, options.io_timeout)


class Unconnected:
    """A stream socket made ready for one connection; connect() is what the sample times."""

    def __init__(self, sock, address, timeout):
        self.sock, self.address, self.timeout = sock, address, timeout

    def connect(self):
        self.sock.connect(self.address)
        return SocketStream(self.sock, self.timeout)

    def close(self):
        self.sock.close()


@functools.cache
def _resolved(endpoint):
    """(family, socket address) of a tcp endpoint, looked up once per run."""
    family, _, _, _, address = socket.getaddrinfo(endpoint.host, endpoint.port,
                                                  type=socket.SOCK_STREAM)[0]
    return family, address


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
    writer = files.FileWriter(directory, files.REQUEST_NAME, waiter, options.poll_interval_us,
                              options.io_timeout)
    return files.FileLink(writer, watch, options.io_timeout)
