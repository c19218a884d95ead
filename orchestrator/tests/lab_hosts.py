"""A lab of hosts on this machine for the many-hosts tests and scripts/hosts-cost: each host a
network namespace with Debian's sshd (keys made in a private directory), all on one switch (a
bridge in an "ops" namespace, where ipclab runs), reached by aliases in an ssh config. Needs root
and openssh-server. Everything goes at `close()`: sshds by PID, then every namespace."""
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IPCLAB = [sys.executable, "-m", "ipclab"]
SSHD = "/usr/sbin/sshd"
PORT = 2222


class Lab:
    def __init__(self, names, private, tag="lab"):
        self.names, self.private = list(names), Path(private)
        prefix = f"ipclab{tag}-{os.getpid()}"
        self.ops = f"{prefix}-ops"
        self.netns = {name: f"{prefix}-{i}" for i, name in enumerate(self.names)}
        self.address = {name: f"10.81.0.{10 + i}" for i, name in enumerate(self.names)}
        self.sshds = {}
        self.config = self.private / "ssh_config"
        self.started = time.time()  # what the lab's hosts made in the shared /tmp is newer

    def __enter__(self):
        try:
            self._switch()
            self._keys_and_configs()
            for name in self.names:
                self.start_sshd(name)
            for name in self.names:
                self._wait_listening(name)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for sshd in self.sshds.values():
            if sshd.poll() is None:
                sshd.terminate()
                sshd.wait(10)
        for name in [self.ops, *self.netns.values()]:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)

    @property
    def namespaces(self):
        return [self.ops, *self.netns.values()]

    def start_sshd(self, name):
        self.sshds[name] = subprocess.Popen(
            ["ip", "netns", "exec", self.netns[name], SSHD, "-D", "-f",
             str(self.private / f"sshd_{name}"), "-E", str(self.private / f"sshd_{name}.log")])

    def stop_sshd(self, name):
        self.sshds[name].terminate()
        self.sshds[name].wait(10)

    def ipclab(self, scratch, *args, timeout=300):
        """`ipclab ARGS` in the ops namespace, scratch as its TMPDIR."""
        return subprocess.run(self.ipclab_argv(*args), cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=self.env(scratch))

    def ipclab_argv(self, *args):
        return ["ip", "netns", "exec", self.ops, *IPCLAB, *args]

    @staticmethod
    def env(scratch):
        return {**os.environ, "TMPDIR": str(scratch), "COLUMNS": "250"}

    def pids(self, name):
        listed = subprocess.run(["ip", "netns", "pids", self.netns[name]], capture_output=True,
                                text=True)
        return [int(p) for p in listed.stdout.split()]

    def left_running(self):
        """{host: pids other than its sshd}."""
        return {n: set(self.pids(n)) - {self.sshds[n].pid} for n in self.names}

    def _switch(self):
        run = lambda *argv: subprocess.run(argv, check=True, capture_output=True)  # noqa: E731
        run("ip", "netns", "add", self.ops)
        run("ip", "-n", self.ops, "link", "set", "lo", "up")
        run("ip", "-n", self.ops, "link", "add", "br0", "type", "bridge")
        run("ip", "-n", self.ops, "addr", "add", "10.81.0.1/24", "dev", "br0")
        run("ip", "-n", self.ops, "link", "set", "br0", "up")
        for i, name in enumerate(self.names):
            netns = self.netns[name]
            run("ip", "netns", "add", netns)
            run("ip", "-n", netns, "link", "set", "lo", "up")
            run("ip", "-n", self.ops, "link", "add", f"port{i}", "type", "veth", "peer", "name",
                "eth0", "netns", netns)
            run("ip", "-n", self.ops, "link", "set", f"port{i}", "master", "br0", "up")
            run("ip", "-n", netns, "addr", "add", f"{self.address[name]}/24", "dev", "eth0")
            run("ip", "-n", netns, "link", "set", "eth0", "up")

    def _keys_and_configs(self):
        """One host key for every sshd, a user key authorised for root, each sshd's config and
        the client's (-F) with an alias per host."""
        private = self.private
        for key in ("host_key", "user_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                            str(private / key)], check=True)
        (private / "authorized_keys").write_text((private / "user_key.pub").read_text())
        host_key = (private / "host_key.pub").read_text()
        (private / "known_hosts").write_text("".join(f"[{a}]:{PORT} {host_key}"
                                                     for a in self.address.values()))
        for name in self.names:
            (private / f"sshd_{name}").write_text(
                f"ListenAddress {self.address[name]}\nPort {PORT}\nHostKey {private}/host_key\n"
                f"AuthorizedKeysFile {private}/authorized_keys\nPidFile none\nUsePAM no\n"
                "StrictModes no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                "KbdInteractiveAuthentication no\nMaxSessions 50\nMaxStartups 50\nLogLevel ERROR\n")
        aliases = "".join(f"Host {n}\n  HostName {self.address[n]}\n" for n in self.names)
        self.config.write_text(
            f"{aliases}\nHost *\n  Port {PORT}\n  User root\n  IdentityFile {private}/user_key\n"
            f"  IdentitiesOnly yes\n  UserKnownHostsFile {private}/known_hosts\n"
            "  StrictHostKeyChecking yes\n")
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation dir

    def _wait_listening(self, name, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.sshds[name].poll() is None, f"sshd of {name} exited at start"
            listening = subprocess.run(["ip", "netns", "exec", self.netns[name], "ss", "-Hltn",
                                        f"sport = :{PORT}"], capture_output=True, text=True)
            if listening.stdout.strip():
                return
            time.sleep(0.05)  # polling for sshd's socket, not synchronising peers
        raise AssertionError(f"sshd of {name} did not listen within {timeout:g} s")
