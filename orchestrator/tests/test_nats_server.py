"""The NATS server of a round (PROTOCOL.md 4.11, execute/nats_server.py): started private from
the configuration it writes, answering with the settings the contract states, stopped and
removed; the subject names of rounds; [hosts] nats (a killed server, a missing binary and one
that outlived its run found by `ipclab leaks`: test_private_servers.py)."""
import json
import os
import socket
import stat

import pytest

from ipclab.common.errors import UserError
from ipclab.execute.nats_server import (CONFIG, MAX_PAYLOAD, MAX_PENDING, NatsServer, nats_binary,
                                        subject_name)
from ipclab.plan import hosts
from ipclab.plan.catalog import repo_root

needs_nats = pytest.mark.skipif(nats_binary() is None,
                                reason="no nats-server: make setup installs Debian's")


def info(address):
    """The INFO a NATS server sends a new connection, as a dict."""
    with socket.create_connection(address, timeout=5) as s:
        line = b""
        while b"\r\n" not in line:
            line += s.recv(4096)
    assert line.startswith(b"INFO ")
    return json.loads(line[5:line.index(b"\r\n")])


def test_subject_names_are_the_rounds_key_names_without_dots():
    assert subject_name("/tmp/ipclab-4242-k3x9/c0003") == "ipclab-4242-k3x9:c0003"
    assert subject_name("/tmp/ipclab-1-a/c1.calibration") == "ipclab-1-a:c1_calibration"
    assert subject_name("/var/odd dir/c1") == "var:odd_dir:c1"


@needs_nats
def test_a_server_starts_private_answers_as_configured_and_leaves_nothing(tmp_path):
    server = NatsServer(tmp_path / "n", repo_root(), "ipclab-1-a:c1")
    try:
        endpoint = server.start()
        assert stat.S_IMODE((tmp_path / "n").stat().st_mode) == 0o700
        assert stat.S_IMODE((tmp_path / "n" / "nats.conf").stat().st_mode) == 0o600
        assert os.readlink(f"/proc/{server.process.pid}/cwd") == str(tmp_path / "n")
        host, port = server.address
        assert host == "127.0.0.1" and endpoint == f"nats://127.0.0.1:{port}/ipclab-1-a:c1"
        said = info(server.address)
        assert said["max_payload"] == MAX_PAYLOAD == 64 << 20
        assert not said.get("jetstream")  # nothing stored
        assert said["version"].startswith("2.")
    finally:
        assert server.stop() is None
    assert not (tmp_path / "n").exists()


def test_the_configuration_keeps_room_for_the_largest_frame_and_a_window():
    assert MAX_PENDING >= 2 * MAX_PAYLOAD  # one 64 MiB answer and a stream's 64 MiB window
    text = CONFIG.format(address="127.0.0.1", port=4222, max_payload=1, max_pending=2)
    assert "jetstream" not in text.split("\n", 1)[1] and "listen" in text


def test_hosts_name_an_existing_nats_server():
    assert hosts.parse_nats({"nats": "nats://10.0.0.5:4222"}, "s") == \
        {"nats": "nats://10.0.0.5:4222"}
    assert hosts.parse_nats(None, "s") == {}
    for bad in ({"nats": "10.0.0.5:4222"}, {"nats": "nats://h:0"}, {"nats": "nats://h:1/x"}):
        with pytest.raises(UserError, match="hosts.nats"):
            hosts.parse_nats(bad, "s")
