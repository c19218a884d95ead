"""End to end for Redis (PROTOCOL.md 4.10) through the runner and the CLI, what is Redis's own
(each language round tripping and streaming both ways through the server ipclab starts per
round, and a corrupted response failing its case, are in test_e2e_message_libraries.py): a
server the scenario names used and left running; a killed server failing its case with the
reason; Ctrl-C leaving no server; nothing for `ipclab leaks` after."""
import os

import pytest

from ipclab.execute.probe import load_catalog
from ipclab.execute.redis_server import RedisServer, redis_binary
from ipclab.plan.catalog import repo_root
from private_servers import (check_a_killed_server_fails_its_case, check_ctrl_c_leaves_no_server,
                             servers_of)
from test_e2e import ipclab, run_cases

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    redis_binary() is None, reason="no redis-server: make setup installs Debian's")]
MECHANISMS = ("redis-tcp", "redis-uds")


def redis_servers_of(run_pid):
    """PIDs of the Redis servers a run started."""
    return servers_of(run_pid, b"redis-server")


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_named_server_is_used_and_neither_started_nor_stopped(tmp_path, mechanism):
    # [hosts] redis, redis_socket: the rounds go through a server the scenario names; the run
    # starts none and leaves this one running, its lists gone once the exchange ended.
    transport = "tcp" if mechanism == "redis-tcp" else "uds"
    existing = RedisServer(tmp_path / "existing", repo_root(), transport, "unused")
    try:
        existing.start()
        named = ({"redis": "redis://%s:%d" % existing.address} if transport == "tcp"
                 else {"redis_socket": existing.address})
        _, outcomes = run_cases(load_catalog(), {
            "matrix": {"mechanism": [mechanism], "client": ["cpp", "python"],
                       "server": ["python", "cpp"], "request_size": ["1KiB"],
                       "response_size": ["16"], "placement": ["unpinned"]},
            "run": {"iterations": 20, "warmup": 2}, "hosts": named},
            pairs={("cpp", "python"), ("python", "cpp")})
        assert [(o.case.label, o.status) for o in outcomes] == \
            [(o.case.label, "ok") for o in outcomes] and len(outcomes) == 2
        assert redis_servers_of(os.getpid()) == [], "the run started a Redis server of its own"
        assert not existing.process.exited(), "the run stopped the scenario's server"
        assert all(":c" in o.server["endpoint"] for o in outcomes)
    finally:
        assert existing.stop() is None


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_killed_server_fails_its_case_with_the_reason_and_leaves_nothing(tmp_path, mechanism):
    check_a_killed_server_fails_its_case(tmp_path, mechanism, b"redis-server", "the Redis server")


def test_ctrl_c_mid_case_leaves_no_server(tmp_path):
    check_ctrl_c_leaves_no_server(tmp_path, "redis-uds", b"redis-server")
