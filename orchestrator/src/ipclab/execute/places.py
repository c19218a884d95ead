"""Where a peer runs: one seam between "this argv and environment" and what actually starts.

A Place turns a peer's argv into the command that runs it (as it is; inside a network namespace
with `ip netns exec`) and knows the IPv4 address the peer has there: a server listens on it, a
client connects to the server's. Today's behaviour is LOCAL: the orchestrator's own network
namespace, loopback. execute/network.py makes the namespaces (per case) and the Places in them; a
scenario's [hosts] (plan/hosts.py) puts the server on another host, reached with OpenSSH (SshPlace, Remote)."""
import os
import shlex
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ipclab.execute.ssh import Master, common_options

LOOPBACK = "127.0.0.1"
READ_TIMEOUT = 30.0  # seconds a file read in a namespace or over ssh may take


@dataclass(frozen=True)
class Place:
    address: str = LOOPBACK     # the peer's IPv4 address where it runs
    netns: str | None = None    # a named network namespace (/run/netns/NAME), None: ours

    # A client started here needs no lifeline on its stdin (SshPlace's does: see there).
    client_lifeline = False

    def command(self, argv, client=False):
        """argv as it must be started to run here (no shell: `ip netns exec` execs argv in the
        namespace, so the PID we start is the peer's own and signals reach it)."""
        if self.netns is None:
            return list(argv)
        return ["ip", "netns", "exec", self.netns, *argv]

    def read_text(self, path):
        """A file as seen from here (/proc/net/* differs per network namespace and per host);
        OSError if it cannot be read."""
        if self.here:
            with open(path) as f:
                return f.read()
        return self._cat(path).decode(errors="replace")

    def case_file(self, path):
        """The bytes of a file a peer here wrote at `path` (a path in the run's private
        directory: a namespace shares this host's files, another host has its own copy)."""
        with open(path, "rb") as f:
            return f.read()

    def _cat(self, path):
        try:
            done = subprocess.run(self.plain_command(["cat", str(path)]), capture_output=True,
                                  timeout=READ_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise OSError(f"cannot read {path} in {self.describe()}: no answer in "
                          f"{READ_TIMEOUT:g} s") from None
        if done.returncode != 0:
            raise OSError(f"cannot read {path} in {self.describe()}: "
                          f"{done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    def plain_command(self, argv):
        """argv as it must be started to run here, nothing prepared for a peer's files."""
        return self.command(argv)

    @property
    def here(self):
        """Whether this place's files are the orchestrator's own (no namespace, no other host)."""
        return self.netns is None

    # Whether a peer here writes its files into this host's file system (a namespace shares it).
    own_files = True

    def describe(self):
        return f"netns {self.netns} ({self.address})" if self.netns else "local"


LOCAL = Place()


def server_endpoint(place, port=0):
    """The `--endpoint` a server of an IP mechanism listens on (PROTOCOL.md section 4): HOST:PORT,
    port 0 letting the kernel choose."""
    return f"{place.address}:{port}"


# ---- peers on other hosts, over OpenSSH (`[hosts]` in a scenario) ----------------------------

@dataclass(frozen=True)
class SshPlace(Place):
    """A peer started on another host through the run's ssh master connection: its argv with
    this checkout's root replaced by the remote checkout's and the run's private directory by
    the host's (made there with the directories the peer's files go in), quoted for the remote
    shell (ssh always passes one command line to it) and exec'd there, so the remote peer's stdin
    is the channel's: closing it, or losing the connection, is the contract's end of file
    (section 5)."""
    target: str = ""
    ssh_options: tuple = ()
    local_root: str = ""
    remote_root: str = ""
    local_scratch: str = "\0"   # never a prefix of an argument unless set
    remote_scratch: str = ""
    name: str = ""               # the host as the user named it (ssh://…)

    # A client's stdin is /dev/null by the contract, so a client there would outlive its
    # channel (a dropped connection, the run stopped or interrupted) and write into a private
    # directory already removed. So the channel's stdin is its lifeline, as a server's stdin is:
    # the local ssh keeps it open (peers.Peer, lifeline), and a watcher there kills the client
    # when it ends. The watcher writes nothing, so the session ends with the client.
    client_lifeline = True
    WATCHED = ("exec 3<&0; {peer} </dev/null & p=$!; "
               "{{ cat <&3 >/dev/null 2>&1; kill $p 2>/dev/null; }} >/dev/null 2>&1 & wait $p")

    def command(self, argv, client=False):
        remote = [self.there(a).replace(self.local_root, self.remote_root) for a in argv]
        dirs = sorted({str(Path(self.there(a)).parent) for a in argv
                       if self.there(a) != a} - {self.remote_scratch})
        # Made from inside the private directory, by relative paths: a shell that starts late,
        # after the run removed that directory, fails at the cd instead of making it again.
        inside = [os.path.relpath(d, self.remote_scratch) for d in dirs]
        made = (f"umask 077 && (cd -- {shlex.quote(self.remote_scratch)} && mkdir -p -- "
                f"{shlex.join(inside)}) && ") if dirs else ""
        run = self.WATCHED.format(peer=shlex.join(remote)) if client \
            else "exec " + shlex.join(remote)
        return ["ssh", *self.ssh_options, self.target, "--", made + run]

    def plain_command(self, argv):
        return ["ssh", *self.ssh_options, self.target, "--", shlex.join(argv)]

    def there(self, path):
        """A path in this host's private directory for one in the run's (others unchanged)."""
        text = str(path)
        if text == self.local_scratch or text.startswith(self.local_scratch + "/"):
            return self.remote_scratch + text[len(self.local_scratch):]
        return text

    def read_text(self, path):
        return self._cat(self.there(path)).decode(errors="replace")

    def case_file(self, path):
        return self._cat(self.there(path))

    own_files = False

    def describe(self):
        return f"ssh {self.target} ({self.address})"

    @property
    def here(self):
        return False


class Remote:
    """The run's hosts over OpenSSH: a Master to the server's host, to the client's (hosts.client)
    and to each client host (hosts.clients), each with a private directory there; ended by PID,
    directories removed."""

    def __init__(self, hosts, local_root, private_dir):
        self.hosts, self.local_root = hosts, str(local_root)
        self.private_dir = str(private_dir)
        common = common_options(hosts)
        self.server = Master(hosts, common, Path(private_dir) / "ssh-server.log", "hosts.server")
        self.client = Master(hosts["client"], common, Path(private_dir) / "ssh-client.log",
                             "hosts.client") if hosts.get("client") else None
        self.clients = [Master(h, common, Path(private_dir) / f"ssh-client-{i}.log",
                               "hosts.clients") for i, h in enumerate(hosts.get("clients") or [])]
        self.notes, self.environment = [], {}
        self.server_ssh_port = None

    @property
    def masters(self):
        return [self.server, *([self.client] if self.client else []), *self.clients]

    def place(self, master, address):
        return SshPlace(address=address, target=master.target, ssh_options=master.peer_options,
                        local_root=self.local_root, remote_root=master.host["path"],
                        local_scratch=self.private_dir, remote_scratch=master.scratch or "",
                        name=master.name)

    @property
    def server_place(self):
        return self.place(self.server, self.hosts["server_address"])

    @property
    def client_place(self):
        """Where a case's one client runs: hosts.client, else here."""
        return self.place(self.client, self._host_of(self.client)) if self.client else LOCAL

    @staticmethod
    def _host_of(master):
        return master.target.rsplit("@", 1)[-1]

    @property
    def client_places(self):
        """Where a burst's clients run, one per client host (none: here)."""
        return tuple(self.place(m, self._host_of(m)) for m in self.clients)

    def run(self, argv):
        return self.server.run(argv)

    def command(self, argv):
        return self.server.command(argv)

    def __enter__(self):
        try:
            for master in self.masters:
                master.start(self.hosts["source"])
            self.server_ssh_port = self.server.ssh_port()  # not counted as the peers' bytes
            self._describe()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _describe(self):
        """Each host's environment for run.json, and a note where a checkout's revision differs
        from ours."""
        local = subprocess.run(["git", "-C", self.local_root, "rev-parse", "HEAD"],
                               capture_output=True, text=True).stdout.strip()
        described = []
        for master in self.masters:
            path = master.host["path"]
            revision = master.run(["git", "-C", path, "rev-parse", "HEAD"])
            remote_rev = revision.stdout.strip() if revision.returncode == 0 else None
            described.append({"host": master.name, "path": path,
                              "kernel": master.run(["uname", "-srm"]).stdout.strip(),
                              "cpus": master.run(["nproc"]).stdout.strip(),
                              "git_revision": remote_rev})
            if remote_rev != local:
                self.notes.append(f"the checkout of {master.name} ({path}) is at revision "
                                  f"{remote_rev or 'unknown'}, this one at {local or 'unknown'}: "
                                  f"the peers may not run the same code")
        self.environment = {"server": {**described[0], "address": self.hosts["server_address"]}}
        if self.client:
            self.environment["client"] = described[1]
        if self.clients:
            self.environment["clients"] = described[-len(self.clients):]

    def __exit__(self, *exc):
        for master in self.masters:
            master.end()


@contextmanager
def connect(hosts, local_root, private_dir):
    """A Remote for the scenario's [hosts] (None when everything is local)."""
    if not hosts:
        yield None
        return
    with Remote(hosts, local_root, private_dir) as remote:
        yield remote
