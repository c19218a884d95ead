"""A burst's clients on several hosts over OpenSSH ([hosts] clients): six network namespaces stand
for six hosts on one switch (a bridge in a seventh, where `ipclab run` runs), each with Debian's
sshd and keys made for the test in its private directory, named by aliases in the test's ssh
config. The server host runs every C++ server model of scenarios/server-models-hosts.toml, five
client hosts × 200 connectors make its 1000 connections. Afterwards nothing may be left in any
namespace but its sshd, and no namespace."""
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_ssh_hosts import SSHD, _argv, _parent, _wait_listening, needs_hosts

ROOT = Path(__file__).resolve().parents[2]
IPCLAB = [sys.executable, "-m", "ipclab"]
PORT = 2222
NAMES = ["server-host", *(f"client-{i}" for i in range(1, 6))]
ADDRESS = {name: f"10.81.0.{10 + i}" for i, name in enumerate(NAMES)}
SOMAXCONN = 1000  # the server host's own: the counters and somaxconn must come from there


@needs_hosts
def test_a_burst_from_five_client_hosts(tmp_path):
    private = tmp_path / "hosts"
    private.mkdir(mode=0o700)
    prefix = f"ipclabtest-{os.getpid()}"
    ops, netns = f"{prefix}-ops", {name: f"{prefix}-{name}" for name in NAMES}
    sshds = {}
    try:
        _switch(ops, netns)
        config = _keys_and_configs(private)
        for name in NAMES:
            sshds[name] = subprocess.Popen(
                ["ip", "netns", "exec", netns[name], SSHD, "-D", "-f",
                 str(private / f"sshd_{name}"), "-E", str(private / f"sshd_{name}.log")])
        for name in NAMES:
            _wait_listening(netns[name], sshds[name])
        scenario = _scenario(tmp_path, config)
        scratch = tmp_path / "scratch"
        scratch.mkdir()
        out = tmp_path / "out"
        done = _ipclab(ops, scratch, "run", str(scenario), "--out", str(out))
        assert done.returncode == 0, done.stdout + done.stderr
        _every_connection_accounted_for(out, done.stdout)
        _settled(netns, sshds, "the run")
        _drop_a_client_host_mid_case(ops, netns, sshds, scratch, scenario, tmp_path)
        _settled(netns, sshds, "the dropped connection")
        _hosts_check(ops, scratch, scenario, sshds)
    finally:
        for sshd in sshds.values():
            sshd.terminate()
            sshd.wait(10)
        for name in [ops, *netns.values()]:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
    assert not any(Path("/run/netns", n).exists() for n in [ops, *netns.values()])


def _every_connection_accounted_for(out, stdout):
    rows = list(csv.DictReader(open(out / "cases.csv")))
    ran = [r for r in rows if r["status"] != "not-applicable"]
    assert len(ran) >= 6, [(r["server_model"], r["status"], r["reason"]) for r in rows]
    for row in ran:
        assert row["status"] == "ok", (row["server_model"], row["reason"])
        assert int(row["connections_ok"]) + int(row["connections_failed"]) == 1000, row
        assert row["somaxconn"] == str(SOMAXCONN), row  # read on the server's host
        assert row["listen_overflows"] != "", row
    document = json.loads((out / "run.json").read_text())
    for record in document["results"]:
        if record["status"] != "ok":
            continue
        hosts = record["client_hosts"]
        assert sorted(h["host"] for h in hosts) == [f"ssh://client-{i}" for i in range(1, 6)]
        assert sum(h["connections_ok"] + h["connections_failed"] for h in hosts) == 1000
        (entry,) = [e["burst"] for e in record["rounds"] if e["status"] == "ok"]
        phases = list(csv.DictReader(open(out / entry["phases_file"])))
        records = list(csv.DictReader(open(out / entry["records_file"])))
        assert len(records) == 1000 and {r["host"] for r in records} == {
            f"ssh://client-{i}" for i in range(1, 6)}
        assert len(phases) == int(record["connections_ok"]), "the server's phases, fetched"
    assert "client hosts" in stdout and stdout.count("ssh://client-3") >= len(
        [r for r in document["results"] if r["status"] == "ok"])


def _drop_a_client_host_mid_case(ops, netns, sshds, scratch, scenario, tmp_path):
    """client-2's ssh sessions are killed while its client waits for the release: that case
    fails naming the host, the next cases run (over new connections to it)."""
    two_models = tmp_path / "two-models.toml"
    two_models.write_text(scenario.read_text().replace(
        'server_model = ["iterative", "thread", "process", "thread-pool", "process-pool", "epoll",\n'
        '                "epoll-reuseport", "io_uring"]', 'server_model = ["iterative", "epoll"]'))
    out = tmp_path / "dropped"
    run = subprocess.Popen(["ip", "netns", "exec", ops, *IPCLAB, "run", str(two_models), "--out",
                            str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env={**os.environ, "TMPDIR": str(scratch)})
    try:
        deadline = time.monotonic() + 60
        while not any("drive" in _argv(p) for p in _pids(netns["client-2"])):
            assert time.monotonic() < deadline and run.poll() is None, "no client on client-2"
            time.sleep(0.02)  # polling for the remote client to appear
        for pid in _pids(netns["client-2"]):
            if _parent(pid) == sshds["client-2"].pid:
                os.kill(pid, 9)
        stdout, stderr = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 1, stdout + stderr
    rows = list(csv.DictReader(open(out / "cases.csv")))
    assert [r["status"] for r in rows] == ["failed", "ok"], rows
    assert "ssh://client-2" in rows[0]["reason"], rows[0]["reason"]


def _hosts_check(ops, scratch, scenario, sshds):
    """`ipclab hosts check`: a row per host; with client-4's sshd stopped, one line naming it
    and what to do, exit 1."""
    done = _ipclab(ops, scratch, "hosts", "check", str(scenario))
    assert done.returncode == 0, done.stdout + done.stderr
    for name in NAMES:
        assert sum(f"ssh://{name} " in line for line in done.stdout.splitlines()) == 1, done.stdout
    sshds["client-4"].terminate()
    sshds["client-4"].wait(10)
    done = _ipclab(ops, scratch, "hosts", "check", str(scenario))
    assert done.returncode == 1, done.stdout + done.stderr
    (problem,) = [line for line in done.stdout.splitlines() if line.startswith("ssh://client-4: ")]
    assert "cannot reach" in problem and "without a password" in problem, done.stdout


def _ipclab(ops, scratch, *args):
    return subprocess.run(["ip", "netns", "exec", ops, *IPCLAB, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(scratch), "COLUMNS": "250"})


def _scenario(tmp_path, config):
    text = (ROOT / "scenarios" / "server-models-hosts.toml").read_text()
    for old, new in (('path = "/srv/ipclab"', f'path = "{ROOT}"\nssh_config = "{config}"'),
                     ('server_address = "192.0.2.10"', f'server_address = "{ADDRESS["server-host"]}"'),
                     ("rounds = 3", "rounds = 1\npreflight = 0")):
        assert old in text, old
        text = text.replace(old, new)
    scenario = tmp_path / "server-models-hosts.toml"
    scenario.write_text(text)
    return scenario


def _settled(netns, sshds, after, timeout=30.0):
    """Only each host's sshd left in its namespace (a remote session ends a moment after its
    channel closes: waited for)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = {n: set(_pids(netns[n])) - {sshds[n].pid} for n in NAMES}
        if not any(left.values()):
            return
        time.sleep(0.1)
    pytest.fail(f"after {after}: left running {left}")


def _pids(netns):
    listed = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True)
    return [int(p) for p in listed.stdout.split()]


def _switch(ops, netns):
    """A bridge in `ops` (10.81.0.1) with a veth port to each host's eth0."""
    run = lambda *argv: subprocess.run(argv, check=True, capture_output=True)  # noqa: E731
    run("ip", "netns", "add", ops)
    run("ip", "-n", ops, "link", "set", "lo", "up")
    run("ip", "-n", ops, "link", "add", "br0", "type", "bridge")
    run("ip", "-n", ops, "addr", "add", "10.81.0.1/24", "dev", "br0")
    run("ip", "-n", ops, "link", "set", "br0", "up")
    for i, name in enumerate(NAMES):
        run("ip", "netns", "add", netns[name])
        run("ip", "-n", netns[name], "link", "set", "lo", "up")
        run("ip", "-n", ops, "link", "add", f"port{i}", "type", "veth", "peer", "name", "eth0",
            "netns", netns[name])
        run("ip", "-n", ops, "link", "set", f"port{i}", "master", "br0", "up")
        run("ip", "-n", netns[name], "addr", "add", f"{ADDRESS[name]}/24", "dev", "eth0")
        run("ip", "-n", netns[name], "link", "set", "eth0", "up")
    run("ip", "netns", "exec", netns["server-host"], "sysctl", "-qw",
        f"net.core.somaxconn={SOMAXCONN}")


def _keys_and_configs(private):
    """One host key for all six sshds, a user key authorised for root, each sshd's config and
    the client's (-F) with an alias per host."""
    for key in ("host_key", "user_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(private / key)],
                       check=True)
    (private / "authorized_keys").write_text((private / "user_key.pub").read_text())
    host_key = (private / "host_key.pub").read_text()
    (private / "known_hosts").write_text("".join(f"[{a}]:{PORT} {host_key}"
                                                 for a in ADDRESS.values()))
    for name in NAMES:
        (private / f"sshd_{name}").write_text(f"""ListenAddress {ADDRESS[name]}
Port {PORT}
HostKey {private}/host_key
AuthorizedKeysFile {private}/authorized_keys
PidFile none
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 50
MaxStartups 50
LogLevel ERROR
""")
    config = private / "ssh_config"
    config.write_text("".join(f"Host {name}\n  HostName {ADDRESS[name]}\n" for name in NAMES) + f"""
Host *
  Port {PORT}
  User root
  IdentityFile {private}/user_key
  IdentitiesOnly yes
  UserKnownHostsFile {private}/known_hosts
  StrictHostKeyChecking yes
""")
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    return config

