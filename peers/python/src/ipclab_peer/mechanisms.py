"""The one table of the mechanisms this peer implements (PROTOCOL.md sections 4 and 10).

Each entry says everything the rest of the peer needs to know about a mechanism: its endpoint
grammar (transport/endpoints.py), its family (how the client drives it and the server serves
it), how a client connects, how a server listens, and the largest payload it carries here.
The command line (cli.py), the client (client.py), the server (server.py) and the
`capabilities` answer (capabilities.py) all read this table; no other module names a
mechanism. The patterns each family supports are in patterns.py.

    connect(endpoint, drive config) -> what the family's drivers use (a link, a native call,
                                       an RPC session); None: the mechanism cannot drive
    listen(endpoint, serve config, cleanup) -> a listener with `endpoint` (for READY);
                                       None: the mechanism cannot serve
    max_payload(), max_message()       the largest frame payload (rr) and stream message here
    patterns                           the patterns (patterns.py) its client drives
    server_models                      the burst server models (burst/models.py) it serves
    load_models                        the server models its load server runs (PROTOCOL.md
                                       11.5.1, 11.5.4 for RPC: the framework's server
                                       configurations; given exactly when `load` is in patterns)
    connect_each(endpoint, config, C) -> RPC, pattern load: C clients with a connection each
    shared_queue                       sysv-mq, posix-mq, pattern load (PROTOCOL.md 11.5.5):
                                       the shared request queue's server and client sides
                                       (transport/shared_queues.py)
    connect_short(endpoint, drive config, i) -> connection i of pattern short made ready
                                       before the clock (tcp, uds: the socket, tcp's source
                                       bind), with connect() -> link and close(); None: the
                                       sample opens with connect (a queue's open)

Adding a kernel mechanism: a transport (a connector and a listener in transport/) and one
entry here.
"""
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from typing import Callable, Optional

from . import inproc
from .burst.models import MODELS as SERVER_MODELS
from .frame import HEADER_SIZE, MAX_PAYLOAD
from .rpc import Framework
from .transport import connect, datagram, endpoints, files, listeners, shared_queues, shm

# Families: how the client drives (patterns.py) and the server serves (server.py).
FRAMES = "frames"        # section 2 frames over a stream-like link, one client at a time
DATAGRAMS = "datagrams"  # section 2 frames, one per datagram, answered per source address
INPROC = "inproc"        # section 4.4: no server, a function call
RPC = "rpc"              # section 10: the framework's own protocol, structured payloads too
BROKER = "broker"        # section 4.7: section 2 frames as messages through a broker's queues
ZMQ = "zmq"              # section 4.8: section 2 frames as ZeroMQ messages (REQ/REP, PUSH/PULL)
NNG = "nng"              # section 4.9: section 2 frames as NNG messages (REQ/REP, PUSH/PULL)
REDIS = "redis"          # section 4.10: section 2 frames as elements of Redis lists
NATS = "nats"            # section 4.11: section 2 frames as NATS messages (request-reply)
ICEORYX2 = "iceoryx2"    # section 4.12: section 2 frames as iceoryx2 samples (publish-subscribe)
# The server's max_payload (NATS's cap, 64 MiB) is a whole message: a frame's header with its
# payload, a stream message alone (4.11).
NATS_MESSAGE = 64 << 20
# iceoryx2's largest payload and stream message (4.12): a publisher's pool holds up to 18
# samples of its largest frame.
ICEORYX2_LARGEST = 16 << 20


def _everything():
    return MAX_PAYLOAD


@dataclass(frozen=True)
class Mechanism:
    name: str
    family: str
    endpoint: endpoints.Grammar
    connect: Optional[Callable]
    listen: Optional[Callable]
    # The largest request or response payload on this machine (computed when asked).
    max_payload: Callable[[], int] = _everything
    # The largest stream message (PROTOCOL.md 11.1 item 10: a whole datagram, no header).
    max_message: Callable[[], int] = _everything
    # Drive flags (config fields) this mechanism cannot do without.
    requires: tuple = ()
    patterns: tuple = ("rr",)
    connect_short: Optional[Callable] = None
    # RPC, pattern load (PROTOCOL.md 11.5.4): rpc.Framework.connect_each.
    connect_each: Optional[Callable] = None
    # Pattern load over a message queue (PROTOCOL.md 11.5.5): shared_queues.SharedQueue.
    shared_queue: Optional[shared_queues.SharedQueue] = None
    # The burst server models (PROTOCOL.md 11.4, burst/models.py) its server runs.
    server_models: tuple = ()
    load_models: tuple = ()
    # The variants it implements (variants.py: contract 3's "nodelay-off", "rest-json",
    # "corba-string", "delivery" (--delivery at all); contract 6's "read-size", "backlog",
    # "source-one", "mock-new-array", "sample-write-header"), and why `--nodelay off` is
    # unsupported where the contract allows it.
    variants: tuple = ()
    nodelay_off_unsupported: str = ""
    # The codec of an RPC framework where it has more than one (capabilities' `codec`).
    codec: str = ""
    # The messaging library and its version (capabilities' `library`), computed when asked.
    library: Optional[Callable[[], str]] = None

    @property
    def roles(self):
        return tuple(role for role, how in (("serve", self.listen), ("drive", self.connect))
                     if how is not None)


def _imported(module):
    """The connect, listen or library of a message library's transport (transport/<module>.py:
    activemq's amqp, zeromq, nng, redis_lists, nats_subjects, iceoryx2_samples), imported on
    first use: the library is loaded only by a peer that uses it, never by `capabilities` of
    another mechanism. `fixed`: keyword arguments the entry adds (iceoryx2's wait)."""
    def role(name, **fixed):
        def start(*args):
            transport = import_module(f"{__package__}.transport.{module}")
            return getattr(transport, name)(*args, **fixed)
        return start
    return role


_amqp, _zmq, _nng, _redis, _nats, _iceoryx2 = map(_imported, (
    "amqp", "zeromq", "nng", "redis_lists", "nats_subjects", "iceoryx2_samples"))


# Pattern sets (PROTOCOL.md section 11's table).
RR = ("rr",)
STREAM = ("rr", "stream")
SHORT = ("rr", "short")
ALL = ("rr", "stream", "short")
LOAD = ALL + ("load",)


def _iceoryx2_entry(name, wait):
    """iceoryx2 (`wait` "event") or iceoryx2-spin ("spin"), transport/iceoryx2_samples.py."""
    return Mechanism(name, ICEORYX2, endpoints.ICEORYX2, _iceoryx2("connect", mode=wait),
                     _iceoryx2("listen", mode=wait), lambda: ICEORYX2_LARGEST,
                     lambda: ICEORYX2_LARGEST, patterns=STREAM, library=_iceoryx2("library"),
                     variants=("sample-write-header",))


def _kernel(name, grammar, client, server, patterns=STREAM, **more):
    return Mechanism(name, FRAMES, grammar, client, server, patterns=patterns, **more)


def _shm(name, mode):
    return _kernel(name, endpoints.POSIX, partial(connect.posix_shm, mode=mode),
                   partial(listeners.posix_shm, mode=mode))


def _files(name, waiter):
    return _kernel(name, endpoints.DIRECTORY, partial(connect.file, waiter=waiter),
                   partial(listeners.FileListener, waiter=waiter))


def _datagrams(name, grammar, client, server, max_payload, max_message):
    return Mechanism(name, DATAGRAMS, grammar, client, server, max_payload, max_message,
                     patterns=STREAM)


def _rpc(name, module, load_models, grammar=endpoints.INET, patterns=RR, variants=(),
         why_not="", codec="", **variant):
    """An RPC mechanism with pattern load (11.5.4) served by the framework's own server in
    each configuration of `load_models` (its module's SERVER_MODELS; the first is rr's);
    without load_models, no pattern load."""
    framework = Framework(module, **variant)
    return Mechanism(name, RPC, grammar, framework.connect, framework.listen,
                     patterns=patterns + (("load",) if load_models else ()), variants=variants,
                     nodelay_off_unsupported=why_not, connect_each=framework.connect_each,
                     load_models=load_models, codec=codec)


# grpcio's core sets TCP_NODELAY on every socket it opens, unconditionally, and offers no
# channel or server argument to leave it off (only a C socket mutator, which Python cannot pass).
GRPC_NAGLE = ("grpcio's core sets TCP_NODELAY on every socket it opens and has no channel or "
              "server option to leave Nagle's algorithm on")


# The load server models over a message queue (PROTOCOL.md 11.5.5, load/queue_server.py).
QUEUE_MODELS = ("iterative", "thread-pool")


# The RPC load servers' configurations (PROTOCOL.md 11.5.4), the rr server's first; each
# framework module maps them in its SERVER_MODELS (kept here so that `capabilities` imports
# no framework). README.md says what each is.
REST_MODELS = ("asyncio",)
GRPC_MODELS = ("thread-pool-4", "thread-pool-1")
THRIFT_MODELS = ("threaded", "thread-pool-4")
ICE_MODELS = ("thread-pool-1", "thread-pool-4")
CORBA_MODELS = ("thread-per-connection", "thread-pool")
# Thrift's Python library has a pure-Python and a C codec per protocol; both thrift mechanisms
# use the C one, without fallback (rpc/thrift_rpc.py).
THRIFT_CODEC = "C (fastbinary)"


MECHANISMS = {mechanism.name: mechanism for mechanism in (
    _kernel("tcp", endpoints.INET, connect.tcp, listeners.TcpListener, LOAD,
            connect_short=connect.tcp_short, server_models=tuple(SERVER_MODELS),
            load_models=tuple(SERVER_MODELS),
            variants=("nodelay-off", "read-size", "backlog", "source-one")),
    _datagrams("udp", endpoints.INET, datagram.connect_udp, datagram.listen_udp,
               datagram.udp_max_payload, datagram.udp_max_datagram),
    _kernel("uds", endpoints.SOCKET_PATH, connect.uds, listeners.UdsListener, LOAD,
            connect_short=connect.uds_unconnected, load_models=tuple(SERVER_MODELS),
            variants=("read-size", "backlog")),
    _datagrams("uds-dgram", endpoints.SOCKET_PATH, datagram.connect_uds, datagram.listen_uds,
               datagram.uds_dgram_max_payload, datagram.uds_dgram_max_datagram),
    _kernel("pipe", endpoints.FDS, connect.pipe, listeners.PipeListener,
            variants=("read-size",)),
    _kernel("fifo", endpoints.DIRECTORY, connect.fifo, listeners.FifoListener,
            variants=("read-size",)),
    _kernel("sysv-mq", endpoints.SYSV_MQ, connect.sysv_mq, listeners.sysv_mq, LOAD,
            load_models=QUEUE_MODELS, shared_queue=shared_queues.SYSV),
    _kernel("posix-mq", endpoints.POSIX, connect.posix_mq, listeners.posix_mq, LOAD,
            load_models=QUEUE_MODELS, shared_queue=shared_queues.POSIX),
    _kernel("sysv-shm", endpoints.SYSV, connect.sysv_shm, listeners.sysv_shm),
    _files("file", files.InotifyWaiter),
    _files("file-poll", files.PollWaiter),
    _shm("shm", shm.HYBRID),
    _shm("shm-spin", shm.SPIN),
    _shm("shm-futex", shm.FUTEX),
    Mechanism("none", INPROC, endpoints.INPROC, inproc.no_call, None,
              variants=("mock-new-array",)),
    Mechanism("ctypes", INPROC, endpoints.INPROC, inproc.load_library, None,
              requires=("native_library",)),
    _rpc("rest", "rest", REST_MODELS, patterns=SHORT, variants=("nodelay-off", "rest-json")),
    _rpc("grpc", "grpc_rpc", GRPC_MODELS, patterns=STREAM, why_not=GRPC_NAGLE),
    _rpc("thrift-binary", "thrift_rpc", THRIFT_MODELS, codec=THRIFT_CODEC, protocol="binary"),
    _rpc("thrift-compact", "thrift_rpc", THRIFT_MODELS, codec=THRIFT_CODEC,
         protocol="compact"),
    _rpc("ice", "ice_rpc", ICE_MODELS),
    _rpc("corba", "corba", CORBA_MODELS, endpoints.CORBA, variants=("corba-string",)),
    # No load: protocol/mechanisms.toml gives soap no many_clients (rr only, PROTOCOL.md 10.3).
    _rpc("soap", "soap", ()),
    # --delivery (PROTOCOL.md 1, 4.7) is this mechanism's only.
    Mechanism("activemq", BROKER, endpoints.BROKER, _amqp("connect"), _amqp("listen"),
              patterns=STREAM, variants=("delivery",)),
    # ZeroMQ (PROTOCOL.md 4.8): rr and stream, one client at a time (no short, no load).
    Mechanism("zmq-tcp", ZMQ, endpoints.ZMQ_TCP, _zmq("connect"), _zmq("listen"),
              patterns=STREAM, library=_zmq("library")),
    Mechanism("zmq-ipc", ZMQ, endpoints.SOCKET_PATH, _zmq("connect"), _zmq("listen"),
              patterns=STREAM, library=_zmq("library")),
    # NNG (PROTOCOL.md 4.9): rr and stream, one client at a time (no short, no load); its
    # endpoints have ZeroMQ's grammar.
    Mechanism("nng-tcp", NNG, endpoints.ZMQ_TCP, _nng("connect"), _nng("listen"),
              patterns=STREAM, library=_nng("library")),
    Mechanism("nng-ipc", NNG, endpoints.SOCKET_PATH, _nng("connect"), _nng("listen"),
              patterns=STREAM, library=_nng("library")),
    # Redis (PROTOCOL.md 4.10): rr and stream through a Redis server's lists (no short, load).
    Mechanism("redis-tcp", REDIS, endpoints.REDIS_TCP, _redis("connect"), _redis("listen"),
              patterns=STREAM, library=_redis("library")),
    Mechanism("redis-uds", REDIS, endpoints.REDIS_UDS, _redis("connect"), _redis("listen"),
              patterns=STREAM, library=_redis("library")),
    # NATS (PROTOCOL.md 4.11): rr and stream through a NATS server (no short, load).
    Mechanism("nats", NATS, endpoints.NATS, _nats("connect"), _nats("listen"),
              lambda: NATS_MESSAGE - HEADER_SIZE, lambda: NATS_MESSAGE, patterns=STREAM,
              library=_nats("library")),
    # iceoryx2 (PROTOCOL.md 4.12): rr and stream as samples of two publish-subscribe services,
    # each side woken by an iceoryx2 event or polling (no short, load).
    _iceoryx2_entry("iceoryx2", "event"),
    _iceoryx2_entry("iceoryx2-spin", "spin"),
)}
