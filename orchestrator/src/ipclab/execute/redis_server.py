"""The Redis server of a round (PROTOCOL.md 4.10): Debian's redis-server, started privately in the
round's 0700 directory with nothing persisted, on TCP at the server's address (redis-tcp) or on
a Unix socket of mode 0700 in that directory (redis-uds), waited for until it listens, and
stopped and removed with the round (broker.PrivateServer, which the ActiveMQ broker shares).

The directory is the server's working directory (`--dir`), which is how `ipclab leaks` tells a
redis-server that outlived its run (leaks.servers_of_gone_runs): redis-server rewrites its
command line, so the directory is not in it.

    python -m ipclab.execute.redis_server tcp|uds DIR   # one until Ctrl-C (for peers' tests)
"""
import re
import shutil
import socket
import sys
from pathlib import Path

from ipclab.execute.broker import (PrivateServer, free_port, listening_ports,
                                   serve_until_interrupted)
from ipclab.execute.peers import PeerError
from ipclab.execute.places import LOCAL

START_TIMEOUT = 20.0  # redis-server starts in milliseconds; a busy machine may take seconds
SOCKET_NAME = "redis.sock"
_NAME_SAFE = re.compile(r"[^A-Za-z0-9._:-]")
_WORKSPACE = re.compile(r"^ipclab-\d+-")


def key_name(case_dir):
    """NAME of 4.10 for a round's directory: its parts from the run's workspace down, joined by
    `:` (`ipclab-4242-k3x9:c0003`; the workspace's name carries the run's pid and a random
    part), so two runs or two rounds sharing a server never share a key."""
    parts = list(Path(case_dir).parts)
    start = next((i for i in range(len(parts) - 1, -1, -1) if _WORKSPACE.match(parts[i])), 0)
    name = ":".join(_NAME_SAFE.sub("_", p) for p in parts[start:] if p != "/")
    return name[-200:] or "ipclab"


def redis_binary():
    """redis-server's path, or None (scripts/setup-system installs Debian's)."""
    return shutil.which("redis-server")


class RedisServer(PrivateServer):
    """One private redis-server; `start()` returns the responder's endpoint (4.10):
    redis://HOST:PORT/NAME or unix://PATH#NAME."""

    title = "the Redis server"

    def __init__(self, directory, root, transport, name):
        super().__init__(directory, root)
        if transport not in ("tcp", "uds"):
            raise ValueError(f"transport {transport!r}")
        self.transport, self.name = transport, name
        self.address = None  # (host, port) or the socket's path, once started

    def start(self, place=LOCAL):
        binary = redis_binary()
        if binary is None:
            raise PeerError("no redis-server: install the Debian package redis-server (make setup)")
        self.dir.mkdir(mode=0o700)
        # No configuration file: every setting is here. Nothing is saved (no RDB, no AOF); the
        # log goes to stdout (the Peer's file in this directory).
        argv = ["setpriv", "--pdeathsig", "KILL", "--", binary, "--dir", str(self.dir),
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "",
                "--databases", "1", "--protected-mode", "yes"]
        if self.transport == "tcp":
            port = free_port()
            self.address = (place.address, port)
            argv += ["--bind", place.address, "--port", str(port)]
            self.url = f"redis://{place.address}:{port}/{self.name}"
        else:
            path = self.dir / SOCKET_NAME
            self.address = str(path)
            argv += ["--port", "0", "--unixsocket", str(path), "--unixsocketperm", "700"]
            self.url = f"unix://{path}#{self.name}"
        self._launch(argv, place)
        # TCP: listening, seen from the server's own namespace (/proc/PID/net), as the broker is;
        # the socket: answering PING (a path is reached from any namespace).
        ready = ((lambda: port in listening_ports(self.process.pid)) if self.transport == "tcp"
                 else (lambda: ping(self.address)))
        self._wait(ready, START_TIMEOUT, self._log_tail, 0.02)
        return self.url

    def _log_tail(self):
        lines = [line for path in (self.process.stdout_path, self.process.stderr_path)
                 if path.exists() for line in path.read_text(errors="replace").splitlines()
                 if "#" in line or "FATAL" in line or "rror" in line]
        return lines[-1][:300] if lines else "see " + str(self.process.stdout_path)


def ping(path):
    """Whether a Redis server answers PING on the Unix socket `path` now."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1.0)
            s.connect(path)
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def main(argv):
    """A Redis server in DIR (created; must not exist) until Ctrl-C: prints its endpoint with the
    name `ipclab:test`, then waits."""
    from ipclab.plan.catalog import repo_root
    if len(argv) != 2 or argv[0] not in ("tcp", "uds"):
        print("usage: python -m ipclab.execute.redis_server tcp|uds DIR", file=sys.stderr)
        return 2
    return serve_until_interrupted(RedisServer(argv[1], repo_root(), argv[0], "ipclab:test"))

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
