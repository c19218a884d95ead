"""The soap server (PROTOCOL.md 10.3): spyne, code-first, serving the messages that
protocol/idl/ipclab_soap.wsdl describes (document/literal wrapped, SOAP 1.1, namespace
urn:ipclab:soap, POST /soap), on a threaded wsgiref server made HTTP/1.1 keep-alive.

The spyne declarations below must give the committed WSDL's element names, namespace, types
and occurrences exactly; tests/test_soap.py compares spyne's generated WSDL (GET ?wsdl) with
the committed one and calls every operation with a zeep client built from the committed file.
What spyne's WSDL names differently (soapAction = the bare operation name, message, part,
portType, binding and service names, named types for the wrapper elements) does not change
a message on the wire; spyne dispatches on the body's element, not on SOAPAction.
"""
import logging
import socket
import sys
from base64 import b64decode
from socketserver import ThreadingMixIn
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from spyne import Application, ComplexModel, ServiceBase, rpc
from spyne.model.binary import ByteArray
from spyne.model.fault import Fault
from spyne.model.primitive import Boolean, Double, Integer32, Integer64, Unicode
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

from .. import structs
from ..errors import IoError, report
from ..frame import MAX_PAYLOAD
from ..transport.endpoints import format_host_port
from .base import MASK

TNS = "urn:ipclab:soap"
PATH = "/soap"
# The contract's minimum for every framework's message limit is 256 MiB; a 128 MiB payload is
# about 171 MiB of base64 plus the envelope.
MAX_BODY = 1 << 30
# spyne reads a request body in blocks of this size (its default, 8 KiB, is 16384 reads for
# 128 MiB).
READ_BLOCK = 1 << 20


class _Failures(logging.Handler):
    """An exception in an operation (a bug: spyne answers soap:Fault Server "Internal Error")
    reported on one line (PROTOCOL.md 5); spyne logs it on spyne.application.server."""

    def emit(self, record):
        report("internal", f"soap server: {record.getMessage()}")


# spyne logs every fault it answers (a client's invalid request among them) with a traceback;
# the fault is the answer, and a server's stderr is for its own failures.
logging.getLogger("spyne").setLevel(logging.CRITICAL + 1)
_FAILURES = logging.getLogger("spyne.application.server")
_FAILURES.setLevel(logging.CRITICAL)
_FAILURES.propagate = False
_FAILURES.addHandler(_Failures())

# The WSDL's occurrences: a plain element is required and not nillable (spyne's defaults are
# minOccurs="0" nillable="true"), a sequence is a repeated element (no spyne Array wrapper).
ONE = {"min_occurs": 1, "nillable": False}
MANY = {"min_occurs": 0, "max_occurs": "unbounded", "nillable": False}
SCALARS = {"n": Integer32, "s": Unicode, "b": Boolean, "d": Double}
ELEMENTS = {"li": Integer32, "ls": Unicode, "ld": Double}


def _record_type(kind):
    """Small, Medium or Large: the fields of PROTOCOL.md 10.2 in the WSDL's (generation)
    order, made from structs so that the names exist once."""
    fields = []
    for name in structs.field_names(kind):
        prefix = name.rstrip("0123456789")
        fields.append((name, SCALARS[prefix](**ONE) if prefix in SCALARS
                       else ELEMENTS[prefix](**MANY)))
    return type(kind.capitalize(), (ComplexModel,), {"__namespace__": TNS,
                                                      "_type_info": fields})


Small, Medium, Large = (_record_type(kind).customize(**ONE) for kind in structs.KINDS)
# Wrapped document/literal; the response wrapper's one child is `result`.
ANSWER = {"_body_style": "wrapped", "_out_variable_name": "result"}
VOID = {"_body_style": "wrapped"}  # putResponse and its kin are empty


def _bench(ctx):
    return ctx.app.bench


def _bytes(value):
    """spyne hands a base64Binary over as a tuple of byte chunks (one, when decoded)."""
    return b"".join(value)


class Bench(ServiceBase):
    """The operations of PROTOCOL.md 10.1; `seq` arrives signed (xsd:long)."""

    @rpc(Integer64(**ONE), Integer32(**ONE), ByteArray(**ONE), _returns=ByteArray(**ONE),
         **ANSWER)
    def call(ctx, seq, wanted, request):
        if not 0 <= wanted <= MAX_PAYLOAD:
            raise Fault("Client.ValidationError", f"wanted must be 0 ... {MAX_PAYLOAD}")
        # A memoryview: base64 encodes it without a copy (spyne refuses a bytearray).
        return memoryview(_bench(ctx).call(seq & MASK, wanted, _bytes(request)))

    @rpc(Small, _returns=Small, **ANSWER)
    def echoSmall(ctx, record):  # noqa: N802 - the WSDL's names
        return _bench(ctx).echo(record)

    @rpc(Medium, _returns=Medium, **ANSWER)
    def echoMedium(ctx, record):  # noqa: N802
        return _bench(ctx).echo(record)

    @rpc(Large, _returns=Large, **ANSWER)
    def echoLarge(ctx, record):  # noqa: N802
        return _bench(ctx).echo(record)

    @rpc(_returns=Integer64(**ONE), **ANSWER)
    def finish(ctx):
        return _bench(ctx).finish()

    @rpc(Integer64(**ONE), ByteArray(**ONE), **VOID)
    def put(ctx, seq, request):
        _bench(ctx).put(seq & MASK, _bytes(request))

    # The record is parsed and validated by spyne; there is nothing more to do with it.
    @rpc(Small, **VOID)
    def putSmall(ctx, record):  # noqa: N802
        pass

    @rpc(Medium, **VOID)
    def putMedium(ctx, record):  # noqa: N802
        pass

    @rpc(Large, **VOID)
    def putLarge(ctx, record):  # noqa: N802
        pass


class _Soap11(Soap11):
    """spyne's SOAP 1.1 with its base64Binary reader replaced (the one ByteArray type here):
    spyne 2.14 joins the element's text character by character before decoding (about 0.1 s
    per MiB) and rejects an empty element (a 0-byte request, valid XML Schema) for having no
    text. The schema has checked the text already (validator="lxml")."""

    def byte_array_from_element(self, ctx, cls, element):
        return (b64decode(element.text) if element.text else b"",)


def application(bench):
    """The WSGI application. Requests are validated against spyne's schema (the WSDL's, see
    the module's docstring) by libxml2: a missing, extra or misplaced element, a value not of
    its type (an int out of 32 bits, a boolean that is not one) or a nil is answered
    soap:Fault Client.SchemaValidationError (spyne's "soft" validation lets most of these
    through). huge_tree lets lxml take text nodes over 10 MB (base64 of 128 MiB)."""
    app = Application([Bench], tns=TNS, name="ipclab_soap",
                      in_protocol=_Soap11(validator="lxml", huge_tree=True),
                      out_protocol=Soap11())
    app.bench = bench
    return WsgiApplication(app, max_content_length=MAX_BODY, block_length=READ_BLOCK)


def _routed(app):
    """The WSGI application at PATH (and `PATH?wsdl`); elsewhere 404."""
    def route(environ, start_response):
        if environ.get("PATH_INFO") != PATH:
            start_response("404 Not Found", [("Content-Type", "text/plain"),
                                             ("Content-Length", "0")])
            return [b""]
        return app(environ, start_response)
    return route


class _Body:
    """wsgi.input limited to the request's Content-Length, so that what the application
    leaves unread can be skipped and the next request on the connection starts in place."""

    def __init__(self, stream, length):
        self._stream, self.left = stream, length

    def read(self, size=-1):
        size = self.left if size is None or size < 0 else min(size, self.left)
        data = self._stream.read(size) if size else b""
        self.left -= len(data)
        return data

    def drain(self):
        while self.left and self.read(READ_BLOCK):
            pass


class _Answer(ServerHandler):
    """wsgiref's handler answers HTTP/1.0; this one answers HTTP/1.1 and keeps the connection
    only when the response says how long it is."""

    http_version = "1.1"

    def cleanup_headers(self):
        super().cleanup_headers()
        if "Content-Length" not in self.headers:
            self.headers["Connection"] = "close"
            self.request_handler.close_connection = True


class _Connection(WSGIRequestHandler):
    """wsgiref's request handler serves one request per connection; this one serves requests
    until the client closes (HTTP/1.1 keep-alive) and sets TCP_NODELAY (PROTOCOL.md 10.3)."""

    protocol_version = "HTTP/1.1"
    # Buffered: the status line, the headers and the body's start leave in one send.
    wbufsize = 1 << 16

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self):
        self.close_connection = False
        while not self.close_connection:
            self.handle_one_request()

    def handle_one_request(self):
        self.raw_requestline = self.rfile.readline(65537)
        if not self.raw_requestline:
            self.close_connection = True
            return
        try:
            if len(self.raw_requestline) > 65536:
                self.send_error(414)  # its "Connection: close" ends the loop
            elif self.parse_request():  # else it has answered the error
                self._answer()
        finally:
            self.wfile.flush()

    def handle_expect_100(self):
        """curl asks before a body over 1 KiB; the answer must leave before the body comes."""
        answered = super().handle_expect_100()
        self.wfile.flush()
        return answered

    def _answer(self):
        length = self.headers.get("Content-Length") or "0"
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        if not (length.isascii() and length.isdigit()) or chunked:
            # The application reads Content-Length bytes; another body would stay unread.
            self.send_error(411, "a SOAP request needs a Content-Length")
            return
        body = _Body(self.rfile, int(length))
        handler = _Answer(body, self.wfile, self.get_stderr(), self.get_environ(),
                          multithread=True)
        handler.request_handler = self
        handler.run(self.server.get_app())
        body.drain()

    def log_message(self, *args):
        pass  # no access log: a server writes only diagnostics on stderr (PROTOCOL.md 5)


class _Server(ThreadingMixIn, WSGIServer):
    """A thread per connection (the framework's standard threaded server, PROTOCOL.md 10.1)."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        """A client that goes away is the client's business; anything else is reported on
        one line (socketserver would print a traceback)."""
        kind, err = sys.exc_info()[:2]
        if not issubclass(kind, ConnectionError):
            report("internal", f"soap server: {kind.__name__}: {err}")


def start(endpoint, options, bench):
    """Listens on the endpoint's host (127.0.0.1, port 0: the system's choice) and returns
    the bound HOST:PORT and serve_forever."""
    try:
        server = _Server((endpoint.host, endpoint.port), _Connection)
    except OSError as err:
        raise IoError(f"cannot listen on {endpoint}: {err.strerror or err}") from None
    server.set_app(_routed(application(bench)))
    return format_host_port(endpoint.host, server.server_address[1]), server.serve_forever
