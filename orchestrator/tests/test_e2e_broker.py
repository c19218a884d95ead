"""End to end for the activemq mechanism (PROTOCOL.md 4.7) through the CLI: a broker ipclab starts
for each round and removes after it, both delivery modes, the languages' responders and clients
around the rotation, a killed broker failing its case with the reason, and Ctrl-C leaving no
broker. Each round starts a JVM broker (5-20 s here): the cases are few and short."""
import os
import random
import signal
import time
from pathlib import Path

import pytest

from ipclab.execute.broker import Broker
from ipclab.execute.probe import load_catalog
from ipclab.plan.catalog import repo_root
from test_e2e import cases_csv, client_running, offered, rotation, run_cases, start_run

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    not Path("/usr/share/activemq/bin/activemq.jar").is_file(),
    reason="no ActiveMQ: make setup installs the Debian package activemq")]


def brokers_of(run_pid):
    """PIDs of the brokers a run started (their base directory is in the run's workspace)."""
    mark = f"/ipclab-{run_pid}-".encode()
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            args = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if b"activemq.jar" in args and mark in args:
            found.append(int(proc.name))
    return found


def finished(proc, seed, out, timeout):
    code = proc.wait(timeout=timeout)
    assert brokers_of(proc.pid) == [], "a broker outlived its run"
    return code, cases_csv(out) if (out / "cases.csv").exists() else []


def test_both_delivery_modes_around_the_rotation_and_no_broker_left():
    # A broker per round costs 5-20 s here: each language once as client and once as server,
    # non-persistent, and one pair persistent (every pair and mode would be 18 brokers, 7 min).
    langs = offered("activemq")
    assert "python" in langs
    pairs = rotation(langs)
    wanted = {(*pair, "non-persistent") for pair in pairs} | {(langs[1], langs[0], "persistent")}
    _, outcomes = run_cases(load_catalog(), {
        "matrix": {"mechanism": ["activemq"], "client": langs, "server": langs,
                   "delivery": ["non-persistent", "persistent"], "request_size": ["1KiB"],
                   "response_size": ["16"], "placement": ["unpinned"]},
        "run": {"iterations": 20, "warmup": 2}},
        keep=lambda c: (c.client, c.server, dict(c.settings)["delivery"]) in wanted)
    assert [(o.case.label, o.status, o.reason) for o in outcomes if o.status != "ok"] == []
    assert {(o.case.client, o.case.server, dict(o.case.settings)["delivery"])
            for o in outcomes} == wanted
    assert brokers_of(os.getpid()) == [], "a broker outlived its round"


def test_an_existing_broker_is_used_and_neither_started_nor_stopped(tmp_path):
    # [hosts] broker: the rounds go through a broker the scenario names; the run starts none
    # (brokers_of finds a broker in the run's workspace) and leaves this one running.
    existing = Broker(tmp_path / "existing", repo_root())
    try:
        url = existing.start()
        langs = offered("activemq")
        _, outcomes = run_cases(load_catalog(), {
            "matrix": {"mechanism": ["activemq"], "client": langs[:2], "server": langs[:2],
                       "request_size": ["64KiB"], "response_size": ["16"],
                       "placement": ["unpinned"]},
            "run": {"iterations": 20, "warmup": 2}, "hosts": {"broker": url}},
            pairs={(langs[0], langs[1]), (langs[1], langs[0])})
        assert [(o.case.label, o.status, o.reason) for o in outcomes] == [
            (o.case.label, "ok", None) for o in outcomes] and len(outcomes) == 2
        assert brokers_of(os.getpid()) == [], "the run started a broker of its own"
        assert not existing.process.exited(), "the run stopped the scenario's broker"
    finally:
        assert existing.stop() is None


@pytest.mark.skipif(os.geteuid() != 0, reason="wire bytes need root (network namespaces)")
def test_wire_bytes_count_the_clients_traffic_with_the_broker():
    # The broker and the responder share the server's namespace (a veth pair): only the client's
    # messages cross to it and are counted. A 16 B frame rides in an AMQP transfer with its
    # message's sections (durable header, properties with reply-to and correlation-id), so
    # more than tcp's 92 B a call each way; and an acknowledgement or flow frame beside.
    _, (outcome,) = run_cases(load_catalog(), {
        "matrix": {"mechanism": ["activemq"], "client": ["cpp"], "server": ["cpp"],
                   "request_size": ["16"], "response_size": ["16"], "placement": ["unpinned"]},
        "run": {"iterations": 50, "warmup": 5, "wire_bytes": True}})
    assert outcome.status == "ok", outcome.reason
    assert 92 < outcome.wire["req_bytes"] < 2000 and 92 < outcome.wire["resp_bytes"] < 2000, \
        outcome.wire


def start_endless(tmp_path):
    seed, out = random.randrange(2, 2**63), tmp_path / "run"
    proc = start_run(seed, out, "--mechanism", "activemq", "--client", "python", "--server",
                     "python", "--request-size", "16", "--response-size", "16",
                     "--iterations", "10000000000", "--warmup", "0")
    deadline = time.monotonic() + 180  # the broker may take its START_TIMEOUT (90 s), then peers
    while time.monotonic() < deadline and proc.poll() is None:
        if brokers_of(proc.pid) and client_running(seed):
            return seed, out, proc
        time.sleep(0.1)  # polling a process table we do not own
    ended, broker, client = proc.poll(), bool(brokers_of(proc.pid)), client_running(seed)
    proc.kill()
    proc.wait()
    seen = cases_csv(out) if (out / "cases.csv").exists() else "no cases.csv"
    raise AssertionError(f"no broker and client appeared (broker {broker}, client {client}, the run "
                         f"{'ended with ' + str(ended) if ended is not None else 'still going'}): "
                         f"{seen}")


def test_a_killed_broker_fails_its_case_with_the_reason(tmp_path):
    seed, out, proc = start_endless(tmp_path)
    try:
        for pid in brokers_of(proc.pid):
            os.kill(pid, signal.SIGKILL)
        code, cases = finished(proc, seed, out, timeout=120)
    finally:
        proc.kill()
    assert code == 1
    (case,) = cases
    assert case["status"] == "failed" and "the ActiveMQ broker was killed by SIGKILL" in \
        case["reason"], case["reason"]


def test_ctrl_c_mid_case_leaves_no_broker(tmp_path):
    seed, out, proc = start_endless(tmp_path)
    try:
        proc.send_signal(signal.SIGINT)
        code, _ = finished(proc, seed, out, timeout=120)
    finally:
        proc.kill()
    assert code == 130
