"""Where a peer runs: one seam between "this argv and environment" and what actually starts.

A Place turns a peer's argv into the command that runs it (as it is; inside a network namespace
with `ip netns exec`) and knows the IPv4 address the peer has there: a server listens on it, a
client connects to the server's. Today's behaviour is LOCAL: the orchestrator's own network
namespace, loopback. links.py makes the namespaces (per case) and the Places in them."""
import subprocess
from dataclasses import dataclass

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Place:
    address: str = LOOPBACK     # the peer's IPv4 address where it runs
    netns: str | None = None    # a named network namespace (/run/netns/NAME), None: ours

    def command(self, argv):
        """argv as it must be started to run here (no shell: `ip netns exec` execs argv in the
        namespace, so the PID we start is the peer's own and signals reach it)."""
        if self.netns is None:
            return list(argv)
        return ["ip", "netns", "exec", self.netns, *argv]

    def read_text(self, path):
        """A file as seen from here (/proc/net/* differs per network namespace); OSError if it
        cannot be read."""
        if self.netns is None:
            with open(path) as f:
                return f.read()
        done = subprocess.run(self.command(["cat", path]), capture_output=True, text=True)
        if done.returncode != 0:
            raise OSError(f"cannot read {path} in {self.describe()}: {done.stderr.strip()}")
        return done.stdout

    def describe(self):
        return f"netns {self.netns} ({self.address})" if self.netns else "local"


LOCAL = Place()


def server_endpoint(place, port=0):
    """The `--endpoint` a server of an IP mechanism listens on (PROTOCOL.md section 4): HOST:PORT,
    port 0 letting the kernel choose."""
    return f"{place.address}:{port}"
