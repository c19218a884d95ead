"""Where a peer runs: one seam between "this argv and environment" and what actually starts.

A Place turns a peer's argv into the command that runs it (as it is; inside a network namespace
with `ip netns exec`) and knows the IPv4 address the peer has there: a server listens on it, a
client connects to the server's. Today's behaviour is LOCAL: the orchestrator's own network
namespace, loopback. execute/network.py makes the namespaces (per case) and the Places in them; a
scenario's [hosts] (plan/hosts.py) puts the server on another host, reached with OpenSSH (SshPlace, Remote)."""
import os
import shutil
import shlex
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ipclab.common.errors import UserError

LOOPBACK = "127.0.0.1"
READ_TIMEOUT = 30.0  # seconds a file read in a namespace or over ssh may take


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
        """A file as seen from here (/proc/net/* differs per network namespace and per host);
        OSError if it cannot be read."""
        if self.here:
            with open(path) as f:
                return f.read()
        try:
            done = subprocess.run(self.command(["cat", path]), capture_output=True, text=True,
                                  timeout=READ_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise OSError(f"cannot read {path} in {self.describe()}: no answer in "
                          f"{READ_TIMEOUT:g} s") from None
        if done.returncode != 0:
            raise OSError(f"cannot read {path} in {self.describe()}: {done.stderr.strip()}")
        return done.stdout

    @property
    def here(self):
        """Whether this place's files are the orchestrator's own (no namespace, no other host)."""
        return self.netns is None

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
    this checkout's root replaced by the remote checkout's, quoted for the remote shell (ssh
    always passes one command line to it) and exec'd there, so the remote peer's stdin is the
    channel's: closing it, or losing the connection, is the contract's end of file (section 5)."""
    target: str = ""
    ssh_options: tuple = ()
    local_root: str = ""
    remote_root: str = ""

    def command(self, argv):
        remote = [a.replace(self.local_root, self.remote_root) for a in argv]
        return ["ssh", *self.ssh_options, self.target, "--", "exec " + shlex.join(remote)]

    def describe(self):
        return f"ssh {self.target} ({self.address})"

    @property
    def here(self):
        return False


class Remote:
    """The run's connection to the server's host: one OpenSSH master (ControlMaster, its socket
    in the run's private directory) that every case's ssh reuses, started and ended by PID."""

    def __init__(self, hosts, local_root, private_dir):
        self.hosts, self.local_root = hosts, str(local_root)
        # A Unix socket path has at most 107 bytes and ssh adds 17 while making it: the master's
        # socket gets a short private (0700) directory of its own, removed at the end.
        self.socket_dir = tempfile.mkdtemp(prefix=f"ipclab-{os.getpid()}-ssh", dir="/tmp")
        self.control = str(Path(self.socket_dir) / "master")
        self.log_path = Path(private_dir) / "ssh-master.log"
        options = ["-o", "BatchMode=yes", "-o", f"ControlPath={self.control}",
                   "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"]
        if hosts.get("ssh_config"):
            options += ["-F", hosts["ssh_config"]]
        if hosts.get("port"):
            options += ["-p", str(hosts["port"])]
        self.options = tuple(options)
        self.master = None
        self.notes, self.environment = [], {}

    @property
    def server_place(self):
        return SshPlace(address=self.hosts["server_address"], target=self.hosts["target"],
                        ssh_options=(*self.options, "-o", "ControlMaster=no"),
                        local_root=self.local_root, remote_root=self.hosts["path"])

    def __enter__(self):
        log = open(self.log_path, "wb")
        self.master = subprocess.Popen(["ssh", *self.options, "-o", "ControlMaster=yes",
                                        "-o", "ControlPersist=no", "-N", self.hosts["target"]],
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       process_group=0)
        log.close()
        try:
            self._wait_for_master()
            self._describe()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait_for_master(self, timeout=20.0):
        """Until `ssh -O check` answers (the master is up) or the master exits (refused)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.master.poll() is not None:
                break
            if self._control("check").returncode == 0:
                return
            time.sleep(0.1)  # polling a socket that appears, not synchronising peers
        tail = self.log_path.read_text(errors="replace").strip()
        raise UserError(f"{self.hosts['source']}: hosts.server: cannot reach "
                        f"{self.hosts['server']} with ssh in batch "
                        f"mode ({tail.splitlines()[-1] if tail else 'no message'}): check that "
                        f"`ssh {self.hosts['target']}` works without a password")

    def run(self, argv):
        """`ssh … target ARGV` over the master (ARGV quoted for the remote shell)."""
        return subprocess.run(self.command(argv), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)

    def command(self, argv):
        """The local argv that runs ARGV on the host over the master."""
        return ["ssh", *self.options, self.hosts["target"], "--", shlex.join(argv)]

    def _control(self, operation):
        return subprocess.run(["ssh", *self.options, "-O", operation, self.hosts["target"]],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)

    def _describe(self):
        """The remote host's environment for run.json, and a note if its checkout's revision
        differs from ours."""
        path = self.hosts["path"]
        uname = self.run(["uname", "-srm"]).stdout.strip()
        cpus = self.run(["nproc"]).stdout.strip()
        revision = self.run(["git", "-C", path, "rev-parse", "HEAD"])
        local = subprocess.run(["git", "-C", self.local_root, "rev-parse", "HEAD"],
                               capture_output=True, text=True).stdout.strip()
        remote_rev = revision.stdout.strip() if revision.returncode == 0 else None
        self.environment = {"server": {"host": self.hosts["server"], "path": path,
                                       "kernel": uname, "cpus": cpus, "git_revision": remote_rev,
                                       "address": self.hosts["server_address"]}}
        if remote_rev != local:
            self.notes.append(f"the server's checkout ({self.hosts['server']}:{path}) is at "
                              f"revision {remote_rev or 'unknown'}, this one at {local or 'unknown'}: "
                              f"the two peers may not run the same code")

    def __exit__(self, *exc):
        try:
            self._end_master()
        finally:
            shutil.rmtree(self.socket_dir, ignore_errors=True)

    def _end_master(self):
        if self.master is None:
            return
        self._control("exit")
        if self.master.poll() is None:
            self.master.terminate()
        try:
            self.master.wait(5)
        except subprocess.TimeoutExpired:
            self.master.kill()
            self.master.wait()
        self.master = None


@contextmanager
def connect(hosts, local_root, private_dir):
    """A Remote for the scenario's [hosts] (None when everything is local)."""
    if not hosts:
        yield None
        return
    with Remote(hosts, local_root, private_dir) as remote:
        yield remote
