"""rest's client (rest.py): httpx, one kept-alive connection (or one a call for short)."""
import socket

import httpcore
import httpx
import orjson

from ..errors import IoError, ProtocolError, ReceiveTimeout, Unsupported
from .rest import HTTP_CLIENT, JSON, NO_CONTENT, OCTETS, OK, as_doubles, bytes_of_json, json_bytes

LIMITS = httpx.Limits(max_connections=1, max_keepalive_connections=1)


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
