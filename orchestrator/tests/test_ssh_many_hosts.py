"""A burst's clients on several hosts over OpenSSH ([hosts] clients): six network namespaces stand
for six hosts on one switch (lab_hosts.py: a bridge in a seventh, where `ipclab run` runs), each
with Debian's sshd, named by aliases in the test's ssh config. The server host runs three of the
C++ server models of scenarios/server-models-hosts.toml (MODELS: one connection at a time, a
process each, an event loop; every model's own behaviour is test_e2e_burst_models.py's); five
client hosts × 40 connectors make its 200 connections (the scenario's 200 each and 1000 are a
study's size; 200 show the same split, every connection accounted for, at a fifth of the forks
of the process model). Afterwards nothing may be left in any namespace but its sshd, and no
namespace."""
import contextlib
import csv
import json
import os
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from lab_hosts import ROOT, Lab
from test_ssh_hosts import _argv, needs_hosts

NAMES = ["server-host", *(f"client-{i}" for i in range(1, 6))]
CLIENTS = {f"ssh://client-{i}" for i in range(1, 6)}
SOMAXCONN = 1000  # the server host's own: the counters and somaxconn must come from there
MODELS = ("iterative", "process", "epoll")
CONNECTORS = 40  # per client host
CONNECTIONS = 5 * CONNECTORS


@needs_hosts
@pytest.mark.weight(80)  # about two minutes: eighty median tests where it is not measured
def test_a_burst_from_five_client_hosts(tmp_path):
    private = tmp_path / "hosts"
    private.mkdir(mode=0o700)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with Lab(NAMES, private, tag="test") as lab:
        subprocess.run(["ip", "netns", "exec", lab.netns["server-host"], "sysctl", "-qw",
                        f"net.core.somaxconn={SOMAXCONN}"], check=True)
        scenario = _scenario(tmp_path, lab)
        out = tmp_path / "out"
        done = lab.ipclab(scratch, "run", str(scenario), "--out", str(out))
        assert done.returncode == 0, done.stdout + done.stderr
        _every_connection_accounted_for(out, done.stdout)
        _settled(lab, "the run")
        _load_from_three_client_hosts(lab, scratch, scenario, tmp_path)
        _round_trips_from_a_client_host(lab, scratch, scenario, tmp_path)
        _drop_a_client_host_mid_case(lab, scratch, scenario, tmp_path)
        _settled(lab, "the dropped connection")
        _interrupt_mid_case(lab, scratch, scenario, tmp_path)
        _settled(lab, "Ctrl-C")
        assert _ours_gone(lab), "a private directory left on a host"
        _sync(lab, scratch, scenario, tmp_path)
        _hosts_check(lab, scratch, scenario)
    assert not any(Path("/run/netns", n).exists() for n in lab.namespaces)


def _every_connection_accounted_for(out, stdout):
    rows = list(csv.DictReader(open(out / "cases.csv")))
    ran = [r for r in rows if r["status"] != "not-applicable"]
    assert sorted(r["server_model"] for r in ran) == sorted(MODELS), \
        [(r["server_model"], r["status"], r["reason"]) for r in rows]
    for row in ran:
        assert row["status"] == "ok", (row["server_model"], row["reason"])
        assert int(row["connections_ok"]) + int(row["connections_failed"]) == CONNECTIONS, row
        assert row["somaxconn"] == str(SOMAXCONN), row  # read on the server's host
        assert row["listen_overflows"] != "", row
    document = json.loads((out / "run.json").read_text())
    ok = [r for r in document["results"] if r["status"] == "ok"]
    for record in ok:
        hosts = record["client_hosts"]
        assert {h["host"] for h in hosts} == CLIENTS and len(hosts) == 5
        assert sum(h["ok"] + h["failed"] for h in hosts) == CONNECTIONS
        (entry,) = [e["burst"] for e in record["rounds"] if e["status"] == "ok"]
        phases = list(csv.DictReader(open(out / entry["phases_file"])))
        records = list(csv.DictReader(open(out / entry["records_file"])))
        assert len(records) == CONNECTIONS and {r["host"] for r in records} == CLIENTS
        assert len(phases) == record["connections_ok"], "the server's phases, fetched"
    assert "client hosts" in stdout and stdout.count("ssh://client-3") >= len(ok), stdout
    assert "round 1 ssh://client-3" in (out / "report.html").read_text()  # a series per host


def _load_from_three_client_hosts(lab, scratch, scenario, tmp_path):
    """A load of 3000 requests/s over 6 connections from three client hosts (2 and 1000/s
    each): every host keeps its share, and the case's achieved rate is the sum of theirs."""
    three = tmp_path / "three.toml"
    text = scenario.read_text()
    start = text.index("clients = [")
    three.write_text(text[:start] + 'clients = ["ssh://client-1", "ssh://client-2", '
                     '"ssh://client-3"]' + text[text.index("]", start) + 1:])
    out = tmp_path / "load"
    done = lab.ipclab(scratch, "run", str(three), "--pattern", "load", "--server-model", "epoll",
                      "--clients", "6", "--rate", "3000", "--duration", "1s", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    (record,) = json.loads((out / "run.json").read_text())["results"]
    assert record["status"] == "ok", record["reason"]
    hosts = record["client_hosts"]
    assert sorted(h["host"] for h in hosts) == [f"ssh://client-{i}" for i in (1, 2, 3)]
    assert all(h["ok"] > 0 and h["failed"] == 0 for h in hosts), hosts
    assert record["achieved_per_s"] == pytest.approx(sum(h["rate_per_s"] for h in hosts))
    assert 0 < record["achieved_per_s"] < 1.5 * 3000, record["achieved_per_s"]  # no rate floor:
    # how near its schedule a machine shared with the other suites keeps is not this test's
    assert record["requests_ok"] == sum(h["ok"] for h in hosts)


def _round_trips_from_a_client_host(lab, scratch, scenario, tmp_path):
    """hosts.client: an rr and a short case's one client runs on client-5 (its files fetched
    from there), the server on the server host."""
    named = tmp_path / "named.toml"
    named.write_text(scenario.read_text().replace("clients = [", 'client = "ssh://client-5"\nclients = ['))
    out = tmp_path / "rr"
    done = lab.ipclab(scratch, "run", str(named), "--pattern", "rr,short", "--iterations", "200",
                      "--request-size", "64", "--response-size", "64", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads((out / "run.json").read_text())
    assert [r["status"] for r in document["results"]] == ["ok", "ok"], document["results"]
    assert document["environment"]["hosts"]["client"]["host"] == "ssh://client-5"
    # Bytes on the wire between hosts: counted on client-5, then here (the ops namespace, whose
    # ssh connection to the server host is not counted): 16 B a call is 92 B each way over tcp.
    text = scenario.read_text()
    start = text.index("clients = [")
    alone = text[:start] + text[text.index("]", start) + 1:]  # no hosts.clients: one client
    for label, text in (("there", alone.replace("[hosts]", '[hosts]\nclient = "ssh://client-5"')),
                        ("here", alone)):
        counted = tmp_path / f"wire-{label}.toml"
        counted.write_text(text)
        out = tmp_path / f"wire-{label}"
        done = lab.ipclab(scratch, "run", str(counted), "--pattern", "rr", "--iterations", "300",
                          "--request-size", "16", "--response-size", "16", "--wire-bytes",
                          "--out", str(out))
        assert done.returncode == 0, done.stdout + done.stderr
        (row,) = csv.DictReader(open(out / "cases.csv"))
        assert (float(row["wire_req_bytes"]), float(row["wire_resp_bytes"])) == \
            pytest.approx((92, 92), abs=2), (label, row["wire_req_bytes"], row["wire_resp_bytes"])


def _drop_a_client_host_mid_case(lab, scratch, scenario, tmp_path):
    """client-2's ssh sessions and its client are killed while the client waits for the
    release: that case fails naming the host, the other case runs (over a new connection)."""
    two_models = tmp_path / "two-models.toml"
    text = scenario.read_text()
    start = text.index("server_model = [")
    two_models.write_text(text[:start] + 'server_model = ["iterative", "epoll"]'
                          + text[text.index("]", start) + 1:])
    out = tmp_path / "dropped"
    with _once_a_client_runs_on(lab, scratch, "client-2", two_models, out) as run:
        for pid in lab.left_running()["client-2"]:  # its sessions and the client: the
            with contextlib.suppress(ProcessLookupError):  # connection drops, sshd listens;
                os.kill(pid, 9)  # one ended with a session killed before it is already gone
        stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 1, stdout + stderr
    rows = list(csv.DictReader(open(out / "cases.csv")))  # run in a shuffled order: either
    failed = [r for r in rows if r["status"] == "failed"]  # was the first
    assert sorted(r["status"] for r in rows) == ["failed", "ok"], (rows, stdout, stderr)
    (failed,) = failed
    assert "ssh://client-2" in failed["reason"], failed["reason"]


def _sync(lab, scratch, scenario, tmp_path):
    """`ipclab hosts sync --no-build` to a path with no checkout yet: each host says where it
    is, and the checkout there is at this commit (the hosts share this file system: the first
    clones it, the others fetch into it)."""
    synced, own = tmp_path / "synced", tmp_path / "own"  # client-1's checkout is elsewhere
    moved = tmp_path / "synced.toml"
    moved.write_text(scenario.read_text().replace(f'path = "{ROOT}"', f'path = "{synced}"')
                     .replace('"ssh://client-1"', f'{{ host = "ssh://client-1", path = "{own}" }}'))
    done = lab.ipclab(scratch, "hosts", "sync", str(moved), "--no-build")
    assert done.returncode == 0, done.stdout + done.stderr
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    for name in NAMES:
        path = own if name == "client-1" else synced
        assert f"ssh://{name}: {path} is at {head[:12]}" in done.stdout, done.stdout
    for path in (synced, own):
        there = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], check=True,
                               capture_output=True, text=True).stdout.strip()
        assert there == head


def _interrupt_mid_case(lab, scratch, scenario, tmp_path):
    """Ctrl-C while client-3's client waits for the release: exit 130 (then _settled: nothing
    left on any host)."""
    with _once_a_client_runs_on(lab, scratch, "client-3", scenario, tmp_path / "int") as run:
        run.send_signal(2)
        assert run.wait(60) == 130, run.stderr.read()


@contextmanager
def _once_a_client_runs_on(lab, scratch, host, scenario, out):
    """`ipclab run SCENARIO` in the ops namespace, handed over once a client runs on `host`
    (waiting for the release); stopped if still running at the end: SIGTERM first, which it
    cleans up after as after Ctrl-C (a SIGKILL would leave its ssh masters and the hosts'
    private directories, as a failing check did once), SIGKILL if that takes too long."""
    run = subprocess.Popen(lab.ipclab_argv("run", str(scenario), "--out", str(out)), cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=lab.env(scratch))
    try:
        deadline = time.monotonic() + 60
        while not any("drive" in _argv(p) for p in lab.pids(host)):
            assert time.monotonic() < deadline and run.poll() is None, f"no client on {host}"
            time.sleep(0.02)  # polling for the remote client to appear
        yield run
    finally:
        if run.poll() is None:
            run.terminate()
            try:
                run.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                run.kill()
                run.communicate()


def _ours_gone(lab, timeout=10.0):
    """No private directory of this test's runs is left (the hosts share /tmp with this one:
    another run's may be there). A remote side removes its directory as its session ends, a
    moment after its processes: waited for, as _settled waits for them."""
    deadline = time.monotonic() + timeout
    while True:
        left = [d for d in Path("/tmp").glob("ipclab-remote-*") if _newer(d, lab.started)]
        if not left or time.monotonic() > deadline:
            return not left
        time.sleep(0.1)


def _newer(path, since):
    try:
        return path.stat().st_mtime > since
    except FileNotFoundError:  # removed meanwhile
        return False


def _hosts_check(lab, scratch, scenario):
    """`ipclab hosts check`: a row per host; with client-4's sshd stopped, one line naming it
    and what to do, exit 1."""
    done = lab.ipclab(scratch, "hosts", "check", str(scenario))
    assert done.returncode == 0, done.stdout + done.stderr
    for name in NAMES:
        assert sum(f"ssh://{name} " in line for line in done.stdout.splitlines()) == 1, done.stdout
    lab.stop_sshd("client-4")
    done = lab.ipclab(scratch, "hosts", "check", str(scenario))
    assert done.returncode == 1, done.stdout + done.stderr
    (problem,) = [line for line in done.stdout.splitlines() if line.startswith("ssh://client-4: ")]
    assert "cannot reach" in problem and "without a password" in problem, done.stdout


def _scenario(tmp_path, lab):
    text = (ROOT / "scenarios" / "server-models-hosts.toml").read_text()
    for old, new in (('path = "/srv/ipclab"', f'path = "{ROOT}"\nssh_config = "{lab.config}"'),
                     ('server_address = "192.0.2.10"',
                      f'server_address = "{lab.address["server-host"]}"'),
                     ("rounds = 3", "rounds = 1\npreflight = 0"),
                     ("connections = 1000", f"connections = {CONNECTIONS}"),
                     ("connectors = 200", f"connectors = {CONNECTORS}")):
        assert old in text, old
        text = text.replace(old, new)
    start = text.index("server_model = [")
    text = (text[:start] + f"server_model = {list(MODELS)!r}".replace("'", '"')
            + text[text.index("]", start) + 1:])
    scenario = tmp_path / "server-models-hosts.toml"
    scenario.write_text(text)
    return scenario


def _settled(lab, after, timeout=30.0):
    """Only each host's sshd left in its namespace (a remote session ends a moment after its
    channel closes: waited for)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(lab.left_running().values()):
            return
        time.sleep(0.1)
    pytest.fail(f"after {after}: left running {lab.left_running()}")
