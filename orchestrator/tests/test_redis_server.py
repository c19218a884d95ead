"""The Redis server of a round (PROTOCOL.md 4.10, execute/redis_server.py): started on TCP or on
an owner-only Unix socket, answering, stopped and removed; the key names of rounds; [hosts]
redis (a killed server, a missing binary and one that outlived its run found by `ipclab leaks`:
test_private_servers.py)."""
import os
import socket
import stat
import sys

import pytest

from ipclab.common.errors import UserError
from ipclab.execute.redis_server import RedisServer, key_name, redis_binary
from ipclab.plan import hosts
from ipclab.plan.catalog import repo_root

needs_redis = pytest.mark.skipif(redis_binary() is None,
                                 reason="no redis-server: make setup installs Debian's")


def ask(address, *words):
    """One RESP command over a fresh connection; the raw reply."""
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    with socket.socket(family) as s:
        s.settimeout(5)
        s.connect(address)
        s.sendall(f"*{len(words)}\r\n".encode() + b"".join(
            f"${len(w)}\r\n{w}\r\n".encode() for w in words))
        return s.recv(65536)


def test_key_names_start_at_the_runs_workspace_and_keep_to_the_safe_characters(tmp_path):
    assert key_name("/tmp/ipclab-4242-k3x9/c0003") == "ipclab-4242-k3x9:c0003"
    assert key_name("/tmp/ipclab-4242-k3x9/c0003/calibration") == \
        "ipclab-4242-k3x9:c0003:calibration"
    assert key_name("/tmp/x y/ipclab-1-a/c1") == "ipclab-1-a:c1"
    assert key_name("/var/odd dir/c1") == "var:odd_dir:c1"


@needs_redis
@pytest.mark.parametrize("transport", ["tcp", "uds"])
def test_a_server_starts_private_answers_and_leaves_nothing(tmp_path, transport):
    server = RedisServer(tmp_path / "r", repo_root(), transport, "ipclab-1-a:c1")
    try:
        endpoint = server.start()
        assert stat.S_IMODE((tmp_path / "r").stat().st_mode) == 0o700
        assert os.readlink(f"/proc/{server.process.pid}/cwd") == str(tmp_path / "r")
        if transport == "tcp":
            host, port = server.address
            assert host == "127.0.0.1" and endpoint == f"redis://127.0.0.1:{port}/ipclab-1-a:c1"
        else:
            path = tmp_path / "r" / "redis.sock"
            assert endpoint == f"unix://{path}#ipclab-1-a:c1"
            assert stat.S_ISSOCK(path.stat().st_mode) and stat.S_IMODE(path.stat().st_mode) == 0o700
        assert ask(server.address, "PING") == b"+PONG\r\n"
        config = ask(server.address, "CONFIG", "GET", "save") + \
            ask(server.address, "CONFIG", "GET", "appendonly")
        assert b"$0\r\n\r\n" in config and b"no" in config  # nothing is persisted
    finally:
        assert server.stop() is None
    assert not (tmp_path / "r").exists()


def test_hosts_name_an_existing_redis_server_per_mechanism():
    assert hosts.parse_redis({"redis": "redis://10.0.0.5:6379", "redis_socket": "/run/r.sock"},
                             "s") == {"redis-tcp": "redis://10.0.0.5:6379",
                                      "redis-uds": "/run/r.sock"}
    assert hosts.parse_redis(None, "s") == {}
    for bad in ({"redis": "10.0.0.5:6379"}, {"redis": "redis://h:0"},
                {"redis_socket": "rel/r.sock"}, {"redis_socket": "/a#b"}):
        with pytest.raises(UserError, match="hosts.redis"):
            hosts.parse_redis(bad, "s")
