"""`serve --server-model M` (PROTOCOL.md 11.4): listen with the backlog, start what the model
needs before READY, serve with the model until N connections have ended or a signal or end of
stdin comes; then end every child, write the phases file and exit 0 (shutdown.Cleanup)."""
import socket
import threading

from .. import shutdown
from ..errors import IoError, PeerError, Unsupported, describe_os_error, report
from ..transport.endpoints import format_host_port
from . import record
from .children import Children
from .exchange import Frames
from .models import MODELS


class Burst:
    """What a model runs with (see models.py)."""

    def __init__(self, config, cleanup):
        self.workers = config.workers
        self.log = record.PhaseLog()
        self.frames = Frames(config.seed)
        self.frames.warm()
        self.spawning = threading.Lock()
        self._left = config.connections
        self._counting = threading.Lock()
        self._cleanup = cleanup
        self.listener = listen(config.endpoint, config.backlog)
        self.children = None

    def ended(self):
        """One connection ended; the N-th ends the server."""
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
            self.children.end_all()
        # A hand-off in progress holds this: wait for it so its `spawn` is in the file.
        self.spawning.acquire(timeout=1.0)
        record.write_phases(phases_file, self.log.close())


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


def _start(config, mechanism, cleanup, announce_ready):
    with shutdown.exiting_on_error(cleanup):
        models = mechanism.server_models if mechanism else ()
        if config.server_model not in models:
            raise Unsupported(f"server model {config.server_model!r} is not implemented for "
                              f"mechanism {config.mechanism!r} (this peer has: "
                              f"{', '.join(models) or 'none'})")
        model = MODELS[config.server_model]
        burst = Burst(config, cleanup)
        with cleanup.creating() as created:
            created(lambda: burst.finish(config.phases_file))
        if model.name.startswith("process"):
            burst.with_children()
        model.prepare(burst)
        host, port = burst.listener.getsockname()[:2]
        announce_ready(format_host_port(host, port), config.mechanism,
                       server_model=config.server_model)
    return model, burst
