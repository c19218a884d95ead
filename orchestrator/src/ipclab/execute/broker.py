"""The Apache ActiveMQ broker of a round (PROTOCOL.md 4.7): started privately in the round's 0700
directory, reached at the port it listens on, stopped and removed with the round.

The broker is Debian's ActiveMQ 5.17 (package `activemq`), whose launcher puts the `lib/` of its
base directory on the class path: the AMQP transport, which Debian does not package, goes there
(`activemq-amqp` and `proton-j` from Maven Central, fetched at set-up by scripts/setup-broker into
.build/activemq/lib). Nothing of the system's ActiveMQ instance is used or touched.

    python -m ipclab.execute.broker DIR   # a broker in DIR until Ctrl-C (for peers' own tests)
"""
import os
import random
import shutil
import signal
import socket
import sys
import time
from pathlib import Path

from ipclab.execute.peers import Peer, PeerError
from ipclab.execute.places import LOCAL

ACTIVEMQ_HOME = Path("/usr/share/activemq")
LAUNCHER = ACTIVEMQ_HOME / "bin" / "activemq.jar"
START_TIMEOUT = 90.0   # a JVM and Spring on a busy 2-vCPU machine: 5-20 s
# tcpNoDelay: with Nagle on, the broker holds each answer behind its own settlement frame until
# the client's delayed ACK, 40 ms a round trip (seen with strace), which would be measured.
CONFIG = """<beans xmlns="http://www.springframework.org/schema/beans"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.springframework.org/schema/beans
    http://www.springframework.org/schema/beans/spring-beans-2.0.xsd
    http://activemq.apache.org/schema/core
    http://activemq.apache.org/schema/core/activemq-core.xsd">
  <broker xmlns="http://activemq.apache.org/schema/core" brokerName="ipclab" useJmx="false"
          advisorySupport="false" schedulerSupport="false" dataDirectory="{data}">
    <persistenceAdapter><kahaDB directory="{data}/kahadb"/></persistenceAdapter>
    <transportConnectors>
      <transportConnector name="amqp" uri="amqp://{address}:{port}?transport.tcpNoDelay=true"/>
    </transportConnectors>
  </broker>
</beans>
"""


def transport_jars(root):
    """The AMQP transport's jars (scripts/setup-broker), or a reason they are not there."""
    lib = Path(root) / ".build" / "activemq" / "lib"
    jars = sorted(lib.glob("*.jar")) if lib.is_dir() else []
    if not LAUNCHER.is_file():
        return None, "no ActiveMQ: install the Debian package activemq (make setup)"
    if not any(j.name.startswith("activemq-amqp") for j in jars):
        return None, f"no AMQP transport for ActiveMQ in {lib}: run scripts/setup-broker (make setup)"
    return jars, None


class PrivateServer:
    """What a round's private server (a broker, 4.7; a Redis server, 4.10) shares: its 0700
    directory, the process started as a Peer with logs there, `stop()` ending it (SIGTERM, then
    SIGKILL) and removing the directory, and whether it had died before. A subclass says what it
    is (`title`) and how it starts (`start(place)`, which returns the responder's endpoint)."""

    title = "the server"

    def __init__(self, directory, root):
        self.dir, self.root = Path(directory), Path(root)
        self.process = None
        self.url = None

    def _launch(self, argv, place):
        self.process = Peer("broker", place.command(argv), self.dir).start()

    def _wait(self, ready, timeout, log_tail, interval):
        """Polls ready() until it holds, the process exits or `timeout` passes; PeerError
        naming the reason (and log_tail(), the log's first error) otherwise."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.exited():
                raise PeerError(f"{self.title} {self.process.describe_exit()} before it "
                                f"listened: {log_tail()}")
            if ready():
                return
            time.sleep(interval)
        raise PeerError(f"{self.title} did not listen within {timeout:g} s: {log_tail()}")

    def stop(self):
        """Ends the server (SIGTERM, then SIGKILL) and removes its directory; returns a reason
        when the server had died before it was stopped, else None."""
        died = None
        if self.process is not None:
            if self.process.exited():
                died = f"{self.title} {self.process.describe_exit()} during the case"
            self.process.stop(grace=10.0)
        shutil.rmtree(self.dir, ignore_errors=True)
        return died


class Broker(PrivateServer):
    """One private ActiveMQ broker: `start()` returns its amqp:// URL; `stop()` ends it and
    removes its directory, and says whether it had died before (a killed broker fails its case)."""

    title = "the ActiveMQ broker"

    def start(self, place=LOCAL):
        """Starts the broker where `place` is (its namespace, its address) and returns its URL."""
        jars, why = transport_jars(self.root)
        if why:
            raise PeerError(why)
        self.dir.mkdir(mode=0o700)
        (self.dir / "lib").mkdir(mode=0o700)
        for jar in jars:
            (self.dir / "lib" / jar.name).symlink_to(jar.resolve())
        port = free_port()
        config = self.dir / "activemq.xml"
        config.write_text(CONFIG.format(data=self.dir / "data", address=place.address, port=port))
        config.chmod(0o600)
        self._launch(self._argv(config), place)
        self._wait(lambda: port in listening_ports(self.process.pid), START_TIMEOUT,
                   self._log_tail, 0.2)
        self.url = f"amqp://{place.address}:{port}"
        return self.url

    def _argv(self, config):
        # setpriv: the broker dies with this process even if it is SIGKILLed (no stdin lifeline
        # reaches a JVM). -Xmx bounds it on a shared machine (2 GiB: two 128 MiB messages in flight
        # and their copies; 512 MiB dropped them); the directory is the broker's base,
        # conf and data, so nothing outside it is read or written.
        base = str(self.dir)
        return ["setpriv", "--pdeathsig", "KILL", "--", shutil.which("java") or "java",
                "-Xmx2g", "-Djava.awt.headless=true", f"-Dactivemq.home={ACTIVEMQ_HOME}",
                f"-Dactivemq.base={base}", f"-Dactivemq.conf={base}",
                f"-Dactivemq.data={base}/data", "-jar", str(LAUNCHER), "start",
                f"xbean:file:{config}"]

    def _log_tail(self):
        lines = [line for path in (self.process.stdout_path, self.process.stderr_path)
                 if path.exists() for line in path.read_text(errors="replace").splitlines()
                 if "ERROR" in line or "Exception" in line]
        return lines[0][:300] if lines else "see " + str(self.process.stdout_path)


def free_port(rng=random.SystemRandom()):
    """A port free on 127.0.0.1 now, below the kernel's ephemeral range. The broker is given it
    (ActiveMQ binds port 0 too, but its JVM listens on another ephemeral port first, so "the port
    it listens on" is not one answer). Below the ephemeral range no connect() takes it as its
    source port in the seconds the broker's JVM takes to start: an ephemeral one did, once, when
    other tests made thousands of connections beside it. Another program binding it in that
    moment is a start-up error, said."""
    low = ephemeral_low()
    for _ in range(100):
        port = rng.randrange(max(1024, low // 3), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    with socket.socket() as s:  # a machine whose low ports are all taken: an ephemeral one
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ephemeral_low(path="/proc/sys/net/ipv4/ip_local_port_range"):
    """The first port of the kernel's ephemeral range (32768 by default)."""
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def listening_ports(pid):
    """The TCP ports a process listens on."""
    inodes, ports = set(), set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return ports
    for fd in fds:
        try:  # a descriptor can close while we look (the listing's own, for one)
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def main(argv):
    """A broker in DIR (created; must not exist) until Ctrl-C: prints its URL, then waits."""
    from ipclab.plan.catalog import repo_root
    if len(argv) != 1:
        print("usage: python -m ipclab.execute.broker DIR", file=sys.stderr)
        return 2
    return serve_until_interrupted(Broker(argv[0], repo_root()))


def serve_until_interrupted(server):
    """Start SERVER (a PrivateServer), print what start() returns, and keep it until Ctrl-C or
    SIGTERM; stopped (its directory removed) however it ends. The modules' `main`s, for tests and
    a user's own runs."""
    # Started in the background by a shell, SIGINT arrives ignored; SIGTERM must stop the server
    # and remove its directory too, not leave it to die by its death signal.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # raises KeyboardInterrupt too
    try:
        print(server.start(), flush=True)
        while not server.process.exited():
            time.sleep(0.5)
        return 1
    except PeerError as e:
        print(f"ipclab: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):  # a second signal must not cut the stop short
            signal.signal(sig, signal.SIG_IGN)
        server.stop()

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
