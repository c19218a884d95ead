"""End to end for Redis (PROTOCOL.md 4.10) through the runner and the CLI, what is Redis's own
(each language round tripping and streaming both ways through the server ipclab starts per
round, and a corrupted response failing its case, are in test_e2e_message_libraries.py): a
server the scenario names used and left running; a killed server failing its case with the
reason; Ctrl-C leaving no server; nothing for `ipclab leaks` after."""
import os
import random
import signal
import time
from pathlib import Path

import pytest

from ipclab.execute.probe import load_catalog
from ipclab.execute.redis_server import RedisServer, redis_binary
from ipclab.plan.catalog import repo_root
from test_e2e import cases_csv, client_running, ipclab, run_cases, start_run

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    redis_binary() is None, reason="no redis-server: make setup installs Debian's")]
MECHANISMS = ("redis-tcp", "redis-uds")


def redis_servers_of(run_pid):
    """PIDs of the Redis servers a run started (their working directory is in its workspace)."""
    mark = f"/ipclab-{run_pid}-"
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if mark in os.readlink(proc / "cwd") and b"redis-server" in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


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


def start_endless(tmp_path, mechanism):
    seed, out = random.randrange(2, 2**63), tmp_path / "run"
    proc = start_run(seed, out, "--mechanism", mechanism, "--client", "cpp", "--server", "cpp",
                     "--request-size", "16", "--response-size", "16",
                     "--iterations", "10000000000", "--warmup", "0")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if redis_servers_of(proc.pid) and client_running(seed):
            return seed, out, proc
        time.sleep(0.05)  # polling a process table we do not own
    proc.kill()
    proc.wait()
    raise AssertionError(f"no Redis server and client appeared: "
                         f"{cases_csv(out) if (out / 'cases.csv').exists() else 'no cases.csv'}")


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_killed_server_fails_its_case_with_the_reason_and_leaves_nothing(tmp_path, mechanism):
    seed, out, proc = start_endless(tmp_path, mechanism)
    try:
        for pid in redis_servers_of(proc.pid):
            os.kill(pid, signal.SIGKILL)
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    assert redis_servers_of(proc.pid) == []
    assert code == 1
    (case,) = cases_csv(out)
    assert case["status"] == "failed" and \
        "the Redis server was killed by SIGKILL" in case["reason"], case["reason"]
    assert ipclab("leaks").returncode == 0


def test_ctrl_c_mid_case_leaves_no_server(tmp_path):
    seed, out, proc = start_endless(tmp_path, "redis-uds")
    try:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    assert code == 130
    assert redis_servers_of(proc.pid) == []
    assert ipclab("leaks").returncode == 0
