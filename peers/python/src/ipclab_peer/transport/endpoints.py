"""Endpoint syntax of PROTOCOL.md section 4 (`HOST:PORT`, `fd:R,W`, paths, `auto`, IPC names).

Most mechanisms take the same endpoint in both roles; the message channels take `auto` on the
server and the READY endpoint (`sysv:0x1c1a....`, `posix:/ipclab-<pid>`) on the client."""
import re

_DIGITS = re.compile(r"[0-9]+")
_FD_PAIR = re.compile(r"fd:([0-9]+),([0-9]+)")
_SYSV_KEY = re.compile(r"sysv:0[xX]([0-9a-fA-F]{1,8})")
_POSIX_NAME = re.compile(r"posix:(/[^/\0]{1,200})")
MAX_PORT = 65535
MAX_FD = 2**31 - 1


def parse_host_port(text):
    """`HOST:PORT` or `[IPv6]:PORT` -> (host, port); raises ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not _DIGITS.fullmatch(port) or int(port) > MAX_PORT:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def format_host_port(host, port):
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_fd_pair(text):
    """`fd:R,W` -> (R, W); raises ValueError."""
    match = _FD_PAIR.fullmatch(text)
    if not match or max(int(match.group(1)), int(match.group(2))) > MAX_FD:
        raise ValueError(f"expected fd:R,W, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def parse_path(text):
    if not text or "\0" in text:
        raise ValueError(f"expected a path, got {text!r}")
    return text


def parse_auto(text):
    if text != "auto":
        raise ValueError(f"the server creates its objects: expected auto, got {text!r}")
    return text


def parse_sysv_key(text):
    """`sysv:0x1c1a1234` -> the key (a non-zero 32-bit number)."""
    match = _SYSV_KEY.fullmatch(text)
    if not match or int(match.group(1), 16) == 0:
        raise ValueError(f"expected sysv:0xKEY, got {text!r}")
    return int(match.group(1), 16)


def parse_posix_prefix(text):
    """`posix:/ipclab-77` -> `/ipclab-77` (the client appends -1 and -2)."""
    match = _POSIX_NAME.fullmatch(text)
    if not match:
        raise ValueError(f"expected posix:/NAME, got {text!r}")
    return match.group(1)


PARSERS = {
    "tcp": parse_host_port,
    "udp": parse_host_port,
    "uds": parse_path,
    "pipe": parse_fd_pair,
    "fifo": parse_path,
    "sysv-mq": parse_sysv_key,
    "posix-mq": parse_posix_prefix,
    "sysv-shm": parse_sysv_key,
    "file": parse_path,
    "file-poll": parse_path,
    "shm": parse_posix_prefix,
    "shm-spin": parse_posix_prefix,
    "shm-futex": parse_posix_prefix,
}
SHM = ("shm", "shm-spin", "shm-futex")
MESSAGE_CHANNELS = ("sysv-mq", "posix-mq", "sysv-shm") + SHM
SERVER_PARSERS = dict(PARSERS, **{name: parse_auto for name in MESSAGE_CHANNELS})
MECHANISMS = tuple(PARSERS)
# PROTOCOL.md 4.4: drive-only, no server; the endpoint is `inproc`.
INPROC = ("none", "ctypes")


def parse_inproc(text):
    if text != "inproc":
        raise ValueError(f"an in-process mechanism has no server: expected inproc, got {text!r}")
    return text


def parse(mechanism, text, role="drive"):
    if mechanism in INPROC and role == "drive":
        return parse_inproc(text)
    return (SERVER_PARSERS if role == "serve" else PARSERS)[mechanism](text)
