"""thrift-binary, thrift-compact (PROTOCOL.md 10.3): TSocket + TBufferedTransport + the
binary (strict write) or compact protocol; TThreadedServer (pattern load: or TThreadPoolServer)
on 127.0.0.1; TCP_NODELAY on both sides.

Both protocols use the package's accelerated C codec (fastbinary: TBinaryProtocolAccelerated,
TCompactProtocolAccelerated), made without fallback, so a thrift whose C extension is missing
is unsupported rather than silently measured with the pure-Python codec (capabilities reports
the codec: mechanisms.THRIFT_CODEC). Compact needs thrift >= 0.23: in 0.22 the extension's
module.cpp lacked `#define PY_SSIZE_T_CLEAN` and GCC cloned the compact decoder's readBytes
into that translation unit, where its refill call `PyObject_CallFunction(refill, "y#i", ...)`
raised "SystemError: PY_SSIZE_T_CLEAN macro must be defined for '#' formats" on Python 3.10 to
3.12 whenever a message spanned a refill of the transport's read buffer.

The Python library has no TConfiguration / message size limit to raise (strings and
containers are unlimited by default), so nothing is configured for sizes.
"""
import socket

from ipclab_thrift import Bench
from ipclab_thrift.ttypes import Large, Medium, Small
# The C codec itself: without it (thrift built from its sdist without a compiler) this module
# does not import and both mechanisms are unsupported (rpc.Framework.load), never measured with
# the pure-Python codec instead.
from thrift.protocol import fastbinary  # noqa: F401
from thrift.protocol.TBinaryProtocol import (TBinaryProtocolAccelerated,
                                             TBinaryProtocolAcceleratedFactory)
from thrift.protocol.TCompactProtocol import (TCompactProtocolAccelerated,
                                              TCompactProtocolAcceleratedFactory)
from thrift.server import TServer
from thrift.Thrift import TApplicationException
from thrift.transport import TSocket, TTransport

from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..transport.endpoints import format_host_port
from . import base

# The `protocol` variant of each thrift mechanism (mechanisms.py): client protocol, server
# protocol factory, both of the C codec.
PROTOCOLS = {"binary": (TBinaryProtocolAccelerated, TBinaryProtocolAcceleratedFactory),
             "compact": (TCompactProtocolAccelerated, TCompactProtocolAcceleratedFactory)}



def _no_delay(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Socket(TSocket.TSocket):
    """TSocket with large reads and writes in linear time: the base class concatenates
    received chunks and re-slices what is left to send, both quadratic for 128 MiB."""

    def readAll(self, size):
        buf = bytearray(size)
        view, have = memoryview(buf), 0
        while have < size:
            try:
                got = self.handle.recv_into(view[have:])
            except socket.timeout as err:
                raise TTransport.TTransportException(TTransport.TTransportException.TIMED_OUT,
                                                     "read timeout", inner=err) from None
            except OSError as err:
                raise TTransport.TTransportException(message="unexpected exception",
                                                     inner=err) from None
            if got == 0:
                raise TTransport.TTransportException(
                    TTransport.TTransportException.END_OF_FILE, "TSocket read 0 bytes")
            have += got
        return bytes(buf)

    def write(self, buff):
        if not self.handle:
            raise TTransport.TTransportException(TTransport.TTransportException.NOT_OPEN,
                                                 "Transport not open")
        try:
            self.handle.sendall(buff)
        except OSError as err:
            raise TTransport.TTransportException(message="unexpected exception",
                                                 inner=err) from None


class ServerSocket(TSocket.TServerSocket):
    """Listens once (so the bound port is known before serve()) and sets TCP_NODELAY on
    every accepted connection."""

    def listen(self):
        if self.handle is None:
            super().listen()

    def accept(self):
        client, _ = self.handle.accept()
        _no_delay(client)
        result = Socket()
        result.setHandle(client)
        return result


POOL_THREADS = 4


def _thread_pool(*args, daemon):
    """TThreadPoolServer with POOL_THREADS workers, each serving one connection for its
    whole life (more connections wait in its queue until one ends)."""
    server = TServer.TThreadPoolServer(*args, daemon=daemon)
    server.setNumThreads(POOL_THREADS)
    return server


# Server configurations (PROTOCOL.md 11.5.4), rr's first: a thread per connection, or a
# fixed pool. (TNonblockingServer needs the framed transport, which 10.3 does not use.)
SERVER_MODELS = {"threaded": TServer.TThreadedServer, "thread-pool-4": _thread_pool}


def start(endpoint, options, bench, protocol):
    listener = ServerSocket(host=endpoint.host, port=endpoint.port, socket_family=socket.AF_INET)
    listener.listen()
    bound = listener.handle.getsockname()[1]
    server = base.configuration(options, SERVER_MODELS)(
        Bench.Processor(base.Handler(bench)), listener, TTransport.TBufferedTransportFactory(),
        PROTOCOLS[protocol][1](fallback=False), daemon=True)
    return format_host_port(endpoint.host, bound), server.serve


class Client(base.Client):
    TYPES = {"small": Small, "medium": Medium, "large": Large}

    def __init__(self, endpoint, options, protocol):
        sock = Socket(host=endpoint.host, port=endpoint.port, socket_family=socket.AF_INET)
        sock.setTimeout(options.io_timeout * 1000)
        self._transport = TTransport.TBufferedTransport(sock)
        self._transport.open()
        _no_delay(sock.handle)
        protocol = PROTOCOLS[protocol][0](self._transport, fallback=False)
        super().__init__(Bench.Client(protocol))

    def close(self):
        self._transport.close()


def error(err):
    if isinstance(err, TTransport.TTransportException):
        if err.type == TTransport.TTransportException.TIMED_OUT:
            return ReceiveTimeout(f"thrift: no answer within --io-timeout: {err}")
        inner = getattr(err, "inner", None)
        return IoError(f"thrift: {err}" + (f" ({inner})" if inner else ""))
    if isinstance(err, TApplicationException):
        return ProtocolError(f"thrift application exception {err.type}: {err.message}")
    return base.unknown_error("thrift", err)  # another TException: the protocol
