"""corba (PROTOCOL.md 10.3): omniORBpy from the cmeel-omniorbpy wheel, GIOP 1.2 over IIOP on
`giop:tcp:127.0.0.1:` (the system picks the port), giopMaxMsgSize raised on both sides; READY
gives the object's IOR, which the client passes to string_to_object. omniORB sets
TCP_NODELAY on its connections itself.

The wheel's `_omnipy` extension names libomniORB4.so.3 without a search path to find it
(it lives in the cmeel prefix of the virtualenv), so the libraries are loaded by absolute
path first; the dynamic linker then resolves `_omnipy`'s needs to them.
"""
import ctypes
import sys
import sysconfig
from pathlib import Path

from .. import structs
from ..errors import IoError, ProtocolError, ReceiveTimeout
from ..transport.endpoints import parse_host_port

CMEEL_LIB = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "lib"
for _library in ("libomnithread.so.4", "libomniORB4.so.3", "libomniDynamic4.so.3"):
    if (CMEEL_LIB / _library).exists():
        ctypes.CDLL(str(CMEEL_LIB / _library), mode=ctypes.RTLD_GLOBAL)

import CORBA  # noqa: E402 - needs the libraries above
import ipclab_corba  # noqa: E402
import ipclab_corba__POA  # noqa: E402
import omniORB  # noqa: E402
from omniORB import minorCodes  # noqa: E402

MASK = (1 << 64) - 1
# Over the contract's 256 MiB minimum.
MAX_MESSAGE = 1 << 30
TYPES = {"small": ipclab_corba.Small, "medium": ipclab_corba.Medium,
         "large": ipclab_corba.Large}


def check_sizes(config):
    """GIOP carries any size the contract allows once giopMaxMsgSize is raised."""


def _orb(*options):
    args = [sys.argv[0] or "ipclab-peer", "-ORBgiopMaxMsgSize", str(MAX_MESSAGE), *options]
    return CORBA.ORB_init(args, CORBA.ORB_ID)


class Servant(ipclab_corba__POA.Bench):
    def __init__(self, bench):
        self._bench = bench

    def call(self, seq, wanted, request):
        return bytes(self._bench.call(seq & MASK, wanted, request))

    def _echo(self, value):
        value.n2 = self._bench.echo_n2(value.n2)
        return value

    echoSmall = echoMedium = echoLarge = _echo

    def finish(self):
        return self._bench.finish()


def start(config, bench):
    host, port = parse_host_port(config.endpoint)
    orb = _orb("-ORBendPoint", f"giop:tcp:{host}:{port or ''}")
    poa = orb.resolve_initial_references("RootPOA")
    reference = poa.servant_to_reference(Servant(bench))
    poa._get_the_POAManager().activate()

    def serve_forever():
        orb.run()
        return 0
    return orb.object_to_string(reference), serve_forever


class Client:
    def __init__(self, config):
        self._orb = _orb("-ORBclientCallTimeOutPeriod",
                         str(max(1, round(config.io_timeout * 1000))))
        try:
            self._bench = self._orb.string_to_object(config.endpoint)._narrow(
                ipclab_corba.Bench)
            if self._bench is None:
                raise ProtocolError("the IOR does not name an ipclab_corba::Bench")
            # Connects before the warm-up.
            self._bench._non_existent()
        except BaseException:
            self._orb.destroy()
            raise

    def call(self, sequence, wanted, request):
        return self._bench.call(sequence, wanted, request)

    @staticmethod
    def struct(kind, record):
        return TYPES[kind](**record)

    @staticmethod
    def stamp(value, n1):
        value.n1 = n1

    def echo(self, kind):
        return {"small": self._bench.echoSmall, "medium": self._bench.echoMedium,
                "large": self._bench.echoLarge}[kind]

    @staticmethod
    def fields(kind, value):
        return {name: getattr(value, name) for name in structs.field_names(kind)}

    def finish(self):
        return self._bench.finish()

    def close(self):
        self._orb.destroy()


def error(err):
    if isinstance(err, CORBA.TRANSIENT) and err.minor == minorCodes.TRANSIENT_CallTimedout:
        return ReceiveTimeout(f"corba: no answer within --io-timeout: {err}")
    if isinstance(err, (CORBA.TRANSIENT, CORBA.COMM_FAILURE)):
        return IoError(f"corba: {type(err).__name__}: {omniORB.minorCodeToString(err)}")
    if isinstance(err, CORBA.BAD_PARAM) and "IOR" in str(err):
        return IoError(f"corba: bad IOR: {err}")
    return ProtocolError(f"corba: {type(err).__name__}: {err}")
