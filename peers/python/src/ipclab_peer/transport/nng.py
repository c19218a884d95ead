"""nng-tcp and nng-ipc (PROTOCOL.md 4.9) with pynng (the binding and the libnng its wheel bundles).
Imported only when an NNG mechanism is used, so that `capabilities` and the other mechanisms
never load pynng.

The server listens with a REP request socket (rr's frames, a stream's MARK and END) and a PULL
stream socket (a stream's messages); the client dials a REQ and, for a stream, a PUSH, both
synchronously (a refused dial fails at once). Each frame or stream message is one NNG message.
Every socket has NNG_OPT_RECVMAXSZ, so the library drops a connection whose message is longer
than this side takes before it allocates; the REQ has its resend timer off (a resent REQUEST
would be a second one to the server). The hot path calls pynng's cffi library directly: sends
from any buffer (ffi.from_buffer, copied into the library's message by nng_send), receives of
the library's allocation copied into the caller's buffer or read in place, then freed (pynng's
own recv() copies into bytes, and fails on an empty message, which a rejected frame's answer is).
"""
import pynng
from pynng import ffi, lib
from pynng.options import _getopt_int

from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..frame import END_ACK_LENGTH, HEADER_SIZE, MAX_PAYLOAD, STREAM_ACK_LENGTH
from .endpoints import Path
from .req_and_stream import bind_ipc_pair, client_sockets

BUFFER_BUDGET, BUFFER_DEFAULT = 64 << 20, 1000
# NNG_OPT_RECVMAXSZ counts the whole message on the wire, and req0/rep0 put a 4-byte request ID
# before the body: a REQ's or REP's limit is the body's plus this.
REQUEST_ID = 4


def stream_buffer(size):
    """The client's PUSH send buffer for messages of `size` bytes (4.9): about 64 MiB queued,
    at most 1000 messages."""
    return min(BUFFER_DEFAULT, max(1, BUFFER_BUDGET // size)) if size else BUFFER_DEFAULT


def library():
    """capabilities' `library` (PROTOCOL.md 1): the binding and the libnng it runs."""
    return f"pynng {pynng.__version__}, nng {ffi.string(lib.nng_version()).decode()}"


def _check(what, rv):
    if rv == 0:
        return
    if rv == lib.NNG_ETIMEDOUT:
        raise ReceiveTimeout(f"{what}: nothing within --io-timeout")
    raise IoError(f"{what}: {ffi.string(lib.nng_strerror(rv)).decode()}")


def send(sock, data):
    """One message of `data`'s bytes (any buffer)."""
    _check("send", lib.nng_send(sock.socket, ffi.from_buffer(data), len(data), 0))


class Received:
    """The next message of `sock`, in the library's memory until close(): `body` a view of it."""

    def __init__(self, sock):
        data, size = ffi.new("char **"), ffi.new("size_t *")
        _check("receive", lib.nng_recv(sock.socket, data, size, lib.NNG_FLAG_ALLOC))
        self._data, self.size = data[0], size[0]
        self.body = memoryview(ffi.buffer(self._data, self.size)) if self.size else b""

    def close(self):
        if self.size:
            self.body.release()
            lib.nng_free(self._data, self.size)
            self.size = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _socket(kind, max_message, **options):
    """A pynng socket with NNG_OPT_RECVMAXSZ and the given options (pynng's names)."""
    return kind(recv_max_size=max_message, **options)


def _dial(sock, url):
    try:
        sock.dial(url, block=True)
    except pynng.NNGException as err:
        raise IoError(f"dial {url}: {err}") from None


class ClientLink:
    """The link of rr.py and stream.py: send_all(frame) on the REQ, send_message(data) on the
    PUSH, recv_frame(view) the next answer copied into `view` as far as it fits, returning the
    message's real size (so a wrong size is seen, as on a datagram link)."""

    def __init__(self, sockets, config):
        stream = config.pattern == "stream"
        largest = REQUEST_ID + HEADER_SIZE + (STREAM_ACK_LENGTH if stream else
                                 max(config.response_size or 0, END_ACK_LENGTH))
        ms = max(1, int(config.io_timeout * 1000 + 0.999))
        tcp = sockets.requests.startswith("tcp://")
        self._req = _socket(pynng.Req0, largest, resend_time=-1, recv_timeout=ms,
                            send_timeout=ms)
        self._push = None
        try:
            if tcp:
                self._req.tcp_nodelay = True
            _dial(self._req, sockets.requests)
            if stream:
                self._push = _socket(pynng.Push0, MAX_PAYLOAD, send_timeout=ms,
                                     send_buffer_size=stream_buffer(config.message_size))
                if tcp:
                    self._push.tcp_nodelay = True
                _dial(self._push, sockets.stream)
        except BaseException:
            self.close()
            raise
        self._data, self._size = ffi.new("char **"), ffi.new("size_t *")

    def send_all(self, frame):
        send(self._req, frame)

    def recv_frame(self, view):
        data, size = self._data, self._size
        _check("receive", lib.nng_recv(self._req.socket, data, size, lib.NNG_FLAG_ALLOC))
        n = size[0]
        if n:
            ffi.memmove(view, data[0], min(n, len(view)))
            lib.nng_free(data[0], n)
        return n

    def send_message(self, data):
        if self._push is None:
            raise ProtocolError("a stream message outside a stream")
        send(self._push, data)

    def close(self):
        for sock in (self._req, self._push):
            if sock is not None:
                sock.close()


def connect(endpoint, config):
    return ClientLink(client_sockets(endpoint), config)


class Listener:
    """The server's two sockets, listening where --endpoint says; `endpoint` is READY's."""

    def __init__(self, endpoint, cleanup):
        self.requests = _socket(pynng.Rep0, REQUEST_ID + HEADER_SIZE + MAX_PAYLOAD)
        self.stream = _socket(pynng.Pull0, MAX_PAYLOAD)
        try:
            if isinstance(endpoint, Path):
                # pynng starts the listener at once: the mode is set just after.
                self.endpoint = bind_ipc_pair(endpoint, cleanup, self.requests.listen,
                                              self.stream.listen)
            else:
                host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
                ports = []
                for sock, port in ((self.requests, endpoint.port), (self.stream, 0)):
                    sock.tcp_nodelay = True
                    listener = sock.listen(f"tcp://{host}:{port}")
                    ports.append(_getopt_int(listener, "tcp-bound-port"))
                self.endpoint = ",".join(f"tcp://{host}:{port}" for port in ports)
        except pynng.NNGException as err:
            self.close()
            raise IoError(f"listen: {err}") from None
        except BaseException:
            self.close()
            raise

    def stream_window(self, size):
        """A stream starts or ends: nothing to set (libnng's PULL holds one message per
        connection and has no receive buffer, PROTOCOL.md 4.9)."""

    def close(self):
        self.requests.close()
        self.stream.close()


def listen(endpoint, config, cleanup):
    return Listener(endpoint, cleanup)
