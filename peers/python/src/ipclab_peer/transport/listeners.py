"""Server side: one listener per kind of transport, `listener(endpoint, options, cleanup)`.
`endpoint` is the typed value of endpoints.py, `options` the serve configuration
(poll_interval_us, spin_us); files and kernel objects a listener creates are registered with
`cleanup`. mechanisms.py says which mechanism uses which listener. The datagram listeners are
in datagram.py.

Every listener here has `endpoint` (the READY string), `close()`, `accept()` -> link
(blocking until a client arrives) and `single_client` (pipe: the one inherited client is all
there will ever be). A listener may have `new_reader()`, the server's frame reader for its
links (default: the stream reader.FrameReader).

The message-channel and file listeners have no connections: accept() checks that the kernel
object or directory is still there and returns a fresh link over it, so a rejected frame
drops only what was pending, and a vanished object ends the server (io error).
"""
import os
import socket

from ..errors import IoError
from . import channels, files, shm
from .endpoints import format_host_port
from .links import FdStream, MessageStream, SocketStream
from .sockets import bind_private, closing_on_error, set_no_delay

# The listen() backlog is --backlog (default 512, PROTOCOL.md 11.2: a fast client queues
# instead of losing a SYN, a 1 s retry); a study sets the one it reproduces (the blog's 50).


class _SocketListener:
    single_client = False

    def accept(self):
        conn, _ = self.sock.accept()
        return SocketStream(conn)

    def close(self):
        self.sock.close()


class TcpListener(_SocketListener):
    def __init__(self, endpoint, options, cleanup):
        family, _, _, _, sockaddr = socket.getaddrinfo(
            endpoint.host, endpoint.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        self.sock = socket.create_server(sockaddr, family=family, backlog=options.backlog)
        host, port = self.sock.getsockname()[:2]
        self.endpoint = format_host_port(host, port)
        self._options = options

    def accept(self):
        conn, _ = self.sock.accept()
        set_no_delay(conn, self._options)
        return SocketStream(conn)


class UdsListener(_SocketListener):
    def __init__(self, endpoint, options, cleanup):
        self.endpoint = endpoint.path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with closing_on_error(self.sock):
            with cleanup.creating() as created:
                bind_private(self.sock, endpoint.path)
                created(endpoint.path)
            self.sock.listen(options.backlog)


class FifoListener:
    single_client = False

    def __init__(self, endpoint, options, cleanup):
        self.endpoint = endpoint.path
        self.request_path = os.path.join(endpoint.path, "req")
        self.response_path = os.path.join(endpoint.path, "resp")
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

    def __init__(self, endpoint, options, cleanup):
        self.read_fd, self.write_fd = endpoint.read, endpoint.write
        self.endpoint = str(endpoint)
        for fd in (self.read_fd, self.write_fd):
            os.fstat(fd)

    def accept(self):
        return FdStream(self.read_fd, self.write_fd)

    def close(self):
        pass


class MessageListener:
    """sysv-mq, posix-mq, sysv-shm, shm*: the objects are created (exclusively, 0600, tagged)
    by the functions below; whoever sends on them is served, one client after another."""

    single_client = False

    def __init__(self, channel, endpoint):
        self.channel = channel
        self.endpoint = endpoint

    def accept(self):
        self.channel.check()
        return MessageStream(self.channel)

    def close(self):
        pass


def _ipc_errors_as_io(create):
    def listen(endpoint, options, cleanup, **kwargs):
        try:
            with cleanup.creating() as created:
                return create(created, options, **kwargs)
        except channels.IPC_ERRORS as err:
            raise IoError(f"cannot create the IPC objects: {err}") from None
    listen.__doc__ = create.__doc__
    return listen


@_ipc_errors_as_io
def sysv_mq(created, options):
    key, queue = channels.create_sysv_queue(created)
    return MessageListener(channels.SysvQueueChannel(queue, server=True),
                           channels.format_sysv(key))


@_ipc_errors_as_io
def posix_mq(created, options):
    prefix = f"/ipclab-{os.getpid()}"
    requests, responses = channels.create_posix_queues(prefix, created)
    return MessageListener(channels.PosixQueueChannel(responses, requests), f"posix:{prefix}")


@_ipc_errors_as_io
def sysv_shm(created, options):
    key, memory, semaphores = channels.create_shm(created)
    channel = channels.ShmChannel(memoryview(memory), semaphores, server=True)
    return MessageListener(channel, channels.format_sysv(key))


@_ipc_errors_as_io
def posix_shm(created, options, mode):
    """shm, shm-spin, shm-futex: `mode` is how the server waits (shm.HYBRID, SPIN, FUTEX)."""
    prefix = f"/ipclab-{os.getpid()}"
    return MessageListener(shm.create(mode, prefix, created, options.spin_us), f"posix:{prefix}")


class FileListener:
    """file, file-poll: the directory's `req` files are the requests; one client at a time.
    `waiter` is how the server learns of `req` (files.InotifyWaiter or files.PollWaiter)."""

    single_client = False

    def __init__(self, endpoint, options, cleanup, waiter):
        directory = endpoint.path
        files.check_directory(directory)
        existing = files.leftovers(directory)
        if existing:
            raise IoError(f"{existing[0]}: path exists")
        with cleanup.creating() as created:
            created(lambda: files.remove_leftovers(directory))
        self.endpoint = directory
        self.directory = directory
        # The watch on req exists before READY.
        self.waiter = waiter(directory, files.REQUEST_NAME, options.poll_interval_us)
        self.writer = files.FileWriter(directory, files.RESPONSE_NAME, waiter,
                                       options.poll_interval_us)

    def accept(self):
        files.check_directory(self.directory)
        return files.FileLink(self.writer, self.waiter, owns_waiter=False)

    @staticmethod
    def new_reader():
        return files.FileFrameReader()

    def close(self):
        self.waiter.close()
        self.writer.close()
