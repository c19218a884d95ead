"""The runner against a fake peer: every way a peer can misbehave ends as a failed case with a
reason, and nothing is left behind."""
import os
import sys
import time
from pathlib import Path

import pytest

from ipclab.plan import matrix
from ipclab.plan.catalog import Language
from ipclab.execute.peers import Peer, _live_members
from ipclab.execute.runner import Runner
from ipclab.plan.scenario import build_scenario
from ipclab.execute.workspace import Workspace

FAKE = str(Path(__file__).with_name("fake_peer.py"))


@pytest.fixture
def fake(catalog):
    catalog.languages["fake"] = Language(name="fake", display="Fake",
                                         command=[sys.executable, FAKE],
                                         mechanisms={"tcp": ["drive", "serve"]})
    yield catalog
    del catalog.languages["fake"]


def run_one(catalog, monkeypatch, server="ok", client="ok", **run):
    monkeypatch.setenv("FAKE_SERVER", server)
    monkeypatch.setenv("FAKE_CLIENT", client)
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["fake"], "server": ["fake"],
                      "placement": ["unpinned"]},
           "run": {"iterations": 10, "warmup": 0, "ready_timeout": 5, "case_timeout": 10, **run}}
    scenario = build_scenario(raw, "t.toml", catalog, {}, "t")
    (case,) = matrix.expand(scenario, catalog)
    with Workspace() as ws:
        runner = Runner(scenario, catalog, ws)
        outcome = runner.run(case)
        assert runner.live == []
        assert list(ws.path.iterdir()) == []  # the case directory is gone
    assert not ws.path.exists()
    return outcome


def test_ok_case_reads_the_samples(fake, monkeypatch):
    outcome = run_one(fake, monkeypatch)
    assert outcome.status == "ok", outcome.reason
    assert outcome.samples.size == 10 and outcome.samples.min() == 1000
    assert outcome.server["runtime"] == "fake 1"


@pytest.mark.parametrize("server,client,expected", [
    ("die", "ok", "server exited with code 5 before READY; its stderr: fake: cannot bind"),
    ("no-ready", "ok", "server printed no READY within 2 s"),
    ("garbage", "ok", "server printed 'hello' instead of a READY line"),
    ("ok", "crash", "client exited with code 1: fake: segfault-ish (no result file)"),
    ("ok", "mismatch", "client: payload-mismatch: payload mismatch at sequence 3"),
    ("ok", "short", "client reported ok but wrote 9 samples, expected 10"),
    ("ok", "hang", "timeout: the case took longer than 3 s"),
    ("kill-self-on-connect", "connect",
     "server was killed by SIGKILL during the case; client: io: end of stream"),
])
def test_misbehaving_peers_fail_the_case_with_a_reason(fake, monkeypatch, server, client, expected):
    outcome = run_one(fake, monkeypatch, server, client, ready_timeout=2, case_timeout=3)
    assert outcome.status == "failed"
    assert expected in outcome.reason


@pytest.mark.parametrize("server, client, expected", [
    ("unsupported", "ok", "the server peer does not support this: ipclab-peer: unsupported: "
                          "--nodelay off"),
    ("ok", "unsupported", "the client peer does not support this: --rest-body json"),
])
def test_a_peer_that_cannot_honour_a_setting_makes_the_case_not_applicable(
        fake, monkeypatch, server, client, expected):
    """Exit 7 (PROTOCOL.md section 8): a language's library that cannot keep Nagle on, say. That
    is not a failure of the mechanism, and the reason is the peer's own."""
    outcome = run_one(fake, monkeypatch, server, client, ready_timeout=5)
    assert outcome.status == "not-applicable"
    assert expected in outcome.reason


def test_a_server_that_ignores_sigterm_is_killed(fake, monkeypatch):
    import ipclab.execute.runner
    monkeypatch.setattr(ipclab.execute.runner, "SERVER_GRACE", 0.5)
    outcome = run_one(fake, monkeypatch, server="ignore-term")
    assert outcome.status == "ok"
    assert any("SIGKILL" in note for note in outcome.notes)


def test_stale_workspaces_of_dead_runs_are_removed(tmp_path):
    stale = tmp_path / "ipclab-999999999-abc"
    stale.mkdir()
    mine = tmp_path / f"ipclab-{os.getpid()}-live"
    mine.mkdir()
    with Workspace(tmp_path) as ws:
        assert not stale.exists() and mine.exists() and ws.path.exists()


@pytest.mark.parametrize("line,expected", [
    ("hello", "instead of a READY line"),
    ("READY [1]", "no endpoint string"),
    ('READY {"endpoint": 5}', "no endpoint string"),
    ('READY {"endpoint": "x", "runtime": 3, "contract": 6}', "runtime is not a string"),
    ('READY {"endpoint": "x", "contract": 1}', "server speaks contract 1"),
    ("READY " + "[" * 100000, "not valid"),
])
def test_a_servers_first_line_is_its_ready_object_or_one_reason(line, expected):
    from ipclab.execute.peers import PeerError, parse_ready
    with pytest.raises(PeerError, match=expected):
        parse_ready(line)
    assert parse_ready('READY {"endpoint": "127.0.0.1:1", "contract": 6}')["endpoint"] == "127.0.0.1:1"


def test_a_result_file_with_a_field_of_the_wrong_type_fails_the_case_with_its_name():
    from ipclab.execute.runner import result_problem
    assert result_problem({"status": "ok", "samples": 10, "lost": None}) is None
    assert result_problem({"samples": "10"}) == "samples is '10', not a count"
    assert result_problem({"stream_ns": -1}) == "stream_ns is '-1', not a count"
    assert result_problem({"warmup": True}) == "warmup is 'True', not a count"
    assert result_problem({"runtime": ["x"]}) == "runtime is not a string"
    assert "client_cpu is not four counts" in result_problem({"client_cpu": {"user_ns": 1}})


def test_stop_leaves_nothing_of_the_peers_process_group(tmp_path):
    # A peer's child that outlives it for a moment (the C++ server's stdin watcher) or that
    # ignores SIGTERM: after stop() returns, nothing of the peer's process group runs.
    script = ("import os, signal, sys, time\n"
              "if os.fork() == 0:\n"
              "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
              "    time.sleep(60)\n"
              "sys.stdin.read(); time.sleep(60)\n")
    peer = Peer("server", [sys.executable, "-c", script], tmp_path).start()
    time.sleep(0.3)  # the child is forked
    pgid = peer.pid
    peer.stop(grace=2)
    assert not _live_members(pgid)
