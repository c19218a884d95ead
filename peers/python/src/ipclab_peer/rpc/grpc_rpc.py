"""grpc (PROTOCOL.md 10.3): grpcio's sync server on a thread pool, a sync stub on one
insecure channel, message size limits raised, per-call deadline = --io-timeout."""
import queue
from concurrent import futures

import grpc
import ipclab_grpc_pb2 as pb
import ipclab_grpc_pb2_grpc as pb_grpc

from .. import structs
from ..errors import IoError, ProtocolError, ReceiveTimeout

# Over the contract's 256 MiB minimum, under grpc's int32 option limit.
MESSAGE_LIMIT = 1 << 30
OPTIONS = [("grpc.max_send_message_length", MESSAGE_LIMIT),
           ("grpc.max_receive_message_length", MESSAGE_LIMIT)]
TYPES = {"small": pb.Small, "medium": pb.Medium, "large": pb.Large}
# A benchmark client makes one call at a time; a few threads leave room for a second client.
SERVER_THREADS = 4


def check_sizes(config):
    """Protobuf carries any size the contract allows (its limit is 2 GiB)."""


class Servicer(pb_grpc.BenchServicer):
    def __init__(self, bench):
        self._bench = bench

    def Call(self, request, context):
        return pb.CallReply(response=bytes(self._bench.call(request.seq, request.wanted,
                                                             request.request)))

    def _echo(self, value):
        value.n2 = self._bench.echo_n2(value.n2)
        return value

    def EchoSmall(self, request, context):
        return self._echo(request)

    def EchoMedium(self, request, context):
        return self._echo(request)

    def EchoLarge(self, request, context):
        return self._echo(request)

    def Finish(self, request, context):
        return pb.FinishReply(corrupted=self._bench.finish())


def start(config, bench):
    """Serves on 127.0.0.1 and returns the bound HOST:PORT; grpc's threads do the rest."""
    host, _ = config.endpoint.rsplit(":", 1)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=SERVER_THREADS),
                         options=OPTIONS)
    pb_grpc.add_BenchServicer_to_server(Servicer(bench), server)
    port = server.add_insecure_port(config.endpoint)
    if port == 0:
        raise IoError(f"cannot listen on {config.endpoint}")
    server.start()

    def serve_forever():
        server.wait_for_termination()
        return 0
    return f"{host}:{port}", serve_forever


def _connect(channel, config):
    """Connects before the warm-up. channel_ready_future would retry a refused connection
    until the timeout; the first TRANSIENT_FAILURE already says the server is not there."""
    outcome = queue.Queue()

    def watch(state):
        if state in (grpc.ChannelConnectivity.READY,
                     grpc.ChannelConnectivity.TRANSIENT_FAILURE):
            outcome.put(state)

    channel.subscribe(watch, try_to_connect=True)
    try:
        state = outcome.get(timeout=config.io_timeout)
    except queue.Empty:
        raise ReceiveTimeout(f"no connection to {config.endpoint} within --io-timeout "
                             f"({config.io_timeout} s)") from None
    finally:
        channel.unsubscribe(watch)
    if state != grpc.ChannelConnectivity.READY:
        raise IoError(f"cannot connect to {config.endpoint}: connection failed")


class Client:
    def __init__(self, config):
        self._timeout = config.io_timeout
        self._channel = grpc.insecure_channel(config.endpoint, options=OPTIONS)
        try:
            _connect(self._channel, config)
        except BaseException:
            self._channel.close()
            raise
        self._stub = pb_grpc.BenchStub(self._channel)

    def call(self, sequence, wanted, request):
        reply = self._stub.Call(pb.CallRequest(seq=sequence, wanted=wanted, request=request),
                                timeout=self._timeout)
        return reply.response

    def struct(self, kind, record):
        return TYPES[kind](**record)

    @staticmethod
    def stamp(value, n1):
        value.n1 = n1

    def echo(self, kind):
        method = {"small": self._stub.EchoSmall, "medium": self._stub.EchoMedium,
                  "large": self._stub.EchoLarge}[kind]
        timeout = self._timeout
        return lambda value: method(value, timeout=timeout)

    @staticmethod
    def fields(kind, value):
        return {name: getattr(value, name) for name in structs.field_names(kind)}

    def finish(self):
        return self._stub.Finish(pb.FinishRequest(), timeout=self._timeout).corrupted

    def close(self):
        self._channel.close()


def error(err):
    if isinstance(err, grpc.RpcError) and hasattr(err, "code"):
        code, details = err.code(), err.details()
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return ReceiveTimeout(f"grpc call exceeded --io-timeout: {details}")
        if code == grpc.StatusCode.UNAVAILABLE:
            return IoError(f"grpc: {details}")
        return ProtocolError(f"grpc status {code.name}: {details}")
    return ProtocolError(f"grpc: {type(err).__name__}: {err}")
