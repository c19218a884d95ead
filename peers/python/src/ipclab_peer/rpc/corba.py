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


def start(endpoint, options, bench):
    orb = _orb("-ORBendPoint", f"giop:tcp:{endpoint.host}:{endpoint.port or ''}")
    poa = orb.resolve_initial_references("RootPOA")
    reference = poa.servant_to_reference(Servant(bench))
    poa._get_the_POAManager().activate()
    return orb.object_to_string(reference), orb.run


class Client(base.Client):
    TYPES = {"small": ipclab_corba.Small, "medium": ipclab_corba.Medium,
             "large": ipclab_corba.Large}

    def __init__(self, endpoint, options):
        self._orb = _orb("-ORBclientCallTimeOutPeriod",
                         str(max(1, round(options.io_timeout * 1000))))
        with base.destroyed_on_error(self._orb):
            stub = self._orb.string_to_object(endpoint.text)._narrow(ipclab_corba.Bench)
            if stub is None:
                raise ProtocolError("the IOR does not name an ipclab_corba::Bench")
            stub._non_existent()  # connects before the warm-up
        # --corba-payload string: callString, the payloads as text (PROTOCOL.md 10.1).
        self.text = options.corba_payload == "string"
        super().__init__(stub, call=stub.callString if self.text else None)

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
