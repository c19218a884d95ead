"""RPC middleware of PROTOCOL.md section 10: one module per framework, each with a server
`start(endpoint, options, bench, **variant) -> (READY endpoint, wait)`, a client class
`Client(endpoint, options, **variant)` and `error(exception) -> PeerError` (what a framework
exception means in the contract's kinds). What every framework shares is in service.py (the
server's operations), base.py (the glue over generated skeletons and stubs) and drive.py (the
client's round trips). mechanisms.py names the framework of each RPC mechanism.

The stubs are generated at build time by generate_rpc.py into peers/python/.build/rpcgen,
which is put on sys.path only when an RPC mechanism is used.
"""
import importlib
import sys
from collections import namedtuple
from pathlib import Path

from ..errors import PeerError, Unsupported

GENERATED = Path(__file__).resolve().parents[3] / ".build" / "rpcgen"

# A connected client and the framework's error translation.
Session = namedtuple("Session", "client error")


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
        try:
            return Session(module.Client(endpoint, options, **self.variant), module.error)
        except PeerError:
            raise
        except Exception as err:  # noqa: BLE001 - the framework's exceptions, in contract kinds
            raise module.error(err) from None

    def listen(self, endpoint, options, cleanup):
        from .service import Bench

        module = self.load()
        bench = Bench(options.seed, options.fault)
        return Listener(*module.start(endpoint, options, bench, **self.variant))
