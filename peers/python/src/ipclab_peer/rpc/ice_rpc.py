"""ice (PROTOCOL.md 10.3): ZeroC Ice 3.7 from Debian's python3-zeroc-ice (made importable
by generate_rpc.py), object `bench` on one `tcp` endpoint, Ice.MessageSizeMax raised on both
sides, invocation timeout = --io-timeout. Ice sets TCP_NODELAY on its sockets itself."""
import Ice
import ipclabice

from .. import structs
from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..transport.endpoints import parse_host_port

MASK = (1 << 64) - 1
# In KiB: 1 GiB, over the contract's 256 MiB minimum.
MESSAGE_SIZE_MAX_KIB = 1 << 20
TYPES = {"small": ipclabice.Small, "medium": ipclabice.Medium, "large": ipclabice.Large}
IDENTITY = "bench"


def check_sizes(config):
    """Ice carries any size the contract allows once MessageSizeMax is raised."""


def communicator():
    data = Ice.InitializationData()
    data.properties = Ice.createProperties()
    data.properties.setProperty("Ice.MessageSizeMax", str(MESSAGE_SIZE_MAX_KIB))
    return Ice.initialize(data)


class Servant(ipclabice.Bench):
    def __init__(self, bench):
        self._bench = bench

    def call(self, seq, wanted, request, current=None):
        return bytes(self._bench.call(seq & MASK, wanted, request))

    def _echo(self, value, current=None):
        value.n2 = self._bench.echo_n2(value.n2)
        return value

    echoSmall = echoMedium = echoLarge = _echo

    def finish(self, current=None):
        return self._bench.finish()


def start(config, bench):
    host, port = parse_host_port(config.endpoint)
    ice = communicator()
    adapter = ice.createObjectAdapterWithEndpoints("Bench", f"tcp -h {host} -p {port}")
    adapter.add(Servant(bench), Ice.stringToIdentity(IDENTITY))
    adapter.activate()
    bound = adapter.getEndpoints()[0].getInfo().port

    def serve_forever():
        ice.waitForShutdown()
        return 0
    return f"{host}:{bound}", serve_forever


class Client:
    def __init__(self, config):
        host, port = parse_host_port(config.endpoint)
        self._ice = communicator()
        try:
            proxy = self._ice.stringToProxy(f"{IDENTITY}:tcp -h {host} -p {port}")
            self._proxy = ipclabice.BenchPrx.uncheckedCast(
                proxy.ice_invocationTimeout(max(1, round(config.io_timeout * 1000))))
            # Connects before the warm-up.
            self._proxy.ice_ping()
        except BaseException:
            self._ice.destroy()
            raise

    def call(self, sequence, wanted, request):
        return self._proxy.call(sequence, wanted, request)

    @staticmethod
    def struct(kind, record):
        return TYPES[kind](**record)

    @staticmethod
    def stamp(value, n1):
        value.n1 = n1

    def echo(self, kind):
        return {"small": self._proxy.echoSmall, "medium": self._proxy.echoMedium,
                "large": self._proxy.echoLarge}[kind]

    @staticmethod
    def fields(kind, value):
        return {name: getattr(value, name) for name in structs.field_names(kind)}

    def finish(self):
        return self._proxy.finish() & MASK

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
