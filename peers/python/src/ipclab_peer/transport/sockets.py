"""Small socket helpers shared by the socket transports."""
import contextlib
import errno
import os
import socket
import struct

from ..errors import IoError


def set_receive_timeout(sock, seconds):
    """SO_RCVTIMEO keeps the socket blocking (one system call per receive, unlike
    settimeout(), which polls first); an expired wait surfaces as BlockingIOError."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(seconds))


def _timeval(seconds):
    micros = max(1, round(min(seconds, 1e9) * 1e6))
    return struct.pack("@ll", micros // 1_000_000, micros % 1_000_000)


def set_send_timeout(sock, seconds):
    """SO_SNDTIMEO, as set_receive_timeout: a send blocked that long raises BlockingIOError
    (pattern load: a server that stops reading does not hang the client)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(seconds))


def set_no_delay(sock, options):
    """TCP_NODELAY unless `--nodelay off` (PROTOCOL.md 1), which leaves a new socket as the
    kernel makes it: Nagle's algorithm on."""
    if options.nodelay == "on":
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def bind_private(sock, path):
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


@contextlib.contextmanager
def closing_on_error(sock):
    """Closes `sock` if the block raises, then lets the exception go on."""
    try:
        yield sock
    except BaseException:
        sock.close()
        raise
