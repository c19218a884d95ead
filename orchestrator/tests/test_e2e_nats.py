"""End to end for NATS (PROTOCOL.md 4.11) through the runner and the CLI, what is NATS's own
(every pair round tripping and streaming through the server ipclab starts per round, and a
corrupted response failing its case, are in test_e2e_message_libraries.py): a server the
scenario names used and left running; a killed server failing its case with the reason; Ctrl-C
leaving no server; nothing for `ipclab leaks`; a request over NATS's largest message said not
applicable (short, which no message library carries, is in test_e2e_message_libraries.py)."""
import os

import pytest

from ipclab.execute.nats_server import NatsServer, nats_binary
from ipclab.execute.probe import load_catalog
from ipclab.plan.catalog import repo_root
from private_servers import (check_a_killed_server_fails_its_case, check_ctrl_c_leaves_no_server,
                             servers_of)
from test_e2e import ipclab, run_cases

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    nats_binary() is None, reason="no nats-server: make setup installs Debian's")]


def nats_servers_of(run_pid):
    """PIDs of the NATS servers a run started."""
    return servers_of(run_pid, b"nats-server")


def test_a_named_server_is_used_and_neither_started_nor_stopped(tmp_path):
    # [hosts] nats: the rounds go through a server the scenario names; the run starts none and
    # leaves this one running.
    existing = NatsServer(tmp_path / "existing", repo_root(), "unused")
    try:
        existing.start()
        _, outcomes = run_cases(load_catalog(), {
            "matrix": {"mechanism": ["nats"], "client": ["cpp", "python"],
                       "server": ["python", "cpp"], "request_size": ["1KiB"],
                       "response_size": ["16"], "placement": ["unpinned"]},
            "run": {"iterations": 20, "warmup": 2},
            "hosts": {"nats": "nats://%s:%d" % existing.address}},
            pairs={("cpp", "python"), ("python", "cpp")})
        assert [(o.case.label, o.status) for o in outcomes] == \
            [(o.case.label, "ok") for o in outcomes] and len(outcomes) == 2
        assert nats_servers_of(os.getpid()) == [], "the run started a NATS server of its own"
        assert not existing.process.exited(), "the run stopped the scenario's server"
        assert all(":c" in o.server["endpoint"] for o in outcomes)
        assert all(o.server["broker"].startswith("NATS 2.") for o in outcomes)
    finally:
        assert existing.stop() is None


def test_a_killed_server_fails_its_case_with_the_reason_and_leaves_nothing(tmp_path):
    check_a_killed_server_fails_its_case(tmp_path, "nats", b"nats-server", "the NATS server")


def test_ctrl_c_mid_case_leaves_no_server(tmp_path):
    check_ctrl_c_leaves_no_server(tmp_path, "nats", b"nats-server")


def test_a_request_over_the_largest_message_is_not_applicable(tmp_path):
    # mechanisms.toml's max_payload, the nats-server's max_payload ipclab sets (64 MiB).
    big = tmp_path / "big"
    done = ipclab("run", "--mechanism", "nats", "--client", "cpp", "--server", "cpp",
                  "--request-size", "128MiB", "--response-size", "16", "--iterations", "1",
                  "--rounds", "1", "--out", str(big))
    assert done.returncode == 0, done.stderr
    assert "a NATS message is at most 64 MiB" in (big / "cases.csv").read_text()
    assert ipclab("leaks").returncode == 0
