"""corba (PROTOCOL.md 10.3): omniORBpy from the cmeel-omniorbpy wheel, GIOP 1.2 over IIOP on
`giop:tcp:127.0.0.1:` (the system picks the port), giopMaxMsgSize raised on both sides; READY
gives the object's IOR, which the client passes to string_to_object. omniORB sets
TCP_NODELAY on its connections itself.

The wheel's `_omnipy` extension names libomniORB4.so.3 without a search path to find it
(it lives in the cmeel prefix of the virtualenv), so the libraries are loaded by absolute
path first; the dynamic linker then resolves `_omnipy`'s needs to them.
"""
import contextlib
import ctypes
import sys
import sysconfig
from pathlib import Path

from ..errors import IoError, ProtocolError, ReceiveTimeout
from . import base
from .base import Handler

CMEEL_LIB = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "lib"
for _library in ("libomnithread.so.4", "libomniORB4.so.3", "libomniDynamic4.so.3"):
    if (CMEEL_LIB / _library).exists():
        ctypes.CDLL(str(CMEEL_LIB / _library), mode=ctypes.RTLD_GLOBAL)

import CORBA  # noqa: E402 - needs the libraries above
import ipclab_corba  # noqa: E402
import ipclab_corba__POA  # noqa: E402
import omniORB  # noqa: E402
from omniORB import minorCodes  # noqa: E402

# Over the contract's 256 MiB minimum.
MAX_MESSAGE = 1 << 30


def _orb(*options):
    args = [sys.argv[0] or "ipclab-peer", "-ORBgiopMaxMsgSize", str(MAX_MESSAGE), *options]
    return CORBA.ORB_init(args, CORBA.ORB_ID)


class Servant(Handler, ipclab_corba__POA.Bench):
    pass


# Server configurations (PROTOCOL.md 11.5.4), rr's first: omniORB's default, a thread per
# connection, or its thread pool (any pool thread serves a call from any connection, at most
# maxServerThreadPoolSize, 100 by default).
SERVER_MODELS = {"thread-per-connection": (),
                 "thread-pool": ("-ORBthreadPerConnectionPolicy", "0")}


def start(endpoint, options, bench):
    orb = _orb("-ORBendPoint", f"giop:tcp:{endpoint.host}:{endpoint.port or ''}",
               *base.configuration(options, SERVER_MODELS))
    poa = orb.resolve_initial_references("RootPOA")
    reference = poa.servant_to_reference(Servant(bench))
    poa._get_the_POAManager().activate()
    return orb.object_to_string(reference), orb.run


class Client(base.Client):
    TYPES = {"small": ipclab_corba.Small, "medium": ipclab_corba.Medium,
             "large": ipclab_corba.Large}

    def __init__(self, endpoint, options, shared=None, index=0):
        """rr: an ORB of its own; pattern load: the `shared` one (`index` is not needed:
        omniORB picks the connection per call, see shared())."""
        self._owned = shared is None
        self._orb = shared or _client_orb(options)
        with base.destroyed_on_error(self._orb) if self._owned else contextlib.nullcontext():
            stub = self._orb.string_to_object(endpoint.text)._narrow(ipclab_corba.Bench)
            if stub is None:
                raise ProtocolError("the IOR does not name an ipclab_corba::Bench")
            stub._non_existent()  # connects before the warm-up
        # --corba-payload string: callString, the payloads as text (PROTOCOL.md 10.1).
        self.text = options.corba_payload == "string"
        super().__init__(stub, call=stub.callString if self.text else None)

    def close(self):
        if self._owned:
            self._orb.destroy()


def _client_orb(options, *more):
    return _orb("-ORBclientCallTimeOutPeriod", str(max(1, round(options.io_timeout * 1000))),
                *more)


def shared(options, count):
    """Pattern load: one ORB for all the clients (omniORB has one per process). It shares its
    connections to a server among all object references: a call takes an idle connection or
    opens a new one, up to maxGIOPConnectionPerServer (5 by default; raised to the clients, so
    that no call waits for a connection)."""
    return _client_orb(options, "-ORBmaxGIOPConnectionPerServer", str(count))


def error(err):
    if isinstance(err, CORBA.TRANSIENT) and err.minor == minorCodes.TRANSIENT_CallTimedout:
        return ReceiveTimeout(f"corba: no answer within --io-timeout: {err}")
    if isinstance(err, (CORBA.TRANSIENT, CORBA.COMM_FAILURE)):
        return IoError(f"corba: {type(err).__name__}: {omniORB.minorCodeToString(err)}")
    if isinstance(err, CORBA.BAD_PARAM) and "IOR" in str(err):
        return IoError(f"corba: bad IOR: {err}")
    return ProtocolError(f"corba: {type(err).__name__}: {err}")
