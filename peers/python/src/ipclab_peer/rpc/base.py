"""The glue every framework with generated skeletons and stubs shares (corba, ice, thrift; grpc
and rest reuse parts): the five operations of PROTOCOL.md 10.1 on the server, and the client
calls over a stub whose methods carry the IDL's names."""
import contextlib

from .. import structs
from ..errors import IoError, ProtocolError

MASK = (1 << 64) - 1
ECHOES = {"small": "echoSmall", "medium": "echoMedium", "large": "echoLarge"}
PUTS = {"small": "putSmall", "medium": "putMedium", "large": "putLarge"}


def unknown_error(framework, err):
    """What a framework error no mapping of its own knows becomes: a socket's is io, anything
    else the framework's protocol."""
    if isinstance(err, OSError):
        return IoError(f"{framework}: {err}")
    return ProtocolError(f"{framework}: {type(err).__name__}: {err}")


@contextlib.contextmanager
def destroyed_on_error(runtime):
    """Destroys a framework runtime (ORB, Ice communicator) if connecting fails in the block."""
    try:
        yield runtime
    except BaseException:
        runtime.destroy()
        raise


def configuration(options, models):
    """The server configuration `serve --pattern load --server-model NAME` names in `models`
    (a module's SERVER_MODELS, PROTOCOL.md 11.5.4); without one (rr), the first: rr's."""
    return models[options.server_model or next(iter(models))]


class Handler:
    """The server's operations over service.Bench. Thrift and omniORB call them with the IDL's
    arguments, Ice adds `current`. `seq` arrives signed where the IDL says i64."""

    def __init__(self, bench):
        self._bench = bench

    def call(self, seq, wanted, request, current=None):
        return bytes(self._bench.call(seq & MASK, wanted, request))

    def _echo(self, value, current=None):
        return self._bench.echo(value)

    echoSmall = echoMedium = echoLarge = _echo

    def finish(self, current=None):
        return self._bench.finish()

    def callString(self, seq, wanted, request, current=None):  # noqa: N802 - the IDL's name
        return self._bench.call_string(seq & MASK, wanted, request)

    # The void operations (--void): the framework's empty reply.
    def put(self, seq, request, current=None):
        self._bench.put(seq & MASK, request)

    def _put(self, value, current=None):
        pass

    putSmall = putMedium = putLarge = _put


class Client:
    """A client over `stub` (call, echoSmall, echoMedium, echoLarge, finish, put, putSmall,
    putMedium, putLarge) and the framework's generated record types `TYPES` (kind -> type).
    drive.py uses: call(sequence, wanted, request) -> bytes-like, put(sequence, request),
    struct(kind, record) -> value, stamp(value, n1), echo(kind) and putter(kind) -> the stub
    method, fields(kind, value) -> dict, finish() -> int, close()."""

    TYPES = {}
    # True where `call` carries text (corba's callString): drive.py maps the payloads.
    text = False

    def __init__(self, stub, call=None, put=None):
        self._stub = stub
        # Bound straight to the stub where it has the IDL's operations: no wrapper call inside
        # the timed region.
        self.call = call or stub.call
        self.put = put or stub.put

    def struct(self, kind, record):
        return self.TYPES[kind](**record)

    @staticmethod
    def stamp(value, n1):
        value.n1 = n1

    def echo(self, kind):
        return getattr(self._stub, ECHOES[kind])

    def putter(self, kind):
        return getattr(self._stub, PUTS[kind])

    @staticmethod
    def fields(kind, value):
        return {name: getattr(value, name) for name in structs.field_names(kind)}

    def finish(self):
        return self._stub.finish() & MASK

    def close(self):
        pass
