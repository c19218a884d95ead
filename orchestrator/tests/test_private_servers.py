"""What every private server of a round (broker.PrivateServer: Redis, PROTOCOL.md 4.10; NATS,
4.11) does alike: a server killed during the case is said when it is stopped, and a missing
binary is one clear error before anything is made."""
import os
import signal

import pytest

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


@pytest.mark.parametrize("kind", SERVERS)
def test_a_killed_server_is_said_when_stopped(tmp_path, kind):
    _, make, binary, title, package = SERVERS[kind]
    if binary() is None:
        pytest.skip(f"no {package}: make setup installs Debian's")
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
