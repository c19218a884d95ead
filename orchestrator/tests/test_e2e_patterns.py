"""End to end for the patterns of PROTOCOL.md 11: one-way streams with each side's CPU time and
short connections, every language pair, as a user runs them; a faulty server fails a stream with
the reason; udp losses are counted, not hidden; the mq-vs-socket scenario prints its table.
Small streams (a few thousand messages), one round, no preflight: the suite's time matters."""
import json

import numpy as np
import pytest

from ipclab.analyse import case_stats
from ipclab.execute.probe import load_catalog
from ipclab.execute import rundir
from test_e2e import (LANGS, REF, ROTATION, cases_csv, faulty, ipclab,  # noqa: F401
                      run_cases, seed)  # (seed: a fixture)

pytestmark = pytest.mark.e2e
# Every pair over tcp through the CLI; the other mechanisms with every language once as client
# and once as server (a rotation), through the runner: the suite's time matters.
STREAM_MECHANISMS = ["uds", "sysv-mq", "posix-mq", "shm", "file"]
SHORT_MECHANISMS = ["uds", "rest", "sysv-mq"]
STREAM_COLUMNS = ("msgs_per_s", "mib_per_s", "client_user_s", "client_sys_s", "server_user_s",
                  "server_sys_s", "cpu_us_per_msg", "csw_per_msg", "stream_s")


def every_pair_over_tcp(out, seed, pattern, *args):
    """`ipclab run` of `pattern` over tcp between every pair; its nine rows, all ok, and stdout."""
    done = ipclab("run", "--pattern", pattern, "--mechanism", "tcp",
                  "--client", ",".join(LANGS), "--server", ",".join(LANGS), *args,
                  "--seed", str(seed), "--out", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = cases_csv(out)
    assert len(rows) == 9
    assert [(r["id"], r["reason"]) for r in rows if r["status"] != "ok"] == []
    return rows, done.stdout


def test_stream_over_tcp_between_every_pair(tmp_path, seed):
    out = tmp_path / "run"
    rows, stdout = every_pair_over_tcp(out, seed, "stream", "--message-size", "1KiB",
                                       "--messages", "3000", "--windows", "5", "--warmup", "100")
    for r in rows:
        assert r["message_size"] == "1024" and r["request_size"] == "" and r["messages"] == "3000"
        assert all(r[c] != "" for c in STREAM_COLUMNS), r["id"]
        assert float(r["msgs_per_s"]) > 0 and r["lost"] == "0" and r["conns_per_s"] == ""
        assert np.fromfile(out / r["samples_file"], dtype="<i8").size == 5
    assert "msgs/s" in stdout and "CPU µs/msg" in stdout
    doc = json.loads((out / "run.json").read_text())
    entry = doc["results"][0]["rounds"][0]["stream"]
    assert entry["messages"] == 3000 and entry["server_cpu"]["user_ns"] >= 0


def analysed(scenario, outcome):
    record = rundir.new_record(outcome.case)
    rundir.add_round(record, outcome)
    case_stats.analyse(record, {1: outcome.samples} if outcome.status == "ok" else {},
                     scenario.statistics)
    return record


def test_stream_over_the_other_kernel_mechanisms(seed):
    catalog = load_catalog()
    scenario, outcomes = run_cases(catalog, {
        "matrix": {"mechanism": STREAM_MECHANISMS, "client": LANGS, "server": LANGS,
                   "pattern": ["stream"], "message_size": [1024]},
        "run": {"messages": 2000, "windows": 4, "warmup": 50, "seed": seed}}, ROTATION)
    assert len(outcomes) == len(STREAM_MECHANISMS) * 3
    for outcome in outcomes:
        assert outcome.status == "ok", (outcome.case.label, outcome.reason)
        record = analysed(scenario, outcome)
        assert all(record[c] is not None for c in STREAM_COLUMNS), outcome.case.label
        assert outcome.samples.size == 4


def test_short_connections_over_tcp_between_every_pair(tmp_path, seed):
    rows, stdout = every_pair_over_tcp(tmp_path / "run", seed, "short", "--request-size", "1KiB",
                                       "--response-size", "1", "--iterations", "300",
                                       "--warmup", "20")
    for r in rows:
        assert float(r["conns_per_s"]) > 0 and r["msgs_per_s"] == ""
        # The client closes first: one socket in TIME_WAIT per connection (END's too).
        assert int(r["time_wait"]) >= 300, r["id"]
    assert "conns/s" in stdout


def test_short_connections_over_uds_rest_and_a_queue(seed):
    catalog = load_catalog()
    scenario, outcomes = run_cases(catalog, {
        "matrix": {"mechanism": SHORT_MECHANISMS, "client": LANGS, "server": LANGS,
                   "pattern": ["short"], "request_size": [1024], "response_size": [1]},
        "run": {"iterations": 200, "warmup": 10, "seed": seed}}, ROTATION)
    assert len(outcomes) == len(SHORT_MECHANISMS) * 3
    for outcome in outcomes:
        assert outcome.status == "ok", (outcome.case.label, outcome.reason)
        record = analysed(scenario, outcome)
        assert record["conns_per_s"] > 0
        assert (record["time_wait"] is not None) == (outcome.case.mechanism == "rest")


@pytest.mark.parametrize("client,server,fault", [
    *((c, s, "drop-stream-message") for c, s in ROTATION), ("python", "cpp", "flip-stream-byte"),
    ("cpp", "java", "flip-stream-byte"), ("java", "python", "flip-stream-byte")])
def test_a_server_that_drops_or_corrupts_a_message_fails_the_stream(client, server, fault, seed):
    catalog = load_catalog()
    bad = faulty(catalog, server, fault)
    catalog.languages[bad.name] = bad
    _, (outcome,) = run_cases(catalog, {
        "matrix": {"mechanism": ["tcp"], "client": [client], "server": [bad.name],
                   "pattern": ["stream"], "message_size": [256], "placement": ["unpinned"]},
        "run": {"messages": 500, "windows": 5, "warmup": 10, "seed": seed}})
    assert outcome.status == "failed", outcome.case.label
    assert "payload mismatch" in outcome.reason, outcome.reason


@pytest.mark.parametrize("server", LANGS)
def test_a_udp_stream_reports_what_it_lost(server, seed):
    # The drop fault leaves one datagram out of the server's count, as loss on the wire would:
    # over udp that is a loss to report, not a failure (PROTOCOL.md 11.1 step 5).
    catalog = load_catalog()
    bad = faulty(catalog, server, "drop-stream-message")
    catalog.languages[bad.name] = bad
    scenario, outcomes = run_cases(catalog, {
        "matrix": {"mechanism": ["udp"], "client": [server], "server": [bad.name],
                   "pattern": ["stream"], "message_size": [64], "placement": ["unpinned"]},
        "run": {"messages": 300, "windows": 3, "warmup": 10, "seed": seed}})
    for outcome in outcomes:
        assert outcome.status == "ok", outcome.reason
        record = analysed(scenario, outcome)
        assert record["lost"] >= 1 and record["msgs_per_s"] > 0, outcome.case.label


def test_the_mq_vs_socket_scenario_prints_the_blog_table(tmp_path, seed):
    out = tmp_path / "run"
    done = ipclab("run", "scenarios/mq-vs-socket.toml", "--client", "cpp", "--server", "cpp",
                  # the blog's reads, sources and backlog are test_e2e_settings.py's: one of each here
                  "--placement", "cross-core", "--nodelay", "on", "--read-size", "0",
                  "--source", "rotate", "--listen-backlog", "512",
                  "--messages", "5000", "--iterations", "200", "--warmup", "50",
                  "--seed", str(seed), "--out", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = cases_csv(out)  # stream, then short connections one-way (the blog's) and with a reply
    assert [r["status"] for r in rows] == ["ok"] * 9
    assert sorted(r["reply"] for r in rows if r["pattern"] == "short") == ["echo"] * 3 + ["one-way"] * 3
    for text in (done.stdout, (out / "table.md").read_text()):
        assert "mq-vs-socket · stream" in text or "## stream" in text
        assert "wall" in text and "÷ tcp" in text and "sysv-mq" in text
    table = (out / "table.md").read_text()
    assert "| mechanism | client→server | size | wall s | client user s | client sys s |" in table
    assert "## every case" in table


def _frame(kind, sequence, payload=b""):
    """A control frame of PROTOCOL.md 2 and 11.1 (kind 6 MARK, 3 END), as any client writes it."""
    return REF.header(kind, sequence, len(payload), 0) + payload


@pytest.mark.parametrize("server", LANGS)
def test_a_uds_dgram_stream_datagram_of_the_wrong_size_is_rejected_not_a_gap(server, tmp_path):
    """11.1: uds-dgram loses nothing, so a datagram of another size where a message is due is
    `length mismatch`, the MARK's count is given up, and END's answer shows the shortfall."""
    import socket
    import struct
    import subprocess
    from ipclab.plan.catalog import repo_root
    path, mine = tmp_path / "s.sock", tmp_path / "c.sock"
    proc = subprocess.Popen(
        [*load_catalog().languages[server].argv(repo_root()), "serve", "--mechanism", "uds-dgram",
         "--endpoint", str(path)], cwd=repo_root(), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY "), proc.stderr.read()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.settimeout(20)
            sock.bind(str(mine))
            sock.connect(str(path))
            sock.send(_frame(6, 1, struct.pack("<QQ", 64, 3)))     # MARK: 3 messages of 64 B
            assert sock.recv(1024)[:6] == b"IPCL\x01\x07"            # MARK_ACK
            sock.send(REF.payload(1, 1, 2, 64))                      # seed 1 (the default)
            sock.send(REF.payload(1, 1, 3, 64)[:63])                 # the wrong size
            sock.send(_frame(3, 5))                                  # END (the third never came)
            ack = sock.recv(1024)
        assert ack[5] == 4 and len(ack) == 24 + 56, ack[:24]          # END_ACK with 7 figures
        received, gaps = struct.unpack_from("<QQ", ack, 24)
        assert (received, gaps) == (1, 0)
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)
        mine.unlink(missing_ok=True)  # a bound socket's file outlives the socket
    assert "rejected frame: length mismatch" in proc.stderr.read()
