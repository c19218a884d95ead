"""`serve --server-model M` (PROTOCOL.md 11.4): listen with the backlog, start what the model
needs before READY, serve with the model until N connections have ended or a signal or end of
stdin comes; then end every child, write the phases file and exit 0 (shutdown.Cleanup).

`serve --pattern load --server-model M` (11.5.1) is the same server with section 2's rr exchange
on each connection (load/exchange.py) instead of burst's one round trip; it ends only on a
signal or end of stdin and writes no file."""
import socket
import threading
from functools import partial

from .. import shutdown, variants
from ..errors import IoError, PeerError, Unsupported, describe_os_error, report
from ..load import exchange as load_exchange
from ..transport.endpoints import format_host_port
from . import record
from .children import Children
from .exchange import Frames, serve_async, serve_blocking
from .models import MODELS

LOAD = "load"
# How long a stopped server waits for its pool workers to report the connections in hand: one
# is written within microseconds of its answer; a worker on a held connection waits it out.
REPORT_GRACE = 0.5


class Burst:
    """What a model runs with (see models.py)."""

    def __init__(self, config, cleanup, mechanism):
        self.workers = config.workers
        self.frames = Frames(config.seed)
        if config.pattern == LOAD:
            self.log = record.Unkept()
            self.serve = partial(load_exchange.serve_blocking, config=config)
            self.serve_async = partial(load_exchange.serve_async, config=config)
            load_exchange.warm(config)
        else:
            self.log = record.PhaseLog()
            self.serve = partial(serve_blocking, frames=self.frames)
            self.serve_async = partial(serve_async, frames=self.frames)
            self.frames.warm()
        self.spawning = threading.Lock()
        self._left = config.connections
        self._counting = threading.Lock()
        self._cleanup = cleanup
        self.listener, self.endpoint = _listen(config, cleanup, mechanism)
        self.children = None

    def ended(self):
        """One connection ended; the N-th ends the server (a load server: never)."""
        if self._left is None:
            return
        with self._counting:
            self._left -= 1
            last = self._left == 0
        if last:
            self._cleanup.exit(0)

    def with_children(self):
        self.children = Children(self.log, self.ended)

    def finish(self, phases_file):
        """The clean-up's last acts: end the children, then write what was measured."""
        if self.children is not None:
            # Only a burst server keeps records worth waiting for (a load server's are dropped).
            self.children.end_all(grace=REPORT_GRACE if phases_file is not None else 0.0)
        # A hand-off in progress holds this: wait for it so its `spawn` is in the file.
        self.spawning.acquire(timeout=1.0)
        if phases_file is not None:
            record.write_phases(phases_file, self.log.close())


def _listen(config, cleanup, mechanism):
    """(listening socket, READY's endpoint). A load server listens as the mechanism's own
    listener does (tcp, uds: transport/listeners.py, backlog 512, a uds file removed at the
    end); a burst server with its --backlog."""
    try:
        if config.pattern == LOAD:
            listener = mechanism.listen(config.endpoint, config, cleanup)
            return listener.sock, listener.endpoint
    except OSError as err:
        raise IoError(f"cannot listen on {config.endpoint}: {describe_os_error(err)}") from None
    sock = listen(config.endpoint, config.backlog)
    return sock, format_host_port(*sock.getsockname()[:2])


def listen(endpoint, backlog):
    family, _, _, _, address = socket.getaddrinfo(
        endpoint.host, endpoint.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    try:
        return socket.create_server(address, family=family, backlog=backlog)
    except OSError as err:
        raise IoError(f"cannot listen on {endpoint}: {describe_os_error(err)}") from None


def serve(config, mechanism, announce_ready):
    """Never returns: every way out goes through Cleanup.exit()."""
    cleanup = shutdown.Cleanup()
    with cleanup.held():
        shutdown.install(cleanup)
        model, burst = _start(config, mechanism, cleanup, announce_ready)
    try:
        model.run(burst)
    except Exception as err:  # noqa: BLE001 - report it, still end the children
        report("internal", f"{type(err).__name__}: {err}")
        cleanup.exit(PeerError.code)
    cleanup.exit(0)


def _check_supported(config, mechanism):
    load = config.pattern == LOAD
    models = (mechanism.load_models if load else mechanism.server_models) if mechanism else ()
    if config.server_model not in models:
        raise Unsupported(f"server model {config.server_model!r} is not implemented for "
                          f"{'load over ' if load else ''}mechanism {config.mechanism!r} "
                          f"(this peer has: {', '.join(models) or 'none'})")
    variants.check_serve(config, mechanism)
    if load and config.fault != "none":
        raise Unsupported(f"fault {config.fault!r}: this peer's load server injects no fault "
                          "(stall and capacity:N are the C++ peer's)")


def _start(config, mechanism, cleanup, announce_ready):
    with shutdown.exiting_on_error(cleanup):
        _check_supported(config, mechanism)
        model = MODELS[config.server_model]
        burst = Burst(config, cleanup, mechanism)
        with cleanup.creating() as created:
            created(lambda: burst.finish(config.phases_file))
        if model.name.startswith("process"):
            burst.with_children()
        model.prepare(burst)
        announce_ready(burst.endpoint, config.mechanism, server_model=config.server_model)
    return model, burst
