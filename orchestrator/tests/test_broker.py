"""The ActiveMQ broker of a round (PROTOCOL.md 4.7, execute/broker.py): found on its port, spoken
to over AMQP by a stock client, stopped and removed; a killed broker is said."""
import os
import signal
import socket

import pytest

from ipclab.execute import broker as broker_mod
from ipclab.execute.broker import Broker, listening_ports
from ipclab.execute.peers import PeerError
from ipclab.plan.catalog import repo_root


def test_the_listening_ports_of_a_process_are_found_from_proc():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        assert port not in listening_ports(os.getpid())  # bound, not listening
        s.listen()
        assert port in listening_ports(os.getpid())


class Picks:
    """A stand-in for random: the ports to try, in order."""
    def __init__(self, ports):
        self.ports = ports

    def randrange(self, low, high):
        return next(self.ports)


def test_the_broker_port_is_free_and_below_the_ephemeral_range_no_connect_takes(tmp_path):
    low = broker_mod.ephemeral_low()
    ports = {broker_mod.free_port() for _ in range(20)}
    assert all(1024 <= p < low for p in ports) and len(ports) > 1
    with socket.socket() as taken, socket.socket() as spare:  # a taken port is passed over
        taken.bind(("127.0.0.1", 0))
        spare.bind(("127.0.0.1", 0))
        free = spare.getsockname()[1]
        spare.close()
        picks = iter([taken.getsockname()[1], free])
        assert broker_mod.free_port(rng=Picks(picks)) == free
    (tmp_path / "range").write_text("40000\t60999\n")
    assert broker_mod.ephemeral_low(tmp_path / "range") == 40000
    assert broker_mod.ephemeral_low(tmp_path / "missing") == 32768


def test_without_the_amqp_transport_the_broker_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(broker_mod, "LAUNCHER", tmp_path / "missing.jar")
    with pytest.raises(PeerError, match="no ActiveMQ: install the Debian package activemq"):
        Broker(tmp_path / "b", tmp_path).start()
    assert not (tmp_path / "b").exists()


@pytest.fixture
def jars():
    found, why = broker_mod.transport_jars(repo_root())
    if why:
        pytest.skip(why)
    return found


def java_processes_in(directory):
    """PIDs of processes whose command line names `directory` (a broker's base)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        if str(directory) in cmdline:
            found.append(int(pid))
    return found


@pytest.mark.e2e
def test_a_broker_starts_answers_amqp_and_leaves_nothing(tmp_path, jars):
    proton = pytest.importorskip("proton.utils")
    message = pytest.importorskip("proton").Message
    broker = Broker(tmp_path / "b", repo_root())
    try:
        url = broker.start()
        assert url.startswith("amqp://127.0.0.1:")
        assert oct((tmp_path / "b").stat().st_mode & 0o777) == "0o700"
        connection = proton.BlockingConnection(url, timeout=30)
        connection.create_sender("ipclab.test").send(message(body=b"IPCL", durable=True))
        got = connection.create_receiver("ipclab.test").receive(timeout=30)
        assert bytes(got.body) == b"IPCL"
        connection.close()
    finally:
        assert broker.stop() is None  # it was alive until stopped
    assert not (tmp_path / "b").exists() and not java_processes_in(tmp_path / "b")


@pytest.mark.e2e
def test_a_killed_broker_is_said_when_it_is_stopped(tmp_path, jars):
    broker = Broker(tmp_path / "b", repo_root())
    broker.start()
    os.kill(broker.process.pid, signal.SIGKILL)
    broker.process.wait(10)
    said = broker.stop()
    assert said.startswith("the ActiveMQ broker ") and "SIGKILL" in said, said
    assert not java_processes_in(tmp_path / "b")
