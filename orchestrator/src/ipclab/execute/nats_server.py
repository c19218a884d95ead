"""The NATS server of a round (PROTOCOL.md 4.11): Debian's nats-server, started privately in the
round's 0700 directory from a configuration file written there (no JetStream, so nothing is
stored; the largest payload NATS allows), on TCP at the server's address and a port chosen
here, waited for until it listens, and stopped and removed with the round
(broker.PrivateServer, which the ActiveMQ broker and the Redis server share).

The directory is the server's working directory (`env -C`: nats-server has no option of its
own for it), which is how `ipclab leaks` tells a nats-server that outlived its run
(leaks.servers_of_gone_runs), as it tells a Redis server.

    python -m ipclab.execute.nats_server DIR   # one until Ctrl-C (for peers' tests)
"""
import shutil
import sys

from ipclab.execute.broker import (PrivateServer, free_port, listening_ports,
                                   serve_until_interrupted)
from ipclab.execute.peers import PeerError
from ipclab.execute.places import LOCAL
from ipclab.execute.redis_server import key_name

START_TIMEOUT = 20.0  # nats-server starts in milliseconds; a busy machine may take seconds
CONFIG_NAME = "nats.conf"
MAX_PAYLOAD = 64 * 1024 * 1024  # NATS's own cap on max_payload (its default is 1 MiB)
# The server closes a connection whose unwritten output passes max_pending (64 MiB by default,
# which one 64 MiB answer passes): room for the largest frame and a stream's window at once.
MAX_PENDING = 4 * MAX_PAYLOAD
# No `jetstream` block: JetStream is off, and core NATS stores nothing. No `http` block: no
# monitoring port. The log goes to stderr (the Peer's file in this directory).
CONFIG = """# ipclab's NATS server for one round (PROTOCOL.md 4.11), from execute/nats_server.py
listen: "{address}:{port}"
max_payload: {max_payload}
max_pending: {max_pending}
"""


def subject_name(case_dir):
    """NAME of 4.11 for a round's directory: 4.10's key name with `_` for `.`, which separates
    a subject's tokens (an empty token, `a..b`, would be no subject at all)."""
    return key_name(case_dir).replace(".", "_")


def nats_binary():
    """nats-server's path, or None (scripts/setup-system installs Debian's)."""
    return shutil.which("nats-server")


class NatsServer(PrivateServer):
    """One private nats-server; `start()` returns the responder's endpoint (4.11):
    nats://HOST:PORT/NAME."""

    title = "the NATS server"

    def __init__(self, directory, root, name):
        super().__init__(directory, root)
        self.name = name
        self.address = None  # (host, port), once started

    def start(self, place=LOCAL):
        binary = nats_binary()
        if binary is None:
            raise PeerError("no nats-server: install the Debian package nats-server (make setup)")
        self.dir.mkdir(mode=0o700)
        port = free_port()
        self.address = (place.address, port)
        config = self.dir / CONFIG_NAME
        config.write_text(CONFIG.format(address=place.address, port=port,
                                        max_payload=MAX_PAYLOAD, max_pending=MAX_PENDING))
        config.chmod(0o600)
        # setpriv: the server dies with this process even if it is SIGKILLed; env -C: its
        # working directory is the round's.
        self._launch(["setpriv", "--pdeathsig", "KILL", "--", "env", "-C", str(self.dir),
                      binary, "--config", str(config)], place)
        # Listening, seen from the server's own namespace (/proc/PID/net), as the broker is.
        self._wait(lambda: port in listening_ports(self.process.pid), START_TIMEOUT,
                   self._log_tail, 0.02)
        self.url = f"nats://{place.address}:{port}/{self.name}"
        return self.url

    def _log_tail(self):
        lines = [line for path in (self.process.stdout_path, self.process.stderr_path)
                 if path.exists() for line in path.read_text(errors="replace").splitlines()
                 if "[FTL]" in line or "[ERR]" in line or "rror" in line]
        return lines[-1][:300] if lines else "see " + str(self.process.stderr_path)


def main(argv):
    """A NATS server in DIR (created; must not exist) until Ctrl-C: prints its endpoint with the
    name `ipclab:test`, then waits."""
    from ipclab.plan.catalog import repo_root
    if len(argv) != 1:
        print("usage: python -m ipclab.execute.nats_server DIR", file=sys.stderr)
        return 2
    return serve_until_interrupted(NatsServer(argv[0], repo_root(), "ipclab:test"))

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
