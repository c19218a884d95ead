"""rest (PROTOCOL.md 10.3, protocol/idl/rest.md): an aiohttp server (rest_server.py) and an httpx
sync client on one kept-alive connection (rest_client.py), orjson for the JSON bodies; here what
both sides share (the bodies' forms and the records' checks). Each side imports only its own
library, on first use: a server never loads httpx nor a client aiohttp (together about 0.5 s of
CPU at every start of a peer).
TCP_NODELAY: aiohttp sets it on every accepted connection; httpcore sets it on its sockets,
and the client asks for it explicitly as well. `--nodelay off` turns it off again on both sides
(neither library has an option to leave it off): the server on a connection's first request,
the client right after httpcore's connect."""
import base64
import binascii
import importlib

import orjson

from .. import structs

U64_MAX = (1 << 64) - 1
# The contract's minimum for every framework's message limit is 256 MiB.
MAX_BODY = 1 << 30
HTTP_CLIENT = "httpx"  # the one --http-client this peer has
OCTETS = "application/octet-stream"
JSON = "application/json"
OK, NO_CONTENT = 200, 204
# Server configurations (PROTOCOL.md 11.5.4): aiohttp serves every connection on one asyncio
# event loop (the main thread's); it has no other in one process.
SERVER_MODELS = {"asyncio": None}
INT32 = (-(1 << 31), (1 << 31) - 1)
# The framework interface (rpc/__init__.py), each name from the side that has it.
_SIDES = {"start": "rest_server", "application": "rest_server", "Client": "rest_client",
          "error": "rest_client"}


def __getattr__(name):
    if name in _SIDES:
        return getattr(importlib.import_module(f"{__package__}.{_SIDES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
