"""One OpenSSH connection to one host: a master (ControlMaster, its socket in a short private
directory) that every command to that host reuses, started and ended by PID, and a private
scratch directory there (mktemp -d, owner-only) that remote peers write their files into and
that goes with the master. places.Remote holds one Master per host a run uses."""
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ipclab.common.errors import UserError

MASTER_WAIT = 20.0  # seconds a master gets to connect


def common_options(hosts):
    """The ssh options of every connection a run makes ([hosts], plan/hosts.py): batch mode (a
    prompt is an error, never a hang) and the scenario's ssh config, if it names one."""
    return ["-o", "BatchMode=yes", *(("-F", hosts["ssh_config"]) if hosts.get("ssh_config")
                                     else ())]


class Master:
    """ssh to `host` ({"server": the URL as the user wrote it, "target", "port"}) over one
    master connection; `options`: the run's common ssh options (BatchMode, -F CONFIG)."""

    def __init__(self, host, options, log_path, role):
        self.host, self.role, self.log_path = host, role, Path(log_path)
        # A Unix socket path has at most 107 bytes and ssh adds 17 while making it: the master's
        # socket gets a short private (0700) directory of its own, removed at the end.
        self.socket_dir = tempfile.mkdtemp(prefix=f"ipclab-{os.getpid()}-ssh", dir="/tmp")
        control = str(Path(self.socket_dir) / "master")
        self.options = (*options, "-o", f"ControlPath={control}", "-o", "ServerAliveInterval=5",
                        "-o", "ServerAliveCountMax=3",
                        *(("-p", str(host["port"])) if host.get("port") else ()))
        self.process = None
        self.scratch = None  # the private directory there, once made

    @property
    def name(self):
        return self.host["server"]

    @property
    def target(self):
        return self.host["target"]

    def start(self, source):
        """Connects (UserError naming `source`'s key when the host refuses batch mode) and makes
        the scratch directory."""
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(["ssh", *self.options, "-o", "ControlMaster=yes",
                                         "-o", "ControlPersist=no", "-N", self.target],
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                        process_group=0)
        log.close()
        self._wait(source)
        made = self.run(["mktemp", "-d", "/tmp/ipclab-remote-XXXXXXXX"])
        if made.returncode != 0 or not made.stdout.strip().startswith("/tmp/ipclab-remote-"):
            raise UserError(f"{source}: {self.role}: cannot make a private directory on "
                            f"{self.name}: {made.stderr.strip() or 'mktemp failed'}")
        self.scratch = made.stdout.strip()
        return self

    def _wait(self, source):
        """Until `ssh -O check` answers (the master is up) or the master exits (refused)."""
        deadline = time.monotonic() + MASTER_WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if self._control("check").returncode == 0:
                return
            time.sleep(0.1)  # polling a socket that appears, not synchronising peers
        tail = self.log_path.read_text(errors="replace").strip()
        raise UserError(f"{source}: {self.role}: cannot reach {self.name} with ssh in batch "
                        f"mode ({tail.splitlines()[-1] if tail else 'no message'}): check that "
                        f"`ssh {self.target}` works without a password")

    def run(self, argv, timeout=None):
        """`ssh … target ARGV` over the master (ARGV quoted for the remote shell)."""
        return subprocess.run(self.command(argv), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=timeout)

    def command(self, argv):
        """The local argv that runs ARGV on the host over the master."""
        return ["ssh", *self.options, self.target, "--", shlex.join(argv)]

    def ssh_port(self):
        """The TCP port ssh reaches the host on, as its config resolves it (`ssh -G`)."""
        done = subprocess.run(["ssh", "-G", *self.options, self.target], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL)
        for line in done.stdout.splitlines():
            key, _, value = line.partition(" ")
            if key == "port" and value.isdigit():
                return int(value)
        return 22

    @property
    def peer_options(self):
        """Options of a peer's own ssh: over the master, never a master itself."""
        return (*self.options, "-o", "ControlMaster=no")

    def _control(self, operation):
        return subprocess.run(["ssh", *self.options, "-O", operation, self.target],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)

    def end(self):
        """Removes the scratch directory (over a connection of its own if the master has died:
        a dropped connection must not leave it behind), ends the master (by PID if it
        lingers)."""
        try:
            if self.scratch:
                self.run(["rm", "-rf", "--", self.scratch], timeout=30)
        except subprocess.TimeoutExpired:
            pass
        finally:
            self._end_master()
            shutil.rmtree(self.socket_dir, ignore_errors=True)

    def _end_master(self):
        if self.process is None:
            return
        self._control("exit")
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None
