"""The conditions of a connection (contract 6, PROTOCOL.md 1, 11.2): the rr server's --backlog,
the listen queue the kernel reports, and short's --source, where each connection comes from.
Their parsing is in test_conditions.py."""
import socket
import subprocess
import types

import pytest
from peers import Drive, serving
from test_conditions import SHORT
from test_roundtrip import check_ok


# ---- --backlog ------------------------------------------------------------------------------

def listen_backlog(*ss_args):
    """The backlog of a listening socket as the kernel reports it (ss: Send-Q of a
    listener)."""
    lines = subprocess.run(["ss", "-lH", *ss_args], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    fields = [line.split() for line in lines if "LISTEN" in line]
    assert len(fields) == 1, lines
    return int(fields[0][fields[0].index("LISTEN") + 2])


@pytest.mark.parametrize("backlog", [None, "50", "3"])
def test_the_tcp_rr_server_listens_with_the_backlog(backlog, workdir):
    extra = ["--backlog", backlog] if backlog else []
    with serving("tcp", workdir, *extra) as case:
        port = case.endpoint.rsplit(":", 1)[1]
        assert listen_backlog("-tn", f"sport = :{port}") == int(backlog or 512)


@pytest.mark.parametrize("backlog", [None, "50"])
def test_the_uds_rr_server_listens_with_the_backlog(backlog, workdir):
    extra = ["--backlog", backlog] if backlog else []
    with serving("uds", workdir, *extra) as case:
        assert listen_backlog("-x", "src", case.endpoint) == int(backlog or 512)


def test_short_against_a_server_with_a_small_backlog(workdir):
    with serving("tcp", workdir, "--backlog", "50") as case:
        run = Drive(workdir, "tcp", case.endpoint, 1024, 16, iterations=200, extra=SHORT)
        check_ok(run, "tcp", 1024, 16, 200, pattern="short")


# ---- --source -------------------------------------------------------------------------------

def test_source_one_connects_every_connection_from_127_0_0_1(workdir):
    """A stand-in server records where each connection comes from: with --source one, the
    kernel's choice, 127.0.0.1, for every one (END's included), each from a port of its own
    among those not in use."""
    from test_short import short_against_a_stand_in
    run, sources = short_against_a_stand_in(workdir, 50, ["--source", "one"])
    check_ok(run, "tcp", 16, 16, 50, warmup=2, pattern="short")
    assert [host for host, _ in sources] == ["127.0.0.1"] * 53


def test_source_one_still_makes_the_socket_before_the_clock():
    """tcp's connect_short with --source one: an unconnected, unbound socket (port 0) with
    TCP_NODELAY, connected only by connect()."""
    options = types.SimpleNamespace(io_timeout=5, nodelay="on", source="one")
    from ipclab_peer.mechanisms import MECHANISMS
    from ipclab_peer.transport import endpoints
    with socket.create_server(("127.0.0.1", 0)) as listener:
        endpoint = endpoints.HostPort("127.0.0.1", listener.getsockname()[1])
        pending = MECHANISMS["tcp"].connect_short(endpoint, options, 7)
        assert pending.sock.getsockname() == ("0.0.0.0", 0)
        assert pending.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        link = pending.connect()
        conn, address = listener.accept()
        assert address[0] == "127.0.0.1"
        link.close()
        conn.close()


def test_source_one_round_trips_against_our_server(workdir):
    with serving("tcp", workdir) as case:
        run = Drive(workdir, "tcp", case.endpoint, 100, 100, iterations=100,
                    extra=SHORT + ["--source", "one"])
        check_ok(run, "tcp", 100, 100, 100, pattern="short")
