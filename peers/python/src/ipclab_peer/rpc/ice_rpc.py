"""ice (PROTOCOL.md 10.3): ZeroC Ice 3.7 from Debian's python3-zeroc-ice (made importable
by generate_rpc.py), object `bench` on one `tcp` endpoint, Ice.MessageSizeMax raised on both
sides, invocation timeout = --io-timeout. Ice sets TCP_NODELAY on its sockets itself."""
import Ice
import ipclabice

from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..transport.endpoints import format_host_port
from . import base
from .base import Handler

# In KiB: 1 GiB, over the contract's 256 MiB minimum.
MESSAGE_SIZE_MAX_KIB = 1 << 20
IDENTITY = "bench"


def communicator():
    data = Ice.InitializationData()
    data.properties = Ice.createProperties()
    data.properties.setProperty("Ice.MessageSizeMax", str(MESSAGE_SIZE_MAX_KIB))
    return Ice.initialize(data)


class Servant(Handler, ipclabice.Bench):
    pass


def start(endpoint, options, bench):
    ice = communicator()
    adapter = ice.createObjectAdapterWithEndpoints(
        "Bench", f"tcp -h {endpoint.host} -p {endpoint.port}")
    adapter.add(Servant(bench), Ice.stringToIdentity(IDENTITY))
    adapter.activate()
    bound = adapter.getEndpoints()[0].getInfo().port
    return format_host_port(endpoint.host, bound), ice.waitForShutdown


class Client(base.Client):
    TYPES = {"small": ipclabice.Small, "medium": ipclabice.Medium, "large": ipclabice.Large}

    def __init__(self, endpoint, options):
        self._ice = communicator()
        with base.destroyed_on_error(self._ice):
            proxy = self._ice.stringToProxy(
                f"{IDENTITY}:tcp -h {endpoint.host} -p {endpoint.port}")
            stub = ipclabice.BenchPrx.uncheckedCast(
                proxy.ice_invocationTimeout(max(1, round(options.io_timeout * 1000))))
            stub.ice_ping()  # connects before the warm-up
        super().__init__(stub)

    def close(self):
        self._ice.destroy()


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
