"""rest's server (rest.py): aiohttp on the main thread's event loop."""
import asyncio
import re
import socket
import weakref

import orjson
from aiohttp import web

from .. import structs
from ..frame import MAX_PAYLOAD
from ..transport.endpoints import format_host_port
from .rest import JSON, MAX_BODY, NO_CONTENT, OCTETS, U64_MAX, bytes_of_json, json_bytes, \
    parse_record

_UNSIGNED = re.compile(r"[0-9]+")


def _unsigned(text, maximum, what):
    if text is None or not _UNSIGNED.fullmatch(text) or int(text) > maximum:
        raise web.HTTPBadRequest(text=f"{what} must be an unsigned decimal integer "
                                      f"up to {maximum}")
    return int(text)


def _record_of(kind, body):
    """The request's record, or 400 naming what is wrong with it."""
    try:
        return parse_record(kind, body)
    except ValueError as err:
        raise web.HTTPBadRequest(text=f"malformed {kind} record: {err}") from None


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
