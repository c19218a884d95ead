"""rest (PROTOCOL.md 10.3, protocol/idl/rest.md): an aiohttp server on the main thread's event
loop, an httpx sync client on one kept-alive connection, orjson for the JSON bodies.
TCP_NODELAY: aiohttp sets it on every accepted connection; httpcore sets it on its sockets,
and the client asks for it explicitly as well. `--nodelay off` turns it off again on both sides
(neither library has an option to leave it off): the server on a connection's first request,
the client right after httpcore's connect."""
import asyncio
import base64
import binascii
import re
import socket
import weakref

import httpcore
import httpx
import orjson
from aiohttp import web

from .. import structs
from ..errors import IoError, ProtocolError, ReceiveTimeout, Unsupported
from ..frame import MAX_PAYLOAD
from ..transport.endpoints import format_host_port

U64_MAX = (1 << 64) - 1
# The contract's minimum for every framework's message limit is 256 MiB.
MAX_BODY = 1 << 30
HTTP_CLIENT = "httpx"  # the one --http-client this peer has
OCTETS = "application/octet-stream"
JSON = "application/json"
OK, NO_CONTENT = 200, 204
LIMITS = httpx.Limits(max_connections=1, max_keepalive_connections=1)
# Server configurations (PROTOCOL.md 11.5.4): aiohttp serves every connection on one asyncio
# event loop (the main thread's); it has no other in one process.
SERVER_MODELS = {"asyncio": None}
_UNSIGNED = re.compile(r"[0-9]+")
INT32 = (-(1 << 31), (1 << 31) - 1)


def _unsigned(text, maximum, what):
    if text is None or not _UNSIGNED.fullmatch(text) or int(text) > maximum:
        raise web.HTTPBadRequest(text=f"{what} must be an unsigned decimal integer "
                                      f"up to {maximum}")
    return int(text)


def _is_int(value):
    return type(value) is int and INT32[0] <= value <= INT32[1]


def _is_double(value):
    return type(value) in (int, float)


CHECKS = {"n": _is_int, "s": lambda v: type(v) is str, "b": lambda v: type(v) is bool,
          "d": _is_double, "li": _is_int, "ls": lambda v: type(v) is str, "ld": _is_double}


def _field_kind(name):
    return name.rstrip("0123456789")


def parse_record(kind, body):
    """A JSON object with exactly the fields of `kind`, each of its type; raises ValueError."""
    value = orjson.loads(body)
    if not isinstance(value, dict):
        raise ValueError("the body is not a JSON object")
    names = structs.field_names(kind)
    if set(value) != set(names):
        missing, extra = set(names) - set(value), set(value) - set(names)
        raise ValueError(f"fields missing {sorted(missing)}, unexpected {sorted(extra)}")
    for name in names:
        prefix, item = _field_kind(name), value[name]
        check = CHECKS[prefix]
        if prefix in ("li", "ls", "ld"):
            if not isinstance(item, list) or not all(check(element) for element in item):
                raise ValueError(f"field {name} has the wrong type")
        elif not check(item):
            raise ValueError(f"field {name} has the wrong type")
    return value


def _record_of(kind, body):
    """The request's record, or 400 naming what is wrong with it."""
    try:
        return parse_record(kind, body)
    except ValueError as err:
        raise web.HTTPBadRequest(text=f"malformed {kind} record: {err}") from None


def as_doubles(kind, value):
    """JSON does not keep 1.0 apart from 1: double fields become floats again."""
    for name in structs.field_names(kind):
        prefix = _field_kind(name)
        if prefix == "d":
            value[name] = float(value[name])
        elif prefix == "ld":
            value[name] = [float(element) for element in value[name]]
    return value


def json_bytes(data):
    """The JSON body form of bytes (idl/rest.md): {"data": "<standard base64>"}."""
    return orjson.dumps({"data": base64.b64encode(data).decode("ascii")})


def bytes_of_json(body):
    """The bytes of a JSON body form; ValueError unless it is exactly that object."""
    value = orjson.loads(body)
    if not isinstance(value, dict) or set(value) != {"data"} or type(value["data"]) is not str:
        raise ValueError('the body is not {"data": "<base64>"}')
    try:
        return base64.b64decode(value["data"], validate=True)
    except binascii.Error as err:
        raise ValueError(f"data is not standard base64: {err}") from None


async def _bytes_body(request):
    """(the request's bytes, whether they came in the JSON form); 400 for a bad JSON form."""
    body = await request.read()
    if request.content_type != JSON:
        return body, False
    try:
        return bytes_of_json(body), True
    except ValueError as err:
        raise web.HTTPBadRequest(text=f"malformed body: {err}") from None


def _nagle_on():
    """Server middleware of `--nodelay off`: aiohttp set TCP_NODELAY when the connection was
    made; it is cleared before the connection's first response (one setsockopt per
    connection)."""
    cleared = weakref.WeakSet()

    @web.middleware
    async def nagle(request, handler):
        transport = request.transport
        if transport is not None and transport not in cleared:
            transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP,
                                                          socket.TCP_NODELAY, 0)
            cleared.add(transport)
        return await handler(request)
    return nagle


def application(bench, nodelay="on"):
    async def call(request):
        sequence = _unsigned(request.match_info["seq"], U64_MAX, "seq")
        wanted = _unsigned(request.query.get("wanted"), MAX_PAYLOAD, "wanted")
        body, as_json = await _bytes_body(request)
        response = bench.call(sequence, wanted, body)
        if as_json:
            return web.Response(body=json_bytes(response), content_type=JSON)
        return web.Response(body=bytes(response), content_type=OCTETS)

    def echo(kind):
        async def handle(request):
            value = _record_of(kind, await request.read())
            value["n2"] = bench.echo_n2(value["n2"])
            return web.Response(body=orjson.dumps(value), content_type=JSON)
        return handle

    async def finish(request):
        return web.Response(body=orjson.dumps({"corrupted": bench.finish()}), content_type=JSON)

    async def put(request):
        sequence = _unsigned(request.match_info["seq"], U64_MAX, "seq")
        bench.put(sequence, (await _bytes_body(request))[0])
        return web.Response(status=NO_CONTENT)

    def put_record(kind):
        async def handle(request):
            _record_of(kind, await request.read())
            return web.Response(status=NO_CONTENT)
        return handle

    middlewares = [] if nodelay == "on" else [_nagle_on()]
    app = web.Application(client_max_size=MAX_BODY, middlewares=middlewares)
    app.router.add_post("/call/{seq}", call)
    for kind in structs.KINDS:
        app.router.add_post(f"/echo/{kind}", echo(kind))
        # Before /put/{seq}: aiohttp takes the first route that matches.
        app.router.add_post(f"/put/{kind}", put_record(kind))
    app.router.add_post("/put/{seq}", put)
    app.router.add_post("/finish", finish)
    return app


def start(endpoint, options, bench):
    host, port = endpoint.host, endpoint.port
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    runner = web.AppRunner(application(bench, options.nodelay), access_log=None, handle_signals=False)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, host, port)
    loop.run_until_complete(site.start())
    bound = runner.addresses[0][1]
    return format_host_port(host, bound), loop.run_forever


class _NagleBackend(httpcore.SyncBackend):
    """httpcore sets TCP_NODELAY on every socket it connects, after the caller's socket
    options; `--nodelay off` clears it again before the first request."""

    def connect_tcp(self, *args, **kwargs):
        stream = super().connect_tcp(*args, **kwargs)
        stream.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)
        return stream


def _transport(nodelay):
    """One connection at a time; TCP_NODELAY as --nodelay says."""
    if nodelay == "on":
        return httpx.HTTPTransport(limits=LIMITS, socket_options=[
            (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    transport = httpx.HTTPTransport(limits=LIMITS)
    # httpx's transport takes no network backend; the httpcore pool under it does.
    transport._pool = httpcore.ConnectionPool(max_connections=1, max_keepalive_connections=1,
                                              network_backend=_NagleBackend())
    return transport


class Client:
    """The records are dicts; each operation is a POST (the interface of base.Client).
    Pattern short (PROTOCOL.md 11.3): every request says `Connection: close`, so each call
    opens its own connection and the server closes it after the response."""

    text = False  # bytes travel as bytes (corba's callString is the exception)

    def __init__(self, endpoint, options):
        if options.http_client not in (None, HTTP_CLIENT):
            raise Unsupported(f"--http-client {options.http_client}: the Python peer's HTTP "
                              f"client is {HTTP_CLIENT}")
        # --rest-body: the form of bytes bodies (idl/rest.md).
        as_json = options.rest_body == "json"
        self.call = self._call_json if as_json else self._call_octets
        self.put = self._put_json if as_json else self._put_octets
        short = options.pattern == "short"
        self._headers = {"Connection": "close"} if short else {}
        self._http = httpx.Client(base_url=f"http://{endpoint}",
                                  transport=_transport(options.nodelay),
                                  timeout=options.io_timeout)
        if not short:
            # Opens the one kept-alive connection before the warm-up; any answer (404) will do.
            self._http.get("/")

    def _post(self, path, body, content_type, status=OK):
        response = self._http.post(path, content=body,
                                   headers={"Content-Type": content_type, **self._headers})
        if response.status_code != status:
            raise ProtocolError(f"HTTP {response.status_code} from POST {path}: "
                                f"{response.text[:200]}")
        return response.content

    def _call_octets(self, sequence, wanted, request):
        return self._post(f"/call/{sequence}?wanted={wanted}", request, OCTETS)

    def _call_json(self, sequence, wanted, request):
        answer = self._post(f"/call/{sequence}?wanted={wanted}", json_bytes(request), JSON)
        try:
            return bytes_of_json(answer)
        except ValueError as err:
            raise ProtocolError(f"rest: the answer to call {sequence}: {err}") from None

    @staticmethod
    def struct(kind, record):
        return dict(record)

    @staticmethod
    def stamp(value, n1):
        value["n1"] = n1

    def _put_octets(self, sequence, request):
        self._post(f"/put/{sequence}", request, OCTETS, NO_CONTENT)

    def _put_json(self, sequence, request):
        self._post(f"/put/{sequence}", json_bytes(request), JSON, NO_CONTENT)

    def echo(self, kind):
        path, post = f"/echo/{kind}", self._post
        return lambda value: orjson.loads(post(path, orjson.dumps(value), JSON))

    def putter(self, kind):
        path, post = f"/put/{kind}", self._post
        return lambda value: post(path, orjson.dumps(value), JSON, NO_CONTENT)

    @staticmethod
    def fields(kind, value):
        if not isinstance(value, dict):
            raise ProtocolError(f"the echo of a {kind} record is not a JSON object")
        try:
            return as_doubles(kind, value)
        except (KeyError, TypeError, ValueError):
            return value  # a field of the wrong type: the comparison names it

    def finish(self):
        answer = orjson.loads(self._post("/finish", b"", OCTETS))
        if not isinstance(answer, dict) or type(answer.get("corrupted")) is not int:
            raise ProtocolError(f"/finish answered {answer!r}, not {{\"corrupted\": N}}")
        return answer["corrupted"]

    def close(self):
        self._http.close()


def error(err):
    if isinstance(err, httpx.TimeoutException):
        return ReceiveTimeout(f"rest: no answer within --io-timeout: {err}")
    if isinstance(err, httpx.TransportError):
        return IoError(f"rest: {type(err).__name__}: {err}")
    if isinstance(err, orjson.JSONDecodeError):
        return ProtocolError(f"rest: the server's JSON is malformed: {err}")
    return ProtocolError(f"rest: {type(err).__name__}: {err}")
