"""ice (PROTOCOL.md 10.3): ZeroC Ice 3.7 from Debian's python3-zeroc-ice (made importable
by generate_rpc.py), object `bench` on one `tcp` endpoint, Ice.MessageSizeMax raised on both
sides, invocation timeout = --io-timeout. Ice sets TCP_NODELAY on its sockets itself. Pattern
load: one communicator, a proxy per connection with its own connection id."""
import contextlib

import Ice
import ipclabice

from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..transport.endpoints import format_host_port
from . import base
from .base import Handler

# In KiB: 1 GiB, over the contract's 256 MiB minimum.
MESSAGE_SIZE_MAX_KIB = 1 << 20
IDENTITY = "bench"


# Server configurations (PROTOCOL.md 11.5.4): the size of the server thread pool that
# dispatches every connection's calls. rr's is the first, Ice's default (1 thread).
SERVER_MODELS = {"thread-pool-1": 1, "thread-pool-4": 4}


def communicator(**properties):
    data = Ice.InitializationData()
    data.properties = Ice.createProperties()
    data.properties.setProperty("Ice.MessageSizeMax", str(MESSAGE_SIZE_MAX_KIB))
    for name, value in properties.items():
        data.properties.setProperty(name, str(value))
    return Ice.initialize(data)


class Servant(Handler, ipclabice.Bench):
    pass


def start(endpoint, options, bench):
    ice = communicator(**{"Ice.ThreadPool.Server.Size": base.configuration(options,
                                                                          SERVER_MODELS)})
    adapter = ice.createObjectAdapterWithEndpoints(
        "Bench", f"tcp -h {endpoint.host} -p {endpoint.port}")
    adapter.add(Servant(bench), Ice.stringToIdentity(IDENTITY))
    adapter.activate()
    bound = adapter.getEndpoints()[0].getInfo().port
    return format_host_port(endpoint.host, bound), ice.waitForShutdown


class Client(base.Client):
    TYPES = {"small": ipclabice.Small, "medium": ipclabice.Medium, "large": ipclabice.Large}

    def __init__(self, endpoint, options, shared=None, index=0):
        """rr: a communicator of its own; pattern load: the `shared` one, the proxy with a
        connection id of its own (Ice reuses a connection only between proxies with equal
        endpoints and ids)."""
        self._ice = shared or communicator()
        with base.destroyed_on_error(self._ice) if shared is None else contextlib.nullcontext():
            proxy = self._ice.stringToProxy(
                f"{IDENTITY}:tcp -h {endpoint.host} -p {endpoint.port}")
            if shared is not None:
                proxy = proxy.ice_connectionId(f"load-{index}")
            stub = ipclabice.BenchPrx.uncheckedCast(
                proxy.ice_invocationTimeout(max(1, round(options.io_timeout * 1000))))
            stub.ice_ping()  # connects before the warm-up
        self._owned = shared is None
        super().__init__(stub)

    def close(self):
        if self._owned:
            self._ice.destroy()


def shared(options, count):
    """Pattern load: one communicator for all the clients (rpc.Framework.connect_each)."""
    return communicator()


def error(err):
    if isinstance(err, (Ice.InvocationTimeoutException, Ice.TimeoutException)):
        return ReceiveTimeout(f"ice: no answer within --io-timeout: {err.ice_id()}")
    if isinstance(err, (Ice.SocketException, Ice.ConnectFailedException,
                        Ice.ConnectionLostException, Ice.ConnectionRefusedException,
                        Ice.CommunicatorDestroyedException)):
        return IoError(f"ice: {err.ice_id()}: {err}")
    if isinstance(err, Ice.Exception):
        return ProtocolError(f"ice: {err.ice_id()}: {' '.join(str(err).split())}")
    return ProtocolError(f"ice: {type(err).__name__}: {err}")
