"""Endpoint syntax of PROTOCOL.md section 4 (`HOST:PORT`, `fd:R,W`, paths)."""
import re

_DIGITS = re.compile(r"[0-9]+")
_FD_PAIR = re.compile(r"fd:([0-9]+),([0-9]+)")
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


PARSERS = {
    "tcp": parse_host_port,
    "udp": parse_host_port,
    "uds": parse_path,
    "pipe": parse_fd_pair,
    "fifo": parse_path,
}
MECHANISMS = tuple(PARSERS)


def parse(mechanism, text):
    return PARSERS[mechanism](text)
