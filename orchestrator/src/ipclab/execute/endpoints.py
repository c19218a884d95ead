"""How the orchestrator prepares each kind of endpoint (protocol/mechanisms.toml `endpoint`).

Everything is created inside the case's private 0700 directory or as inherited descriptors,
so clean-up is: close our descriptor copies, remove the directory."""
import itertools
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.execute.broker import Broker, PrivateServer
from ipclab.execute.nats_server import NatsServer, subject_name
from ipclab.execute.redis_server import RedisServer, key_name
from ipclab.plan.catalog import repo_root


@dataclass
class Endpoint:
    server_arg: str
    client_arg: str | None = None   # None: take the endpoint from the server's READY line
    server_fds: tuple = ()
    client_fds: tuple = ()
    _open: list = field(default_factory=list)
    # the round's private server: an ActiveMQ broker (PROTOCOL.md 4.7), a Redis server (4.10),
    # a NATS server (4.11)
    broker: PrivateServer | None = None
    broker_died: str | None = None  # why the broker was gone before the round ended
    scratch: Path | None = None     # a directory of its own outside the case's, removed at close

    def open(self, place):
        """Starts what the endpoint needs beyond names and descriptors (a broker, where the
        server runs (places.Place): it is slow and can fail, so the runner calls this inside its
        error handling); raises PeerError."""
        if self.broker is not None:
            self.server_arg = self.broker.start(place)

    def for_client(self, ready_endpoint):
        return self.client_arg if self.client_arg is not None else ready_endpoint

    def release(self, fds):
        """Closes our copies of descriptors a peer has inherited, so end of stream works."""
        for fd in fds:
            if fd in self._open:
                os.close(fd)
                self._open.remove(fd)

    def close(self):
        self.release(list(self._open))
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
        if self.broker is not None:
            self.broker_died = self.broker.stop()
            self.broker = None


def _inet(case_dir):
    # Port 0: the kernel picks a free port; the server reports it in READY.
    return Endpoint(server_arg="127.0.0.1:0")


def _path(case_dir):
    path = str(case_dir / "peer.sock")
    return Endpoint(server_arg=path, client_arg=path)


def _fds(case_dir):
    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    return Endpoint(server_arg=f"fd:{req_r},{resp_w}", client_arg=f"fd:{resp_r},{req_w}",
                    server_fds=(req_r, resp_w), client_fds=(resp_r, req_w),
                    _open=[req_r, req_w, resp_r, resp_w])


def _dir(case_dir):
    fifo_dir = case_dir / "fifo"
    fifo_dir.mkdir(mode=0o700)
    return Endpoint(server_arg=str(fifo_dir), client_arg=str(fifo_dir))


def _library_dir(case_dir):
    # A library's root directory (iceoryx2, PROTOCOL.md 4.12): the server makes the library's
    # files in it and names it, with its shared-memory prefix, in READY; the client takes READY's.
    # iceoryx2's event sockets are named DIR/<prefix><a 39-digit id>.event and a socket's path
    # is at most 107 bytes, so DIR is as short as it can be: beside the run's directory, in the
    # same temporary directory, named ipclab-<pid>-… as it is (a dead run's is swept with it).
    parent = case_dir.parent.parent
    for n in itertools.count():
        root = parent / f"ipclab-{os.getpid()}-x{n}"
        try:
            root.mkdir(mode=0o700)
            return Endpoint(server_arg=str(root), scratch=root)
        except FileExistsError:
            continue


def _auto(case_dir):
    # The server creates tagged kernel objects and names them in READY (PROTOCOL.md 4.1).
    return Endpoint(server_arg="auto")


def _inproc(case_dir):
    # No server process: the client calls a function (PROTOCOL.md 4.4).
    return Endpoint(server_arg="", client_arg="inproc")


def _broker(case_dir, mechanism):
    # The orchestrator's broker for this round; the endpoint it gives is the responder's: the
    # ActiveMQ broker's URL (4.7), a Redis server's address and the round's key name (4.10), a
    # NATS server's and the round's subject name (4.11).
    if mechanism.broker == "nats":
        server = NatsServer(case_dir / "nats", repo_root(), subject_name(case_dir))
        return Endpoint(server_arg="", broker=server)
    if mechanism.broker == "redis":
        transport = "uds" if mechanism.endpoint == "broker-socket" else "tcp"
        server = RedisServer(case_dir / "redis", repo_root(), transport, key_name(case_dir))
        return Endpoint(server_arg="", broker=server)
    return Endpoint(server_arg="", broker=Broker(case_dir / "broker", repo_root()))


PREPARERS = {"inet": _inet, "path": _path, "fds": _fds, "dir": _dir, "auto": _auto,
             "library-dir": _library_dir, "inproc": _inproc}
BROKER_KINDS = ("broker", "broker-socket")


def prepare(mechanism, case_dir, broker=None):
    """The endpoint of one pair; `broker`: an existing broker's address ([hosts] broker, redis,
    redis_socket, nats: an amqp:// URL, a redis:// URL, a socket path, a nats:// URL), used as it
    is (neither started nor stopped here), or None."""
    if mechanism.endpoint in BROKER_KINDS:
        if not broker:
            return _broker(case_dir, mechanism)
        if mechanism.broker == "nats":  # the round's subjects on the named server (4.11)
            return Endpoint(server_arg=f"{broker}/{subject_name(case_dir)}")
        if mechanism.broker == "redis":  # the round's keys on the named server (4.10)
            name = key_name(case_dir)
            return Endpoint(server_arg=f"{broker}/{name}" if broker.startswith("redis://")
                            else f"unix://{broker}#{name}")
        return Endpoint(server_arg=broker)
    try:
        return PREPARERS[mechanism.endpoint](case_dir)
    except KeyError:
        raise UserError(f"protocol/mechanisms.toml: [{mechanism.name}] endpoint: "
                        f"unknown kind {mechanism.endpoint!r}") from None
