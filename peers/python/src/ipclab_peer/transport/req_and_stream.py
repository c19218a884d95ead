"""What the NNG and ZeroMQ transports (PROTOCOL.md 4.8, 4.9) share: a request socket (rr's frames,
a stream's MARK and END) beside a stream socket (a stream's messages), which over ipc are two
socket files, PATH and PATH.stream."""
import os
import stat

from ..errors import IoError
from .endpoints import Path, zmq_ipc_sockets


def client_sockets(endpoint):
    """The two addresses a client dials: --endpoint's pair, or ipc:// PATH and PATH.stream."""
    return zmq_ipc_sockets(endpoint) if isinstance(endpoint, Path) else endpoint


def bind_ipc_pair(path, cleanup, requests, stream):
    """`requests(url)` at ipc://PATH and `stream(url)` at ipc://PATH.stream, each as
    bind_private_ipc makes it; returns READY's endpoint, PATH."""
    bind_private_ipc(requests, str(path), cleanup)
    bind_private_ipc(stream, f"{path}.stream", cleanup)
    return str(path)


def bind_private_ipc(bind, path, cleanup):
    """`bind(url)` at ipc://PATH, refusing a path that exists (libzmq and libnng would replace
    it, a stale one or not), registered for removal as it is made, mode 0600 (the libraries make
    the file at once, so the mode is set just after, in the orchestrator's private directory)."""
    if os.path.lexists(path):
        raise IoError(f"path exists: {path}")
    with cleanup.creating() as created:
        bind(f"ipc://{path}")
        created(path)
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
