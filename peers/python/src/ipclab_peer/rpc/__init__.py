"""RPC middleware of PROTOCOL.md section 10: one module per framework, each with a server
(`start(config, bench)`) and a client (`Client(config)`), over the shared service logic of
service.py and the shared client loop of drive.py.

The stubs are generated at build time by generate_rpc.py into peers/python/.build/rpcgen,
which is put on sys.path only when an RPC mechanism is used.
"""
import importlib
import sys
from pathlib import Path

from ..errors import Unsupported

# The contract's RPC mechanisms; rmi is Java only.
MECHANISMS = ("rest", "grpc", "thrift-binary", "thrift-compact", "ice", "corba", "rmi")
MODULES = {
    "rest": "rest",
    "grpc": "grpc_rpc",
    "thrift-binary": "thrift_rpc",
    "thrift-compact": "thrift_rpc",
    "ice": "ice_rpc",
    "corba": "corba",
}
GENERATED = Path(__file__).resolve().parents[3] / ".build" / "rpcgen"


def load(mechanism):
    """The framework module of an RPC mechanism; unsupported when it is not implemented here
    or its library or generated stubs are missing."""
    name = MODULES.get(mechanism)
    if name is None:
        raise Unsupported(f"mechanism {mechanism!r} is not implemented")
    if str(GENERATED) not in sys.path:
        sys.path.append(str(GENERATED))
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError as err:
        raise Unsupported(f"mechanism {mechanism!r} is not available: {err} (run "
                          "peers/python/generate_rpc.py after installing requirements.lock)") \
            from None


def parse_endpoint(mechanism, text, role):
    """Checks an RPC endpoint's syntax: HOST:PORT, except a corba client's IOR:...;
    raises ValueError."""
    from ..transport.endpoints import parse_host_port

    if mechanism == "corba" and role == "drive":
        if not text.startswith("IOR:") or len(text) == 4:
            raise ValueError(f"expected IOR:..., got {text!r}")
        return text
    return parse_host_port(text)
