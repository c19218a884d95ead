"""Endpoint grammars of PROTOCOL.md section 4 and the typed values they parse into.

An endpoint string is parsed once, by the command line, into one of the value types below;
transports and RPC frameworks receive the value and never look at the string again. `str()` of
a value gives the endpoint back as the contract writes it (for messages and READY).

A Grammar says what each role accepts: most mechanisms take the same endpoint in both roles;
the message channels take `auto` on the server and the READY endpoint (`sysv:0x1c1a....`,
`posix:/ipclab-<pid>`; a sysv-mq load server's `sysv:0x1c1a....,0x1c1a....`) on the client.
Which grammar a mechanism uses is in mechanisms.py.
"""
import re
from dataclasses import dataclass
from typing import Callable, Optional

_DIGITS = re.compile(r"[0-9]+")
_FD_PAIR = re.compile(r"fd:([0-9]+),([0-9]+)")
_SYSV_KEY = re.compile(r"sysv:0[xX]([0-9a-fA-F]{1,8})")
_SYSV_KEYS = re.compile(r"sysv:0[xX]([0-9a-fA-F]{1,8})(?:,0[xX]([0-9a-fA-F]{1,8}))?")
_POSIX_NAME = re.compile(r"posix:(/[^/\0]{1,200})")
# activemq (PROTOCOL.md 4.7): the broker `amqp://HOST:PORT`, a queue on it `amqp://HOST:PORT/Q`.
_BROKER = re.compile(r"amqp://([^/\s]+)")
_BROKER_QUEUE = re.compile(r"amqp://([^/\s]+)/([^/\s]+)")
MAX_PORT = 65535
MAX_FD = 2**31 - 1


def format_host_port(host, port):
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True)
class HostPort:
    host: str
    port: int

    def __str__(self):
        return format_host_port(self.host, self.port)


@dataclass(frozen=True)
class Path:
    """A socket path or a directory."""
    path: str

    def __str__(self):
        return self.path


@dataclass(frozen=True)
class FdPair:
    read: int
    write: int

    def __str__(self):
        return f"fd:{self.read},{self.write}"


@dataclass(frozen=True)
class Auto:
    """The server creates its kernel objects and names them in READY."""

    def __str__(self):
        return "auto"


@dataclass(frozen=True)
class SysvKey:
    key: int
    # A load server's reply queue over sysv-mq (PROTOCOL.md 11.5.5, `sysv:K,K|0x8000`).
    reply: Optional[int] = None

    def __str__(self):
        if self.reply is None:
            return f"sysv:0x{self.key:08x}"
        return f"sysv:0x{self.key:08x},0x{self.reply:08x}"


@dataclass(frozen=True)
class PosixName:
    """The name prefix of a server's POSIX objects, e.g. `/ipclab-77`."""
    prefix: str

    def __str__(self):
        return f"posix:{self.prefix}"


@dataclass(frozen=True)
class Inproc:
    def __str__(self):
        return "inproc"


@dataclass(frozen=True)
class Ior:
    """A CORBA object reference, `IOR:...`."""
    text: str

    def __str__(self):
        return self.text


@dataclass(frozen=True)
class Broker:
    """A message broker (PROTOCOL.md 4.7) and, on the client, the queue it sends to."""
    address: HostPort
    queue: Optional[str] = None

    @property
    def url(self):
        return f"amqp://{self.address}"

    def __str__(self):
        return self.url if self.queue is None else f"{self.url}/{self.queue}"


def parse_host_port(text):
    """`HOST:PORT` or `[IPv6]:PORT`; raises ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not _DIGITS.fullmatch(port) or int(port) > MAX_PORT:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    return HostPort(host, int(port))


def parse_fd_pair(text):
    """`fd:R,W`; raises ValueError."""
    match = _FD_PAIR.fullmatch(text)
    if not match or max(int(match.group(1)), int(match.group(2))) > MAX_FD:
        raise ValueError(f"expected fd:R,W, got {text!r}")
    return FdPair(int(match.group(1)), int(match.group(2)))


def parse_path(text):
    if not text or "\0" in text:
        raise ValueError(f"expected a path, got {text!r}")
    return Path(text)


def parse_auto(text):
    if text != "auto":
        raise ValueError(f"the server creates its objects: expected auto, got {text!r}")
    return Auto()


def parse_sysv_key(text):
    """`sysv:0x1c1a1234` (a non-zero 32-bit key)."""
    match = _SYSV_KEY.fullmatch(text)
    if not match or int(match.group(1), 16) == 0:
        raise ValueError(f"expected sysv:0xKEY, got {text!r}")
    return SysvKey(int(match.group(1), 16))


def parse_sysv_queue_keys(text):
    """sysv-mq: `sysv:0x1c1a1234`, or a load server's `sysv:0x1c1a1234,0x1c1a9234` (the
    request queue's key, then the reply queue's)."""
    match = _SYSV_KEYS.fullmatch(text)
    keys = [int(group, 16) for group in match.groups() if group] if match else [0]
    if 0 in keys:
        raise ValueError(f"expected sysv:0xKEY or sysv:0xKEY,0xKEY, got {text!r}")
    return SysvKey(*keys)


def parse_posix_prefix(text):
    """`posix:/ipclab-77` (the client appends its suffixes)."""
    match = _POSIX_NAME.fullmatch(text)
    if not match:
        raise ValueError(f"expected posix:/NAME, got {text!r}")
    return PosixName(match.group(1))


def parse_inproc(text):
    if text != "inproc":
        raise ValueError(f"an in-process mechanism has no server: expected inproc, got {text!r}")
    return Inproc()


def parse_ior(text):
    if not text.startswith("IOR:") or len(text) == 4:
        raise ValueError(f"expected IOR:..., got {text!r}")
    return Ior(text)


def parse_broker(text):
    """`amqp://HOST:PORT`: the broker a responder consumes from."""
    match = _BROKER.fullmatch(text)
    if not match:
        raise ValueError(f"expected amqp://HOST:PORT, got {text!r}")
    return Broker(parse_host_port(match.group(1)))


def parse_broker_queue(text):
    """`amqp://HOST:PORT/QUEUE`: a responder's READY endpoint, the queue a client sends to."""
    match = _BROKER_QUEUE.fullmatch(text)
    if not match:
        raise ValueError(f"expected amqp://HOST:PORT/QUEUE, got {text!r}")
    return Broker(parse_host_port(match.group(1)), match.group(2))


@dataclass(frozen=True)
class ZmqSockets:
    """A ZeroMQ server's two sockets (PROTOCOL.md 4.8): its request socket and its stream
    socket, as the library addresses them (tcp://HOST:PORT, ipc://PATH)."""
    requests: str
    stream: str

    def __str__(self):
        return f"{self.requests},{self.stream}"


def parse_zmq_tcp(text):
    """`tcp://HOST:PORT,tcp://HOST:PORT`: a zmq-tcp server's READY endpoint."""
    parts = text.split(",")
    try:
        if len(parts) != 2 or not all(part.startswith("tcp://") for part in parts):
            raise ValueError
        addresses = [parse_host_port(part[len("tcp://"):]) for part in parts]
        if not all(address.port for address in addresses):
            raise ValueError
    except ValueError:
        raise ValueError(f"expected tcp://HOST:PORT,tcp://HOST:PORT, got {text!r}") from None
    return ZmqSockets(*(f"tcp://{address}" for address in addresses))


def zmq_ipc_sockets(path):
    """zmq-ipc's sockets at PATH (4.8): ipc://PATH and ipc://PATH.stream."""
    return ZmqSockets(f"ipc://{path}", f"ipc://{path}.stream")


_REDIS_NAME = re.compile(r"[A-Za-z0-9._:-]{1,200}")


@dataclass(frozen=True)
class RedisEndpoint:
    """A Redis server and a round's key name on it (PROTOCOL.md 4.10): TCP or a Unix socket."""
    name: str
    host: Optional[str] = None
    port: int = 0
    path: Optional[str] = None

    @property
    def where(self):
        return self.path if self.path is not None else format_host_port(self.host, self.port)

    def __str__(self):
        if self.path is not None:
            return f"unix://{self.path}#{self.name}"
        return f"redis://{format_host_port(self.host, self.port)}/{self.name}"


def server_url(text, scheme, names):
    """`SCHEME://HOST:PORT/NAME` (a server and a round's name on it, NAME matching `names`): the
    name and the server's HostPort; ValueError naming the form otherwise."""
    rest = text[len(scheme):] if text.startswith(scheme) else ""
    address, slash, name = rest.partition("/")
    try:
        if not slash or not names.fullmatch(name):
            raise ValueError
        host_port = parse_host_port(address)
        if not host_port.port:
            raise ValueError
    except ValueError:
        raise ValueError(f"expected {scheme}HOST:PORT/NAME, got {text!r}") from None
    return name, host_port


def parse_redis_tcp(text):
    """`redis://HOST:PORT/NAME`: redis-tcp's server and key name."""
    name, host_port = server_url(text, "redis://", _REDIS_NAME)
    return RedisEndpoint(name, host=host_port.host, port=host_port.port)


def parse_redis_uds(text):
    """`unix://PATH#NAME`: redis-uds's server socket and key name (NAME after the last #)."""
    rest = text[len("unix://"):] if text.startswith("unix://") else ""
    path, hash_, name = rest.rpartition("#")
    if not hash_ or not path.startswith("/") or "\0" in path or not _REDIS_NAME.fullmatch(name):
        raise ValueError(f"expected unix://PATH#NAME, got {text!r}")
    return RedisEndpoint(name, path=path)


_NATS_NAME = re.compile(r"[A-Za-z0-9_:-]{1,200}")  # no '.': it separates a subject's tokens


@dataclass(frozen=True)
class NatsEndpoint:
    """A NATS server and a round's subject name on it (PROTOCOL.md 4.11)."""
    name: str
    host: str
    port: int

    @property
    def server(self):
        return f"nats://{format_host_port(self.host, self.port)}"

    def __str__(self):
        return f"{self.server}/{self.name}"


def parse_nats(text):
    """`nats://HOST:PORT/NAME`: the nats server and the round's subject name."""
    name, host_port = server_url(text, "nats://", _NATS_NAME)
    return NatsEndpoint(name, host_port.host, host_port.port)


_ICEORYX2 = re.compile(r"posix:/(ipclab-[0-9]{1,10}),([^\0]+)")


@dataclass(frozen=True)
class LibraryRoot:
    """An iceoryx2 server's READY endpoint (PROTOCOL.md 4.12): the shared-memory prefix of its
    objects (`ipclab-<pid>`, iceoryx2's prefix with a `-` after it) and its root directory."""
    prefix: str
    root: str

    def __str__(self):
        return f"posix:/{self.prefix},{self.root}"


def parse_iceoryx2(text):
    """`posix:/ipclab-PID,DIR`: iceoryx2's prefix and root directory."""
    match = _ICEORYX2.fullmatch(text)
    if not match:
        raise ValueError(f"expected posix:/ipclab-PID,DIR, got {text!r}")
    return LibraryRoot(match.group(1), match.group(2))


@dataclass(frozen=True)
class Grammar:
    """What `--endpoint` holds in each role. `kind` is the orchestrator's name for how it
    prepares the server's endpoint (protocol/mechanisms.toml)."""
    kind: str
    serve: Optional[Callable[[str], object]]
    drive: Callable[[str], object]

    def parse(self, role, text):
        return (self.serve if role == "serve" else self.drive)(text)


INET = Grammar("inet", parse_host_port, parse_host_port)
SOCKET_PATH = Grammar("path", parse_path, parse_path)
FDS = Grammar("fds", parse_fd_pair, parse_fd_pair)
DIRECTORY = Grammar("dir", parse_path, parse_path)
SYSV = Grammar("auto", parse_auto, parse_sysv_key)
SYSV_MQ = Grammar("auto", parse_auto, parse_sysv_queue_keys)
POSIX = Grammar("auto", parse_auto, parse_posix_prefix)
INPROC = Grammar("inproc", None, parse_inproc)
# corba: the server listens on HOST:PORT, READY gives the IOR the client connects with.
CORBA = Grammar("inet", parse_host_port, parse_ior)
# activemq: the responder is given the broker, READY names its request queue on it.
BROKER = Grammar("broker", parse_broker, parse_broker_queue)
# zmq-tcp: the server binds HOST:PORT, READY names its two sockets (PROTOCOL.md 4.8).
ZMQ_TCP = Grammar("inet", parse_host_port, parse_zmq_tcp)
# redis-tcp, redis-uds: both peers take the server and the round's key name (PROTOCOL.md 4.10).
REDIS_TCP = Grammar("broker", parse_redis_tcp, parse_redis_tcp)
REDIS_UDS = Grammar("broker-socket", parse_redis_uds, parse_redis_uds)
# nats: both peers take the server and the round's subject name (PROTOCOL.md 4.11).
NATS = Grammar("broker", parse_nats, parse_nats)
# iceoryx2: the server is given its root directory, READY names the prefix too (PROTOCOL.md 4.12).
ICEORYX2 = Grammar("library-dir", parse_path, parse_iceoryx2)
