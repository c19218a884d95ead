"""grpc (PROTOCOL.md 10.3): grpcio's sync server on a thread pool, a sync stub on one
insecure channel (pattern load: one per connection, each with its own subchannel), message
size limits raised, per-call deadline = --io-timeout."""
import queue
from concurrent import futures

import grpc
import ipclab_grpc_pb2 as pb
from google.protobuf.empty_pb2 import Empty
import ipclab_grpc_pb2_grpc as pb_grpc

from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..transport.endpoints import format_host_port
from . import base

# Over the contract's 256 MiB minimum, under grpc's int32 option limit.
MESSAGE_LIMIT = 1 << 30
OPTIONS = [("grpc.max_send_message_length", MESSAGE_LIMIT),
           ("grpc.max_receive_message_length", MESSAGE_LIMIT)]
# Server configurations (PROTOCOL.md 11.5.4): the sync server's ThreadPoolExecutor size. rr's
# is the first: a benchmark client makes one call at a time, a few threads leave room for a
# second client; with one worker, calls from all clients are served one after another.
SERVER_MODELS = {"thread-pool-4": 4, "thread-pool-1": 1}
# Pattern load: channels with equal arguments share one subchannel (one TCP connection) in
# grpc's global pool; a pool of its own per channel gives each its own connection.
LOAD_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]
# StreamAck's fields, in END_ACK's order (frame.STREAM_ACK).
STREAM_ACK_FIELDS = ("received", "gaps", "checksum", "user_ns", "sys_ns", "voluntary",
                     "involuntary")


class Servicer(pb_grpc.BenchServicer):
    def __init__(self, bench):
        self._bench = bench

    def Call(self, request, context):
        return pb.CallReply(response=bytes(self._bench.call(request.seq, request.wanted,
                                                             request.request)))

    def _echo(self, request, context):
        return self._bench.echo(request)

    EchoSmall = EchoMedium = EchoLarge = _echo

    def Finish(self, request, context):
        return pb.FinishReply(corrupted=self._bench.finish())

    def Put(self, request, context):
        self._bench.put(request.seq, request.request)
        return Empty()

    def _put(self, request, context):
        return Empty()

    PutSmall = PutMedium = PutLarge = _put

    def Stream(self, request_iterator, context):
        fields = self._bench.stream((chunk.seq, chunk.data) for chunk in request_iterator)
        return pb.StreamAck(**dict(zip(STREAM_ACK_FIELDS, fields)))


def start(endpoint, options, bench):
    """Serves on the endpoint's host and returns the bound HOST:PORT; grpc's threads do the
    rest."""
    workers = base.configuration(options, SERVER_MODELS)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers), options=OPTIONS)
    pb_grpc.add_BenchServicer_to_server(Servicer(bench), server)
    port = server.add_insecure_port(str(endpoint))
    if port == 0:
        raise IoError(f"cannot listen on {endpoint}")
    server.start()
    return format_host_port(endpoint.host, port), server.wait_for_termination


def _connect(channel, endpoint, timeout):
    """Connects before the warm-up. channel_ready_future would retry a refused connection
    until the timeout; the first TRANSIENT_FAILURE already says the server is not there."""
    outcome = queue.Queue()

    def watch(state):
        if state in (grpc.ChannelConnectivity.READY,
                     grpc.ChannelConnectivity.TRANSIENT_FAILURE):
            outcome.put(state)

    channel.subscribe(watch, try_to_connect=True)
    try:
        state = outcome.get(timeout=timeout)
    except queue.Empty:
        raise ReceiveTimeout(f"no connection to {endpoint} within --io-timeout "
                             f"({timeout} s)") from None
    finally:
        channel.unsubscribe(watch)
    if state != grpc.ChannelConnectivity.READY:
        raise IoError(f"cannot connect to {endpoint}: connection failed")


class Client(base.Client):
    """grpc's stub methods are CamelCase, take message objects and a deadline."""

    TYPES = {"small": pb.Small, "medium": pb.Medium, "large": pb.Large}

    def __init__(self, endpoint, options):
        self._timeout = options.io_timeout
        load = LOAD_OPTIONS if options.pattern == "load" else []
        self._channel = grpc.insecure_channel(str(endpoint), options=OPTIONS + load)
        try:
            _connect(self._channel, endpoint, options.io_timeout)
        except BaseException:
            self._channel.close()
            raise
        super().__init__(pb_grpc.BenchStub(self._channel), call=self._call, put=self._put)

    def _call(self, sequence, wanted, request):
        reply = self._stub.Call(pb.CallRequest(seq=sequence, wanted=wanted, request=request),
                                timeout=self._timeout)
        return reply.response

    def _put(self, sequence, request):
        self._stub.Put(pb.PutRequest(seq=sequence, request=request), timeout=self._timeout)

    def _with_deadline(self, name):
        method, timeout = getattr(self._stub, name), self._timeout
        return lambda value: method(value, timeout=timeout)

    def echo(self, kind):
        return self._with_deadline("Echo" + kind.capitalize())

    def putter(self, kind):
        return self._with_deadline("Put" + kind.capitalize())

    def finish(self):
        return self._stub.Finish(pb.FinishRequest(), timeout=self._timeout).corrupted

    chunk = staticmethod(lambda sequence, data: pb.Chunk(seq=sequence, data=data))

    def stream(self, chunks):
        """One client-streaming call -> END_ACK's seven fields. No deadline: --io-timeout
        bounds one wait, and a deadline would bound the whole stream (a lost connection
        still ends the call, as UNAVAILABLE)."""
        ack = self._stub.Stream(chunks)
        return tuple(getattr(ack, name) for name in STREAM_ACK_FIELDS)

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
