"""Peers on other hosts over OpenSSH ([hosts]): two network namespaces stand for two hosts joined
by veth, the "server host" runs Debian's sshd with keys made for the test in its private
directory, and `ipclab run` runs in the "client host" with the scenario placing the server over
ssh. The remote checkout is this checkout (the namespaces share the file system). Afterwards
nothing may be left: no peer, no ssh, no sshd, no namespace."""
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ipclab.execute import places
from ipclab.plan import hosts
from ipclab.common.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
IPCLAB = [sys.executable, "-m", "ipclab"]
SSHD = "/usr/sbin/sshd"
CLIENT_IP, SERVER_IP, PORT = "10.79.0.1", "10.79.0.2", 2222


def test_hosts_table_is_validated_naming_the_key(tmp_path):
    parsed = hosts.parse_hosts({"server": "ssh://ops@lab-2:2200", "path": "/srv/ipclab",
                                "server_address": "192.168.1.20"}, "s.toml")
    assert (parsed["target"], parsed["port"], parsed["path"]) == ("ops@lab-2", 2200, "/srv/ipclab")
    assert hosts.parse_hosts({"server": "local"}, "s.toml") == {}
    for raw, message in [
        ({"server": "telnet://x"}, "hosts.server: 'telnet://x' is not"),
        ({"server": "ssh://x", "server_address": "10.0.0.1"}, "hosts.path: None must be"),
        ({"server": "ssh://x", "path": "/p", "server_address": "lab"}, "hosts.server_address: 'lab'"),
        ({"client": "ssh://x"}, "hosts.client needs hosts.server on another host too"),
        ({"server": "ssh://x", "path": "/p", "server_address": "10.0.0.1", "client": "x"},
         "hosts.client: 'x' is not"),
        ({"sever": "ssh://x"}, "unknown key 'hosts.sever'"),
    ]:
        with pytest.raises(UserError, match=message):
            hosts.parse_hosts(raw, "s.toml")


def test_an_existing_broker_is_an_amqp_url_with_a_port():
    assert hosts.parse_broker({"broker": "amqp://mq.lab:5672"}, "s.toml") == "amqp://mq.lab:5672"
    assert hosts.parse_broker({"broker": "amqp://[::1]:5672"}, "s.toml") == "amqp://[::1]:5672"
    assert hosts.parse_broker({"server": "local"}, "s.toml") is None
    assert hosts.parse_hosts({"broker": "amqp://mq.lab:5672"}, "s.toml") == {}
    for url in ("amqp://mq.lab", "amqps://mq.lab:5671", "amqp://mq.lab:0", "amqp://a b:1", 5672):
        with pytest.raises(UserError, match=r"^s.toml: hosts.broker: .* is not \"amqp://HOST:PORT\""):
            hosts.parse_broker({"broker": url}, "s.toml")


def test_a_file_on_another_host_is_read_over_ssh(tmp_path, monkeypatch):
    # A stand-in ssh that runs the remote command line here: read_text must go through ssh
    # (a Place with no namespace would open the file itself, and read this host's).
    (tmp_path / "ssh").write_text('#!/bin/sh\nfor a; do last=$a; done\nexec sh -c "$last"\n')
    (tmp_path / "ssh").chmod(0o700)
    (tmp_path / "there").write_text("1234\n")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    place = places.SshPlace(address="10.0.0.2", target="u@h", local_root="/x", remote_root="/y")
    assert not place.here and place.read_text(str(tmp_path / "there")) == "1234\n"
    with pytest.raises(OSError, match=r"^cannot read /no/such in ssh u@h \(10.0.0.2\): cat: "):
        place.read_text("/no/such")


def test_with_client_hosts_only_a_burst_runs_and_it_spreads_over_them(tmp_path):
    from ipclab.plan import link, matrix
    from ipclab.execute.probe import load_catalog
    from ipclab.plan.scenario import build_scenario
    catalog = load_catalog()
    table = {"server": "ssh://lab", "path": "/srv/ipclab", "server_address": "10.0.0.2"}
    def marked(hosts):
        plan = build_scenario({"matrix": {"mechanism": ["tcp"], "client": ["cpp"],
                                          "server": ["cpp"], "pattern": ["rr", "burst"],
                                          "server_model": ["iterative"]}, "hosts": hosts},
                              "t", catalog, {}, "t")
        return link.mark(matrix.expand(plan, catalog), plan.run, catalog, plan.hosts)
    assert [(c.pattern.name, c.skip_status) for c in marked(table)] == [("rr", None), ("burst", None)]
    spread = marked({**table, "clients": ["ssh://a", "ssh://b"]})
    assert [(c.pattern.name, c.skip_status) for c in spread] == [("rr", "not-applicable"),
                                                            ("burst", None)]
    assert "only a burst or a load spreads its clients over hosts" in spread[0].skip_reason
    named = marked({**table, "clients": ["ssh://a"], "client": "ssh://c"})
    assert [(c.pattern.name, c.skip_status) for c in named] == [("rr", None), ("burst", None)]
    parsed = hosts.parse_hosts({**table, "clients": ["ssh://a", {"host": "ssh://u@b:2200",
                                                                 "path": "/opt/ipclab"}]}, "s.toml")
    assert [(c["target"], c["port"], c["path"]) for c in parsed["clients"]] == [
        ("a", None, "/srv/ipclab"), ("u@b", 2200, "/opt/ipclab")]
    assert [role for _, role in hosts.every_host({**parsed, "client": parsed["clients"][0]})] == [
        "hosts.server", "hosts.client", "hosts.clients", "hosts.clients"]
    for raw, message in [({**table, "clients": "ssh://a"}, "must be a list"),
                         ({**table, "clients": ["ssh://a", "ssh://a"]}, "named twice"),
                         ({**table, "clients": ["a"]}, "'a' is not"),
                         ({**table, "clients": [{"host": "ssh://a", "path": "rel"}]},
                          "path 'rel' must be the absolute path"),
                         ({**table, "clients": [{"host": "ssh://a", "dir": "/x"}]},
                          "unknown key 'dir'"),
                         ({"clients": ["ssh://a"]}, "needs hosts.server on another host")]:
        with pytest.raises(UserError, match=message):
            hosts.parse_hosts(raw, "s.toml")


def test_a_peers_files_go_to_the_hosts_private_directory():
    place = places.SshPlace(address="10.0.0.2", target="h", local_root="/here/ipclab",
                            remote_root="/there", local_scratch="/tmp/run",
                            remote_scratch="/tmp/ipclab-remote-x")
    argv = place.command(["/here/ipclab/peer", "drive", "--records-file", "/tmp/run/c/h0/r.csv",
                          "--result-file", "/tmp/run/c/h0/result.json", "/tmp/runner"])
    assert argv[-1] == ("umask 077 && (cd -- /tmp/ipclab-remote-x && mkdir -p -- c/h0) && "
                        "exec /there/peer "
                        "drive --records-file /tmp/ipclab-remote-x/c/h0/r.csv --result-file "
                        "/tmp/ipclab-remote-x/c/h0/result.json /tmp/runner")
    assert place.there("/tmp/run") == "/tmp/ipclab-remote-x" and place.there("/etc/x") == "/etc/x"
    # A client's lifeline is the channel's stdin: a watcher kills it when that ends.
    watched = place.command(["/here/ipclab/peer", "drive"], client=True)[-1]
    assert watched == ("exec 3<&0; /there/peer drive </dev/null & p=$!; { cat <&3 >/dev/null "
                       "2>&1; kill $p 2>/dev/null; } >/dev/null 2>&1 & wait $p")


def test_a_remote_command_is_quoted_and_rooted_there():
    place = places.SshPlace(address="10.0.0.2", target="u@h", ssh_options=("-o", "BatchMode=yes"),
                           local_root="/here/ipclab", remote_root="/there/ipc lab")
    argv = place.command(["taskset", "--cpu-list", "1", "/here/ipclab/peers/x", "serve", "a;b"])
    assert argv == ["ssh", "-o", "BatchMode=yes", "u@h", "--",
                    "exec taskset --cpu-list 1 '/there/ipc lab/peers/x' serve 'a;b'"]


_HOSTS = pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists(SSHD) or not shutil.which("ssh"),
    reason="needs root (network namespaces) and openssh-server (scripts/setup-system)")


def needs_hosts(test):
    """A test over hosts in network namespaces: end-to-end (marked e2e, so scripts/flakes runs
    it), skipped without root or sshd."""
    return pytest.mark.e2e(_HOSTS(test))


@needs_hosts
def test_a_server_on_another_host_over_ssh(tmp_path):
    private = tmp_path / "hosts"
    private.mkdir(mode=0o700)
    names = (f"ipclabtest-{os.getpid()}-client", f"ipclabtest-{os.getpid()}-server")
    sshd = None
    try:
        _two_hosts(*names)
        config = _keys_and_configs(private)
        sshd = subprocess.Popen(["ip", "netns", "exec", names[1], SSHD, "-D", "-f",
                                 str(private / "sshd_config"), "-E", str(private / "sshd.log")])
        _wait_listening(names[1], sshd)
        scenario = tmp_path / "two-hosts.toml"
        scenario.write_text(f"""
name = "two-hosts-test"
[matrix]
mechanism = ["tcp", "ice", "uds"]
client = ["cpp"]
server = ["cpp"]
placement = ["unpinned"]
[run]
iterations = 200
warmup = 10
rounds = 1
preflight = 0
[hosts]
server = "ssh://root@{SERVER_IP}:{PORT}"
path = "{ROOT}"
server_address = "{SERVER_IP}"
ssh_config = "{config}"
""")
        out = tmp_path / "out"
        scratch = tmp_path / "scratch"
        scratch.mkdir()
        done = subprocess.run(["ip", "netns", "exec", names[0], *IPCLAB, "run", str(scenario),
                               "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "TMPDIR": str(scratch), "COLUMNS": "200"},
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        rows = {r["mechanism"]: r for r in csv.DictReader(open(out / "cases.csv"))}
        assert rows["tcp"]["status"] == "ok" and rows["ice"]["status"] == "ok"
        assert rows["uds"]["status"] == "not-applicable"
        assert "cannot run on another host" in rows["uds"]["reason"]
        document = json.loads((out / "run.json").read_text())
        server_host = document["environment"]["hosts"]["server"]
        assert server_host["address"] == SERVER_IP and server_host["git_revision"]
        # tcp and ice were ok, so the server listened on SERVER_IP: only the server host has it.
        _assert_settled(names, sshd.pid, "the run")
        _interrupt_mid_case(names, sshd.pid, scenario, tmp_path, scratch)
        _drop_connection_mid_case(names, sshd.pid, scenario, tmp_path, scratch)
        _hosts_check(names, scenario, scratch, sshd)
    finally:
        if sshd is not None:
            sshd.terminate()
            sshd.wait(10)
        for name in names:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
    assert not any(Path("/run/netns", n).exists() for n in names)


def _hosts_check(names, scenario, scratch, sshd):
    """`ipclab hosts check`: both hosts ready (same checkout, built, a clock offset measured);
    with the server host's sshd stopped, one line naming that host and what to do, exit 1."""
    def check():
        return subprocess.run(["ip", "netns", "exec", names[0], *IPCLAB, "hosts", "check",
                               str(scenario)], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "TMPDIR": str(scratch), "COLUMNS": "250"},
                              timeout=120)
    done = check()
    assert done.returncode == 0, done.stdout + done.stderr
    server_row = next(line for line in done.stdout.splitlines() if f"{SERVER_IP}:{PORT}" in line)
    assert "│ yes" in server_row and "cpp" in server_row and " ± " in server_row, done.stdout
    sshd.terminate()
    sshd.wait(10)
    done = check()
    assert done.returncode == 1, done.stdout + done.stderr
    (problem,) = [line for line in done.stdout.splitlines()
                  if line.startswith(f"ssh://root@{SERVER_IP}:{PORT}: ")]
    assert "cannot reach" in problem and "without a password" in problem, done.stdout


def _slow_run(names, scenario, tmp_path, scratch, label):
    """`ipclab run` of one long tcp case (4 MiB × 100 000) in the client host, returned once its
    server peer (`… serve …`) runs on the other host."""
    slow = tmp_path / f"{label}.toml"
    slow.write_text(scenario.read_text().replace('mechanism = ["tcp", "ice", "uds"]',
                                                 'mechanism = ["tcp"]\nrequest_size = ["4MiB"]')
                    .replace("iterations = 200", "iterations = 100000"))
    run = subprocess.Popen(["ip", "netns", "exec", names[0], *IPCLAB, "run", str(slow), "--out",
                            str(tmp_path / label)], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 30
    while not any("serve" in _argv(pid) for pid in _pids(names[1])) and time.monotonic() < deadline:
        if run.poll() is not None:
            pytest.fail(f"{label}: the run ended early: {run.stderr.read()}")
        time.sleep(0.05)  # polling for the remote server to appear
    return run


def _interrupt_mid_case(names, sshd_pid, scenario, tmp_path, scratch):
    """Ctrl-C while the remote server serves: exit 130, and the remote server and its session
    end with the run (the ssh channel's end of file is the server's lifeline)."""
    run = _slow_run(names, scenario, tmp_path, scratch, "interrupted")
    try:
        run.send_signal(2)
        assert run.wait(30) == 130, run.stderr.read()
    finally:
        _reap(run)
    _assert_settled(names, sshd_pid, "Ctrl-C")


def _drop_connection_mid_case(names, sshd_pid, scenario, tmp_path, scratch):
    """The ssh connection dies mid-case (its sshd session is killed): the case fails, the run
    ends, and the remote server, reading end of file, is gone too."""
    run = _slow_run(names, scenario, tmp_path, scratch, "dropped")
    try:
        for pid in _pids(names[1]):
            if _parent(pid) == sshd_pid:
                os.kill(pid, 9)
        assert run.wait(60) == 1, run.stderr.read()
    finally:
        _reap(run)
    rows = list(csv.DictReader(open(tmp_path / "dropped" / "cases.csv")))
    assert rows[0]["status"] == "failed" and "server" in rows[0]["reason"]
    _assert_settled(names, sshd_pid, "the dropped connection")


def _argv(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().split("\0")
    except OSError:
        return []


def _parent(pid):
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _reap(run):
    if run.poll() is None:
        run.kill()
        run.wait()


def _assert_settled(names, sshd_pid, after, timeout=5.0):
    """Only sshd left in the server host, nothing in the client host (the remote session ends
    a moment after its channel closes: waited for, up to `timeout`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if set(_pids(names[1])) <= {sshd_pid} and not _pids(names[0]):
            return
        time.sleep(0.05)
    pytest.fail(f"after {after}: server host runs {_pids(names[1])} (sshd {sshd_pid}), "
                f"client host {_pids(names[0])}")


def _two_hosts(client, server):
    run = lambda *argv: subprocess.run(argv, check=True, capture_output=True)  # noqa: E731
    for name in (client, server):
        run("ip", "netns", "add", name)
        run("ip", "-n", name, "link", "set", "lo", "up")
    run("ip", "link", "add", "eth0", "netns", client, "type", "veth", "peer", "name", "eth0",
        "netns", server)
    for name, address in ((client, CLIENT_IP), (server, SERVER_IP)):
        run("ip", "-n", name, "addr", "add", f"{address}/30", "dev", "eth0")
        run("ip", "-n", name, "link", "set", "eth0", "up")


def _keys_and_configs(private):
    """A host key, a user key authorised for root, sshd's config and the client's (-F)."""
    for key in ("host_key", "user_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(private / key)],
                       check=True)
    (private / "authorized_keys").write_text((private / "user_key.pub").read_text())
    (private / "sshd_config").write_text(f"""ListenAddress {SERVER_IP}
Port {PORT}
HostKey {private}/host_key
AuthorizedKeysFile {private}/authorized_keys
PidFile none
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
""")
    (private / "known_hosts").write_text(
        f"[{SERVER_IP}]:{PORT} {(private / 'host_key.pub').read_text()}")
    config = private / "ssh_config"
    config.write_text(f"""Host {SERVER_IP}
  IdentityFile {private}/user_key
  IdentitiesOnly yes
  UserKnownHostsFile {private}/known_hosts
  StrictHostKeyChecking yes
""")
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    return config


def _wait_listening(netns, sshd, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert sshd.poll() is None, "sshd exited at start"
        listening = subprocess.run(["ip", "netns", "exec", netns, "ss", "-Hltn",
                                    f"sport = :{PORT}"], capture_output=True, text=True).stdout
        if listening.strip():
            return
        time.sleep(0.05)  # polling for a socket to appear
    pytest.fail("sshd did not listen")


def _pids(netns):
    out = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_wire_bytes_between_hosts_are_counted_where_the_client_runs():
    from ipclab.execute import network, wire
    from ipclab.plan.scenario import RunSettings
    rules = wire.ruleset("10.0.0.2", ssh_port=2222)
    assert "ip daddr 10.0.0.2 tcp dport 2222 return" in rules
    assert rules.index("tcp sport 2222 return") < rules.index("counter name resp_conn")
    assert "return" not in wire.ruleset("10.0.0.2")
    table = {"server": "ssh://s", "path": "/p", "server_address": "10.0.0.2", "source": "s.toml"}
    shaped = RunSettings(link="veth:100mbit")
    with pytest.raises(UserError, match="a link with the server on another host"):
        network.check_machine(shaped, hosts=table)
    with pytest.raises(UserError, match="--wire-bytes with hosts.clients is not supported"):
        network.check_machine(RunSettings(wire_bytes=True), hosts={**table, "clients": [{}]})
    network.check_machine(RunSettings(wire_bytes=True), hosts={**table, "client": {}})
