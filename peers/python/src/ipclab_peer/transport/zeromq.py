"""zmq-tcp and zmq-ipc (PROTOCOL.md 4.8) with pyzmq (its bundled libzmq). Imported only when a
ZeroMQ mechanism is used, so that `capabilities` and the other mechanisms never load zmq.

The server binds a REP request socket (rr's frames, a stream's MARK and END) and a PULL stream
socket (a stream's messages); the client connects a REQ and, for a stream, a PUSH once the
first MARK_ACK is in (the server has set its stream socket's high-water mark by then, which
JeroMQ servers apply only to connections made afterwards). Each frame or stream message is one
ZeroMQ message; every socket has ZMQ_LINGER 0 and a ZMQ_MAXMSGSIZE, so the library never
allocates for a message larger than this side takes. Sends copy (pyzmq's copy=True), so a
stamped buffer can be reused at once.
"""
import zmq

from ..errors import IoError, ReceiveTimeout
from ..frame import END_ACK_LENGTH, HEADER_SIZE, MARK_ACK, MAX_PAYLOAD, STREAM_ACK_LENGTH
from .endpoints import Path
from .req_and_stream import bind_ipc_pair, client_sockets

KIND = 5  # the header's kind byte
HWM_BUDGET, HWM_DEFAULT = 64 << 20, 1000


def stream_hwm(size):
    """The stream's high-water mark for messages of `size` bytes (4.8): about 64 MiB queued
    per side, at most the libraries' default of 1000 messages."""
    return min(HWM_DEFAULT, max(1, HWM_BUDGET // size)) if size else HWM_DEFAULT


def library():
    """capabilities' `library` (PROTOCOL.md 1): the binding and the libzmq it runs."""
    return f"pyzmq {zmq.__version__}, libzmq {zmq.zmq_version()}"


def _error(what, err):
    if err.errno == zmq.EAGAIN:
        return ReceiveTimeout(f"{what}: nothing within --io-timeout")
    return IoError(f"{what}: {err}")


def _socket(context, kind, max_message, **options):
    sock = context.socket(kind)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.MAXMSGSIZE, max_message)
    for name, value in options.items():
        sock.setsockopt(getattr(zmq, name), value)
    return sock


class ClientLink:
    """The link of rr.py and stream.py: send_all(frame) on the REQ, send_message(data) on the
    PUSH, recv_frame(view) the next answer copied into `view` as far as it fits, returning the
    message's real size (so a wrong size is seen, as on a datagram link)."""

    def __init__(self, sockets, config):
        self._context = zmq.Context(1)
        self._stream, self._config = sockets.stream, config
        stream = config.pattern == "stream"
        largest = HEADER_SIZE + (STREAM_ACK_LENGTH if stream else
                                 max(config.response_size or 0, END_ACK_LENGTH))
        self._ms = max(1, int(config.io_timeout * 1000 + 0.999))
        self._req = _socket(self._context, zmq.REQ, largest, RCVTIMEO=self._ms, SNDTIMEO=self._ms)
        self._push = None
        try:
            self._req.connect(sockets.requests)
        except zmq.ZMQError as err:
            self.close()
            raise IoError(f"connect {sockets.requests}: {err}") from None

    def send_all(self, frame):
        try:
            self._req.send(frame)
        except zmq.ZMQError as err:
            raise _error("send", err) from None

    def recv_frame(self, view):
        try:
            size = self._req.recv_into(view)
        except zmq.ZMQError as err:
            raise _error("receive", err) from None
        if self._push is None and size == HEADER_SIZE and view[KIND] == MARK_ACK:
            self._connect_push()
        return size

    def send_message(self, data):
        try:
            self._push.send(data)
        except zmq.ZMQError as err:
            raise _error("send of a stream message", err) from None

    def _connect_push(self):
        self._push = _socket(self._context, zmq.PUSH, MAX_PAYLOAD, SNDTIMEO=self._ms,
                             SNDHWM=stream_hwm(self._config.message_size))
        self._push.connect(self._stream)

    def close(self):
        for sock in (self._req, self._push):
            if sock is not None:
                sock.close()
        self._context.term()


def connect(endpoint, config):
    return ClientLink(client_sockets(endpoint), config)


class Listener:
    """The server's two sockets, bound where --endpoint says; `endpoint` is READY's."""

    def __init__(self, endpoint, cleanup):
        self._context = zmq.Context(1)
        self.requests = _socket(self._context, zmq.REP, HEADER_SIZE + MAX_PAYLOAD)
        self.stream = _socket(self._context, zmq.PULL, MAX_PAYLOAD)
        try:
            if isinstance(endpoint, Path):
                self.endpoint = bind_ipc_pair(endpoint, cleanup, self.requests.bind,
                                              self.stream.bind)
            else:
                host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
                self.requests.bind(f"tcp://{host}:{endpoint.port or '*'}")
                self.stream.bind(f"tcp://{host}:*")
                self.endpoint = ",".join(s.getsockopt_string(zmq.LAST_ENDPOINT)
                                         for s in (self.requests, self.stream))
        except zmq.ZMQError as err:
            raise IoError(f"bind: {err}") from None

    def stream_window(self, size):
        """A stream of `size`-byte messages starts (0: it ended): its high-water mark, set
        before the MARK_ACK goes (PROTOCOL.md 4.8)."""
        if size:
            self.stream.setsockopt(zmq.RCVHWM, stream_hwm(size))


def listen(endpoint, config, cleanup):
    return Listener(endpoint, cleanup)
