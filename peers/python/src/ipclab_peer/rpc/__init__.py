"""RPC middleware of PROTOCOL.md section 10: one module per framework, each with a server
`start(endpoint, options, bench, **variant) -> (READY endpoint, wait)`, a client class
`Client(endpoint, options, **variant)` and `error(exception) -> PeerError` (what a framework
exception means in the contract's kinds). What every framework shares is in service.py (the
server's operations), base.py (the glue over generated skeletons and stubs) and drive.py (the
client's round trips). mechanisms.py names the framework of each RPC mechanism.

The stubs are generated at build time by generate_rpc.py into peers/python/.build/rpcgen,
which is put on sys.path only when an RPC mechanism is used.
"""
import contextlib
import importlib
import sys
from collections import namedtuple
from pathlib import Path

from ..errors import PeerError, Unsupported

GENERATED = Path(__file__).resolve().parents[3] / ".build" / "rpcgen"

# A connected client and the framework's error translation; pattern load's clients.
Session = namedtuple("Session", "client error")
Clients = namedtuple("Clients", "clients error")


@contextlib.contextmanager
def _translated(module):
    """The framework's exceptions, in the contract's kinds."""
    try:
        yield
    except PeerError:
        raise
    except Exception as err:  # noqa: BLE001 - whatever the framework raises
        raise module.error(err) from None


class Listener:
    """A started RPC server: its READY endpoint, and `wait()`, which blocks while it serves
    (shutdown ends the process from another thread)."""

    def __init__(self, endpoint, wait):
        self.endpoint = endpoint
        self.wait = wait


class Framework:
    """One framework module (`module` in this package), imported on first use; `variant` is
    passed to its server and client (e.g. thrift's protocol)."""

    def __init__(self, module, **variant):
        self.module = module
        self.variant = variant

    def load(self):
        """The module; unsupported when its library or generated stubs are missing."""
        if str(GENERATED) not in sys.path:
            sys.path.append(str(GENERATED))
        try:
            return importlib.import_module(f"{__name__}.{self.module}")
        except ImportError as err:
            raise Unsupported(f"{self.module} is not available: {err} (run "
                              "peers/python/generate_rpc.py after installing "
                              "requirements.lock)") from None

    def connect(self, endpoint, options):
        """A Session with a client connected before the warm-up (PROTOCOL.md 10.1)."""
        module = self.load()
        with _translated(module):
            return Session(module.Client(endpoint, options, **self.variant), module.error)

    @contextlib.contextmanager
    def connect_each(self, endpoint, options, count):
        """Pattern load (PROTOCOL.md 11.5.4): a Clients of `count` clients, each with a
        transport connection of its own, all connected before T0 and closed at the end. A
        module with `shared(options, count)` makes one runtime (an Ice communicator, an ORB)
        that its clients share, passed to each as `shared` with its `index`."""
        module = self.load()
        made, runtime = [], None
        try:
            with _translated(module):
                runtime = module.shared(options, count) if hasattr(module, "shared") else None
                for index in range(count):
                    sharing = {} if runtime is None else {"shared": runtime, "index": index}
                    made.append(module.Client(endpoint, options, **self.variant, **sharing))
            yield Clients(made, module.error)
        finally:
            for client in made:
                client.close()
            if runtime is not None:
                runtime.destroy()

    def listen(self, endpoint, options, cleanup):
        from .service import Bench

        module = self.load()
        bench = Bench(options.seed, options.fault)
        if options.server_model is not None:
            bench.warm()
        return Listener(*module.start(endpoint, options, bench, **self.variant))
