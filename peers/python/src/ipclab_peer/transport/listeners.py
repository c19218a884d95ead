"""Server side: one listener per mechanism.

Every listener has `endpoint` (the READY string) and `close()`. Stream listeners have
`accept()` -> link (blocking until a client arrives) and `single_client` (pipe: the one
inherited client is all there will ever be). The udp listener exposes its bound socket.
A listener may have `new_reader()`, the server's frame reader for its links (default: the
stream reader.FrameReader).

The message-channel and file listeners have no connections: accept() checks that the kernel
object or directory is still there and returns a fresh link over it, so a rejected frame
drops only what was pending, and a vanished object ends the server (io error).
"""
import errno
import os
import socket

from ..errors import IoError
from . import channels, endpoints, files, shm
from .links import FdStream, MessageStream, SocketStream

BACKLOG = 16


def listen(mechanism, endpoint, cleanup, poll_interval_us=2000, spin_us=50):
    """Creates the server endpoint; files and kernel objects it creates are registered with
    `cleanup`."""
    target = endpoints.parse(mechanism, endpoint, role="serve")
    if mechanism in endpoints.MESSAGE_CHANNELS:
        return MessageListener(mechanism, cleanup, spin_us)
    if mechanism in ("file", "file-poll"):
        return FileListener(mechanism, target, cleanup, poll_interval_us)
    return _LISTENERS[mechanism](target, cleanup)


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


class MessageListener:
    """sysv-mq, posix-mq, sysv-shm: creates the objects (exclusively, 0600, tagged) and
    serves whoever sends on them, one client after another."""

    single_client = False

    def __init__(self, mechanism, cleanup, spin_us=50):
        self._spin_us = spin_us
        try:
            self._create(mechanism, cleanup)
        except channels.IPC_ERRORS as err:
            raise IoError(f"cannot create the {mechanism} objects: {err}") from None

    def _create(self, mechanism, cleanup):
        with cleanup.creating() as created:
            if mechanism == "sysv-mq":
                key, queue = channels.create_sysv_queue(created)
                self.channel = channels.SysvQueueChannel(queue, server=True)
                self.endpoint = channels.format_sysv(key)
            elif mechanism == "posix-mq":
                prefix = f"/ipclab-{os.getpid()}"
                requests, responses = channels.create_posix_queues(prefix, created)
                self.channel = channels.PosixQueueChannel(responses, requests)
                self.endpoint = f"posix:{prefix}"
            elif mechanism in endpoints.SHM:
                prefix = f"/ipclab-{os.getpid()}"
                self.channel = shm.create(mechanism, prefix, created, self._spin_us)
                self.endpoint = f"posix:{prefix}"
            else:
                key, memory, semaphores = channels.create_shm(created)
                self.channel = channels.ShmChannel(memoryview(memory), semaphores, server=True)
                self.endpoint = channels.format_sysv(key)

    def accept(self):
        self.channel.check()
        return MessageStream(self.channel)

    def close(self):
        pass


class FileListener:
    """file, file-poll: the directory's `req` files are the requests; one client at a time."""

    single_client = False

    def __init__(self, mechanism, directory, cleanup, poll_interval_us):
        files.check_directory(directory)
        existing = files.leftovers(directory)
        if existing:
            raise IoError(f"{existing[0]}: path exists")
        with cleanup.creating() as created:
            created(lambda: files.remove_leftovers(directory))
        self.endpoint = directory
        self.directory = directory
        # The watch on req exists before READY.
        self.waiter = files.make_waiter(mechanism, directory, files.REQUEST_NAME,
                                        poll_interval_us)
        self.writer = files.FileWriter(directory, files.RESPONSE_NAME)

    def accept(self):
        files.check_directory(self.directory)
        return files.FileLink(self.writer, self.waiter, owns_waiter=False)

    @staticmethod
    def new_reader():
        return files.FileFrameReader()

    def close(self):
        self.waiter.close()


_LISTENERS = {"tcp": TcpListener, "udp": UdpListener, "uds": UdsListener,
              "pipe": PipeListener, "fifo": FifoListener}
assert set(_LISTENERS) | set(endpoints.MESSAGE_CHANNELS) | {"file", "file-poll"} \
    == set(endpoints.MECHANISMS)
