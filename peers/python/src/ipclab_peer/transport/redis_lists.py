"""redis-tcp and redis-uds (PROTOCOL.md 4.10) with redis-py's connection (its pure-Python RESP2
parser): both peers are clients of a Redis server, one connection each, and every frame and
stream message is one element of the lists NAME:requests (to the responder) and NAME:replies
(back), a stream's credits on NAME:credits. Imported only when a Redis mechanism is used, so
that `capabilities` and the other mechanisms never load redis.

Commands are pipelined as the contract writes them: appended, written in one call, their
replies read in order (the ones nobody waits for, RPUSH's counts, are read and checked before
the next wanted one). redis-py's pack_commands keeps a large value as its own piece, so a
frame is not copied into the command's bytes.
"""
import redis
from redis.connection import Connection, UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeout

from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..frame import HEADER_SIZE, MARK_ACK
from .credit_window import credit_every, stream_window

KIND = 5  # the header's kind byte


def library():
    """capabilities' `library` (PROTOCOL.md 1): the client library."""
    return f"redis-py {redis.__version__}"


class Keys:
    def __init__(self, name):
        self.requests, self.replies, self.credits = (f"{name}:requests", f"{name}:replies",
                                                     f"{name}:credits")


class Pipe:
    """One connection to the server: append(), flush(), next() (the next wanted reply)."""

    def __init__(self, endpoint, timeout):
        where = endpoint.where
        try:
            if endpoint.path is not None:
                self._conn = UnixDomainSocketConnection(path=endpoint.path, socket_timeout=timeout,
                                                        socket_connect_timeout=timeout or 30)
            else:
                self._conn = Connection(host=endpoint.host, port=endpoint.port,
                                        socket_timeout=timeout,
                                        socket_connect_timeout=timeout or 30)
            self._conn.connect()
        except RedisError as err:
            raise IoError(f"connect to Redis at {where}: {err}") from None
        self._where, self._queued, self._unwanted = where, [], 0

    def append(self, wanted, *args):
        self._queued.append(args)
        if not wanted:
            self._unwanted += 1

    def flush(self):
        if not self._queued:
            return
        commands, self._queued = self._queued, []
        try:
            self._conn.send_packed_command(self._conn.pack_commands(commands), check_health=False)
        except RedisError as err:
            raise self._error("write", err) from None

    def next(self):
        try:
            while self._unwanted:
                self._unwanted -= 1
                self._conn.read_response(disable_decoding=True)
            return self._conn.read_response(disable_decoding=True)
        except ResponseError as err:
            raise IoError(f"Redis at {self._where} answered: {err}") from None
        except RedisError as err:
            raise self._error("read", err) from None

    def _error(self, what, err):
        if isinstance(err, RedisTimeout):
            return ReceiveTimeout(f"{what}: nothing from Redis at {self._where} within "
                                  f"--io-timeout")
        if isinstance(err, RedisConnectionError) and "closed" in str(err).lower():
            return IoError(f"{what}: the Redis server at {self._where} closed the connection")
        return IoError(f"{what}: Redis at {self._where}: {err}")

    def close(self):
        self._conn.disconnect()


def popped(reply, key):
    """BLPOP's element: nil is a timeout, anything but [key, bytes] a protocol error."""
    if reply is None:
        raise ReceiveTimeout(f"nothing on {key} within --io-timeout")
    if not isinstance(reply, list) or len(reply) != 2 or not isinstance(reply[1], bytes):
        raise ProtocolError(f"BLPOP {key} answered no [key, element] pair")
    return reply[1]


class ClientLink:
    """The link of rr.py and stream.py: send_all(frame) is RPUSH and BLPOP in one write,
    recv_frame(view) the element copied into `view` as far as it fits (its real size
    returned), send_message(data) one RPUSH, after a credit where the window is full."""

    def __init__(self, endpoint, config):
        # The socket's own timeout outlasts BLPOP's, whose nil answer is the timeout to report.
        self._pipe = Pipe(endpoint, config.io_timeout + 5)
        self._keys = Keys(endpoint.name)
        self._timeout = f"{config.io_timeout:.3f}"
        self._window = stream_window(config.message_size or 0)
        self._every = credit_every(self._window)
        self._sent = 0

    def send_all(self, frame):
        self._pipe.append(False, "RPUSH", self._keys.requests, frame)
        self._pipe.append(True, "BLPOP", self._keys.replies, self._timeout)
        self._pipe.flush()

    def recv_frame(self, view):
        body = popped(self._pipe.next(), self._keys.replies)
        size = len(body)
        fits = min(size, len(view))
        view[:fits] = body[:fits]
        if size == HEADER_SIZE and body[KIND] == MARK_ACK:
            self._sent = 0  # a stream's window counts from its MARK_ACK
        return size

    def send_message(self, data):
        sent, window = self._sent, self._window
        if sent >= window and (sent - window) % self._every == 0:
            self._pipe.append(True, "BLPOP", self._keys.credits, self._timeout)
            self._pipe.flush()
            popped(self._pipe.next(), self._keys.credits)
        self._pipe.append(False, "RPUSH", self._keys.requests, bytes(data))
        self._pipe.flush()
        self._sent = sent + 1

    def close(self):
        self._pipe.close()


def connect(endpoint, config):
    return ClientLink(endpoint, config)


class Listener:
    """The responder's connection, its keys deleted (what an earlier run left), and the
    server's version for READY (`broker`, 4.10)."""

    def __init__(self, endpoint):
        self.pipe = Pipe(endpoint, None)
        self.keys = Keys(endpoint.name)
        self.endpoint = str(endpoint)
        self.pipe.append(False, "DEL", self.keys.requests, self.keys.replies, self.keys.credits)
        self.pipe.append(True, "INFO", "server")
        self.pipe.flush()
        info = self.pipe.next()
        version = "unknown"
        for line in (info if isinstance(info, bytes) else b"").splitlines():
            if line.startswith(b"redis_version:"):
                version = line.split(b":", 1)[1].decode(errors="replace").strip()
        self.ready_extra = {"broker": f"Redis {version}"}


def listen(endpoint, config, cleanup):
    return Listener(endpoint)
