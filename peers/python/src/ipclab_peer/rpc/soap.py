"""soap (PROTOCOL.md 10.3): a zeep client built from the committed WSDL
(protocol/idl/ipclab_soap.wsdl), its service bound to http://HOST:PORT/soap, over one
requests.Session whose pool holds one kept-alive HTTP/1.1 connection with TCP_NODELAY; the
server is spyne's (soap_server.py).

--io-timeout is zeep's operation timeout, requests' timeout of each call (connect and every
wait for the answer)."""
import socket
from pathlib import Path

import requests
import zeep
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection
from zeep.exceptions import Fault, TransportError

from ..errors import IoError, ProtocolError, ReceiveTimeout
from . import base

WSDL = Path(__file__).resolve().parents[5] / "protocol" / "idl" / "ipclab_soap.wsdl"
TNS = "urn:ipclab:soap"
BINDING = f"{{{TNS}}}BenchBinding"
TYPES = {kind: f"{{{TNS}}}{kind.capitalize()}" for kind in ("small", "medium", "large")}
NODELAY = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _OneConnection(HTTPAdapter):
    """A pool of one connection (the contract's one HTTP connection kept alive) whose socket
    has TCP_NODELAY (urllib3 sets it by default; named here so that it stays set)."""

    def __init__(self):
        super().__init__(pool_connections=1, pool_maxsize=1, max_retries=0)

    def init_poolmanager(self, *args, **kwargs):
        options = [o for o in HTTPConnection.default_socket_options if o[:2] != NODELAY[:2]]
        kwargs["socket_options"] = options + [NODELAY]
        super().init_poolmanager(*args, **kwargs)


def start(endpoint, options, bench):
    """The server (spyne), imported only by a server: a client needs zeep alone."""
    from .soap_server import start as serve

    return serve(endpoint, options, bench)


def _client(endpoint, timeout):
    """A zeep client of the committed WSDL, bound to the endpoint's /soap."""
    session = requests.Session()
    # Not the environment's proxy settings: requests would scan os.environ on every call
    # (about half a millisecond each), inside the timed region, for a loopback address.
    session.trust_env = False
    session.mount("http://", _OneConnection())
    transport = zeep.Transport(session=session, timeout=timeout, operation_timeout=timeout)
    # xml_huge_tree: lxml refuses text nodes over 10 MB otherwise (base64 of 128 MiB).
    settings = zeep.Settings(xml_huge_tree=True)
    client = zeep.Client(wsdl=str(WSDL), transport=transport, settings=settings)
    return session, client, client.create_service(BINDING, f"http://{endpoint}/soap")


class Client(base.Client):
    """zeep's service proxy has the WSDL's operations with its parameter names; a wrapped
    response comes back as its one child, `result` (None for the void operations)."""

    def __init__(self, endpoint, options):
        self._session, self._zeep, stub = _client(endpoint, options.io_timeout)
        super().__init__(stub, call=self._call, put=self._put)
        self.TYPES = {kind: self._zeep.get_type(name) for kind, name in TYPES.items()}
        # Opens the one connection before the warm-up (PROTOCOL.md 10.3: a first HTTP
        # request): `finish`, which every server answers and which resets nothing that
        # exists yet.
        stub.finish()

    def _call(self, sequence, wanted, request):
        result = self._stub.call(seq=sequence, wanted=wanted, request=request)
        # An empty base64Binary element comes back as None.
        return b"" if result is None else result

    def _put(self, sequence, request):
        self._stub.put(seq=sequence, request=request)

    def echo(self, kind):
        method = getattr(self._stub, base.ECHOES[kind])
        return lambda value: method(record=value)

    def putter(self, kind):
        method = getattr(self._stub, base.PUTS[kind])
        return lambda value: method(record=value)

    @staticmethod
    def fields(kind, value):
        fields = base.Client.fields(kind, value)
        # A repeated element that is absent (a sequence of length 0) is an empty list.
        return {name: [] if got is None and name.startswith("l") else got
                for name, got in fields.items()}

    def finish(self):
        return self._stub.finish() & base.MASK

    def close(self):
        self._session.close()


def error(err):
    if isinstance(err, Fault):
        return ProtocolError(f"soap:Fault {err.code}: {err.message}")
    if isinstance(err, requests.Timeout):
        return ReceiveTimeout(f"soap: no answer within --io-timeout: {err}")
    if isinstance(err, requests.ConnectionError):
        return IoError(f"soap: {type(err).__name__}: {err}")
    if isinstance(err, TransportError):
        return ProtocolError(f"soap: HTTP {err.status_code}: {err.message}")
    return base.unknown_error("soap", err)  # zeep.exceptions.Error: the protocol
