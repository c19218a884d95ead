"""nats (PROTOCOL.md 4.11) with nats-py: both peers are core NATS clients of a NATS server, one
connection each, never reconnecting; every frame and stream message is one NATS message on
NAME.requests, answered on the reply subject it carries (the client's one inbox), a stream's
credits on NAME.credits. Imported only when nats is used, so that `capabilities` and the other
mechanisms never load nats-py.

nats-py is asyncio and this peer is not: each connection has an event loop of its own, in this
thread, run only for the length of each call (a publish, a wait for a message). Its reader and
flusher tasks therefore run only inside a call, which is where a synchronous peer waits anyway:
what comes meanwhile waits in the kernel's socket buffer, as on any socket.
"""
import asyncio
import socket
from importlib.metadata import version

from nats.aio.client import Client
from nats.errors import Error as NatsError
from nats.errors import TimeoutError as NatsTimeout

from ..errors import IoError, ReceiveTimeout
from ..frame import HEADER_SIZE, MARK_ACK
from .credit_window import credit_every, stream_window

KIND = 5  # the header's kind byte
# The library would drop what passes a subscription's pending limits (64 MiB by default): the
# stream's window bounds what waits instead (4.11).
PENDING_MESSAGES, PENDING_BYTES = 1 << 20, 1 << 40
FOREVER = 3600.0  # a responder's wait, renewed while nothing comes


def library():
    """capabilities' `library` (PROTOCOL.md 1): the client library."""
    return f"nats-py {version('nats-py')}"


def server_version(host, port):
    """The server's version from the INFO line it sends every new connection, read over a
    connection of its own ("2.9.10"; "unknown" where it says none)."""
    with socket.create_connection((host, port), timeout=5) as s:
        line = b""
        while b"\r\n" not in line and len(line) < 65536:
            chunk = s.recv(4096)
            if not chunk:
                break
            line += chunk
    marker = b'"version":"'
    at = line.find(marker) if line.startswith(b"INFO ") else -1
    end = line.find(b'"', at + len(marker)) if at >= 0 else -1
    return line[at + len(marker):end].decode(errors="replace") if end >= 0 else "unknown"


class Connection:
    """One connection on its own event loop: publish(), subscribe(), next(), flush()."""

    def __init__(self, endpoint, timeout):
        self._loop = asyncio.new_event_loop()
        self._nc = Client()
        self._where = endpoint.server
        self._errors = []
        try:
            self._run(self._nc.connect(servers=[endpoint.server], allow_reconnect=False,
                                       connect_timeout=timeout or 30, max_reconnect_attempts=0,
                                       error_cb=self._error_cb, closed_cb=self._nothing,
                                       disconnected_cb=self._nothing))
        except (NatsError, OSError, asyncio.TimeoutError) as err:
            self.close()
            raise IoError(f"connect to NATS at {self._where}: {err or type(err).__name__}") \
                from None

    async def _error_cb(self, err):
        self._errors.append(err)  # said by the next call that fails (a slow consumer, a close)

    async def _nothing(self):
        pass

    def _run(self, coroutine):
        return self._loop.run_until_complete(coroutine)

    def publish(self, subject, data, reply=""):
        try:
            self._run(self._publish(subject, data, reply))
        except NatsError as err:  # over max_payload: refused before anything is sent (4.11)
            raise IoError(f"publish {len(data)} bytes to {subject}: {err}") from None

    async def _publish(self, subject, data, reply):
        await self._nc.publish(subject, data, reply=reply)
        await asyncio.sleep(0)  # the flusher's turn: the message goes out now, not with the next

    def subscribe(self, subject=""):
        """A subscription to `subject`, or to a new inbox where it is empty; its subject."""
        subject = subject or self._nc.new_inbox()
        sub = self._run(self._nc.subscribe(subject, pending_msgs_limit=PENDING_MESSAGES,
                                           pending_bytes_limit=PENDING_BYTES))
        return Subscription(self, sub, subject)

    def flush(self, timeout=30):
        """Until the server has everything sent so far (a PING answered)."""
        try:
            self._run(self._nc.flush(timeout=timeout))
        except (NatsError, asyncio.TimeoutError) as err:
            raise IoError(f"flush to NATS at {self._where}: {err or type(err).__name__}") from None

    def next(self, sub, subject, timeout):
        """The next message of `sub` within `timeout` seconds (None: however long it takes)."""
        while True:
            try:
                return self._run(sub.next_msg(timeout=timeout or FOREVER))
            except NatsTimeout:
                if self._nc.is_closed:
                    raise self._closed() from None
                if timeout:
                    raise ReceiveTimeout(f"nothing on {subject} within --io-timeout") from None
            except (NatsError, asyncio.CancelledError) as err:
                raise self._closed() if self._nc.is_closed else \
                    IoError(f"a message on {subject}: {err}") from None

    def _closed(self):
        why = f" ({self._errors[-1]})" if self._errors else ""
        return IoError(f"the NATS server at {self._where} closed the connection{why}")

    def close(self):
        try:
            if not self._nc.is_closed:
                self._run(self._nc.close())
        except (NatsError, OSError):
            pass
        self._loop.close()


class Subscription:
    def __init__(self, conn, sub, subject):
        self._conn, self._sub, self.subject = conn, sub, subject

    def next(self, timeout=None):
        return self._conn.next(self._sub, self.subject, timeout)

    def discard_pending(self):
        """Drops every message that has come and not been taken."""
        while self._sub.pending_msgs:
            self.next(1.0)


def no_responders(msg):
    """The server's "no responders" status (header Status 503, no data): a request published
    where nobody is subscribed (4.11)."""
    return not msg.data and bool(msg.headers) and msg.headers.get("Status") == "503"


class ClientLink:
    """The link of rr.py and stream.py: send_all(frame) publishes it with the inbox as its reply
    subject, recv_frame(view) the inbox's next message copied into `view` as far as it fits
    (its real size returned), send_message(data) one publish, after a credit where the window
    is full."""

    def __init__(self, endpoint, config):
        self._conn = Connection(endpoint, config.io_timeout)
        self._requests = f"{endpoint.name}.requests"
        self._inbox = self._conn.subscribe()
        self._credits = self._conn.subscribe(f"{endpoint.name}.credits")
        self._conn.flush(config.io_timeout or 30)  # both subscriptions on the server
        self._timeout = config.io_timeout
        self._window = stream_window(config.message_size or 0)
        self._every = credit_every(self._window)
        self._sent = 0

    def send_all(self, frame):
        self._conn.publish(self._requests, bytes(frame), self._inbox.subject)

    def recv_frame(self, view):
        msg = self._inbox.next(self._timeout)
        if no_responders(msg):
            raise IoError(f"no responder on {self._requests} (the server's 503)")
        body = msg.data
        size = len(body)
        fits = min(size, len(view))
        view[:fits] = body[:fits]
        if size == HEADER_SIZE and body[KIND] == MARK_ACK:
            # A stream's window counts from its MARK_ACK; the credits the stream before left
            # are all in by now (one server keeps one publisher's order).
            self._sent = 0
            self._credits.discard_pending()
        return size

    def send_message(self, data):
        sent, window = self._sent, self._window
        if sent >= window and (sent - window) % self._every == 0:
            self._credits.next(self._timeout)
        self._conn.publish(self._requests, bytes(data))
        self._sent = sent + 1

    def close(self):
        self._conn.close()


def connect(endpoint, config):
    return ClientLink(endpoint, config)


class Listener:
    """The responder's connection and its subscription to NAME.requests, on the server before
    READY, and the server's version for READY (`broker`, 4.11)."""

    def __init__(self, endpoint):
        server = server_version(endpoint.host, endpoint.port)
        self.conn = Connection(endpoint, None)
        self.requests = self.conn.subscribe(f"{endpoint.name}.requests")
        self.credits = f"{endpoint.name}.credits"
        self.conn.flush()
        self.endpoint = str(endpoint)
        self.ready_extra = {"broker": f"NATS {server}"}


def listen(endpoint, config, cleanup):
    return Listener(endpoint)
