"""What every private server of a round (broker.PrivateServer: Redis, PROTOCOL.md 4.10; NATS,
4.11) does alike: a server killed during the case is said when it is stopped, a missing binary
is one clear error before anything is made, and one that outlived its run is found by `ipclab
leaks`."""
import os
import shutil
import signal
import subprocess
import time

import pytest

from ipclab.execute import leaks
from ipclab.execute.nats_server import NatsServer, nats_binary
from ipclab.execute.peers import PeerError
from ipclab.execute.redis_server import RedisServer, redis_binary
from ipclab.plan.catalog import repo_root

# (module, its server made in a directory, the binary's finder, its title, its Debian package)
SERVERS = {
    "redis": ("ipclab.execute.redis_server",
              lambda d: RedisServer(d, repo_root(), "uds", "n"), redis_binary, "the Redis server",
              "redis-server"),
    "nats": ("ipclab.execute.nats_server", lambda d: NatsServer(d, repo_root(), "n"),
             nats_binary, "the NATS server", "nats-server"),
}
# A server's command line as a round would start it in directory d (its working directory,
# which is how leaks tells it), but on a port of its own choosing and nothing stored.
LEFT_BEHIND = {
    "redis": lambda d: [redis_binary(), "--port", "0", "--unixsocket", str(d / "s.sock"),
                        "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
                        "--dir", str(d)],
    "nats": lambda d: [nats_binary(), "--addr", "127.0.0.1", "--port", "-1"],
}


def needs(kind):
    """Skips where `kind`'s server is not installed; returns its SERVERS entry."""
    entry = SERVERS[kind]
    if entry[2]() is None:
        pytest.skip(f"no {entry[4]}: make setup installs Debian's")
    return entry


@pytest.mark.parametrize("kind", SERVERS)
def test_a_killed_server_is_said_when_stopped(tmp_path, kind):
    _, make, _, title, _ = needs(kind)
    server = make(tmp_path / "s")
    server.start()
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait(5)
    assert server.stop() == f"{title} was killed by SIGKILL during the case"
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("kind", SERVERS)
def test_without_the_binary_the_start_is_one_clear_error(tmp_path, monkeypatch, kind):
    module, make, binary, _, package = SERVERS[kind]
    monkeypatch.setattr(f"{module}.{binary.__name__}", lambda: None)
    with pytest.raises(PeerError, match=f"install the Debian package {package}"):
        make(tmp_path / "s").start()
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("kind", SERVERS)
def test_leaks_finds_a_server_that_outlived_its_run(tmp_path, kind):
    _, _, _, _, package = needs(kind)
    # A run that is gone (this child, reaped) left its server running in its workspace.
    child = subprocess.Popen(["true"])
    child.wait()
    workspace = tmp_path / f"ipclab-{child.pid}-x"
    workspace.mkdir(mode=0o700)
    # Started without setpriv's death signal (its parent here is this test, alive).
    server = subprocess.Popen(LEFT_BEHIND[kind](workspace), cwd=workspace,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        found = []
        while time.monotonic() < deadline and not found:
            found = [line for line in leaks.find() if f"process {server.pid} " in line]
            time.sleep(0.05)  # polling a process table we do not own
        assert len(found) == 1 and package in found[0] and str(workspace) in found[0], \
            leaks.find()
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(workspace)  # a killed server leaves its socket file
    assert not [line for line in leaks.find() if f"process {server.pid} " in line]
